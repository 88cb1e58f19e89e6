/*
 * trace_demo — record what a loop does as a Chrome/Perfetto trace.
 *
 *     trace_demo [trace.json]      (default: /dev/null)
 *
 * The main thread's loop runs a repeating 20 ms timer (five ticks, the third
 * one slow), an observer on BeforeWaiting/AfterWaiting, a function queued
 * from the timer, and a source a worker thread signals after the first tick; every step of every
 * pass and every callout lands in the trace.  Open the file in
 * https://ui.perfetto.dev (or chrome://tracing).  scripts/trace-demo.sh
 * writes docs/trace-example.json with it.
 */
#define _POSIX_C_SOURCE 200809L
#include <runloop/runloop.h>

#include <pthread.h>
#include <stdio.h>
#include <time.h>

static RLRunLoopRef loop;
static RLRunLoopSourceRef source;
static int ticks;

static void sleep_ms(int ms)
{
    struct timespec d = { 0, ms * 1000000L };
    nanosleep(&d, NULL);
}

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t opened = PTHREAD_COND_INITIALIZER;
static int first_tick_done;

/* Signals the source once the first tick has run. */
static void *worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&gate);
    while (!first_tick_done) pthread_cond_wait(&opened, &gate);
    pthread_mutex_unlock(&gate);
    RLRunLoopSourceSignal(source);
    RLRunLoopWakeUp(loop);
    return NULL;
}

static void performed(void *info)
{
    (void)info;
    printf("source performed (signalled by the worker)\n");
}

static void queued(void *info)
{
    printf("queued function after tick %d\n", *(int *)info);
}

static void observe(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o, (void)a, (void)info;
}

static void tick(RLRunLoopTimerRef timer, void *info)
{
    (void)info;
    ticks++;
    printf("tick %d%s\n", ticks, ticks == 3 ? " (slow: 15 ms of work)" : "");
    if (ticks == 3) sleep_ms(15);
    if (ticks == 1) {
        pthread_mutex_lock(&gate);
        first_tick_done = 1;
        pthread_cond_signal(&opened);
        pthread_mutex_unlock(&gate);
    }
    RLRunLoopPerformFunction(loop, kRLRunLoopDefaultMode, queued, &ticks);
    RLRunLoopWakeUp(loop);
    if (ticks == 5) {
        RLRunLoopTimerInvalidate(timer);
        RLRunLoopStop(loop);
    }
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "/dev/null";
    loop = RLRunLoopGetCurrent();

    RLRunLoopSourceContext sc = { 0 };
    sc.perform = performed;
    source = RLRunLoopSourceCreate(NULL, 0, &sc);
    RLRunLoopAddSource(loop, source, kRLRunLoopDefaultMode);

    RLRunLoopObserverRef observer = RLRunLoopObserverCreate(
        NULL, kRLRunLoopBeforeWaiting | kRLRunLoopAfterWaiting, true, 0, observe, NULL);
    RLRunLoopAddObserver(loop, observer, kRLRunLoopDefaultMode);

    RLRunLoopTimerRef timer = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.02, 0.02, 0, 0, tick, NULL);
    RLRunLoopAddTimer(loop, timer, kRLRunLoopDefaultMode);

    printf("trace started: %s\n", RLRunLoopTraceStart(loop, path) ? "yes" : "no");
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, false);
    pthread_join(t, NULL);
    printf("trace stopped: %s\n", RLRunLoopTraceStop(loop) ? "yes" : "no");

    RLRunLoopStatistics stats = { .size = sizeof stats };
    RLRunLoopGetStatistics(loop, &stats);
    printf("timers fired: %llu\n", (unsigned long long)stats.timersFired);

    RLRunLoopSourceInvalidate(source);
    RLRelease(source);
    RLRelease(observer);
    RLRelease(timer);
    return 0;
}
