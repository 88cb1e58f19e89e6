/*
 * demo — runloop shown the way the CFRunLoop articles show it.
 *
 *   1. Watching the loop: an observer on all activities prints each step
 *      of a pass (Entry, BeforeTimers, BeforeSources, BeforeWaiting,
 *      AfterWaiting, Exit).
 *   2. The scroll-view/timer problem: a timer added to the default mode
 *      stops while the loop runs in a "tracking" mode; the same timer added
 *      to kRLRunLoopCommonModes keeps firing once "tracking" is a common
 *      mode.
 *   3. A keep-alive worker thread: its loop is kept alive by a source, the
 *      main thread hands it work by signalling that source and by
 *      performing functions on it (each followed by a wake-up), and finally
 *      stops it cleanly.
 *   4. The loop's description, as CFCopyDescription would print it.
 */
#define _GNU_SOURCE 1
#include <runloop/runloop.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACKING "UITrackingRunLoopMode"

static const char *activity_name(RLRunLoopActivity a)
{
    switch (a) {
    case kRLRunLoopEntry: return "Entry";
    case kRLRunLoopBeforeTimers: return "BeforeTimers";
    case kRLRunLoopBeforeSources: return "BeforeSources";
    case kRLRunLoopBeforeWaiting: return "BeforeWaiting (going to sleep)";
    case kRLRunLoopAfterWaiting: return "AfterWaiting (woken up)";
    case kRLRunLoopExit: return "Exit";
    default: return "?";
    }
}

static const char *result_name(RLRunLoopRunResult r)
{
    switch (r) {
    case kRLRunLoopRunFinished: return "Finished";
    case kRLRunLoopRunStopped: return "Stopped";
    case kRLRunLoopRunTimedOut: return "TimedOut";
    case kRLRunLoopRunHandledSource: return "HandledSource";
    default: return "?";
    }
}

/* ---- 1. watching the loop ------------------------------------------------ */

static void print_activity(RLRunLoopObserverRef observer, RLRunLoopActivity activity, void *info)
{
    (void)observer, (void)info;
    RLRunLoopMode mode = RLRunLoopCopyCurrentMode(RLRunLoopGetCurrent());
    printf("    [observer] %-32s (mode %s)\n", activity_name(activity), mode ? mode : "-");
    RLRelease(mode);
}

/* ---- 2. timers and modes ------------------------------------------------- */

static int common_ticks, default_ticks;

static void common_tick(RLRunLoopTimerRef timer, void *info)
{
    (void)timer, (void)info;
    RLRunLoopMode mode = RLRunLoopCopyCurrentMode(RLRunLoopGetCurrent());
    printf("    [timer in common modes]  tick %d, running in %s\n", ++common_ticks, mode);
}

static void default_tick(RLRunLoopTimerRef timer, void *info)
{
    (void)timer, (void)info;
    RLRunLoopMode mode = RLRunLoopCopyCurrentMode(RLRunLoopGetCurrent());
    printf("    [timer in default mode]  tick %d, running in %s\n", ++default_ticks, mode);
}

/* ---- 3. the keep-alive worker -------------------------------------------- */

struct worker {
    pthread_t thread;
    RLRunLoopRef loop;          /* retained by main while the worker runs */
    RLRunLoopSourceRef inbox;   /* keeps the worker's loop alive */
    atomic_int stopped;
    atomic_int jobs_done;
    pthread_mutex_t lock;
    pthread_cond_t ready;
    char message[64];           /* what the inbox source reads when performed */
};

static void inbox_perform(void *info)
{
    struct worker *w = info;
    pthread_mutex_lock(&w->lock);
    printf("    [worker] inbox source performed: \"%s\"\n", w->message);
    pthread_mutex_unlock(&w->lock);
    atomic_fetch_add(&w->jobs_done, 1);
}

static void job(void *info)
{
    printf("    [worker] performed function: %s\n", (const char *)info);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    RLRunLoopSourceContext context = {0};
    context.info = w;
    context.perform = inbox_perform;
    w->inbox = RLRunLoopSourceCreate(NULL, 0, &context);

    pthread_mutex_lock(&w->lock);
    w->loop = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    RLRunLoopAddSource(w->loop, w->inbox, kRLRunLoopDefaultMode);
    pthread_cond_signal(&w->ready);
    pthread_mutex_unlock(&w->lock);

    printf("    [worker] loop running (kept alive by its inbox source)\n");
    while (!atomic_load(&w->stopped)) {
        RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10.0, 0);
        printf("    [worker] RunInMode returned %s\n", result_name(r));
    }
    RLRunLoopSourceInvalidate(w->inbox);
    RLRelease(w->inbox);
    printf("    [worker] exiting; its loop is torn down with the thread\n");
    return NULL;
}

static void wait_until_sleeping(RLRunLoopRef loop)
{
    while (!RLRunLoopIsWaiting(loop)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

int main(void)
{
    RLRunLoopRef main_loop = RLRunLoopGetCurrent();
    printf("runloop demo\n\n");

    printf("1. One run of the main loop, watched by an all-activities observer\n");
    RLRunLoopObserverRef observer =
        RLRunLoopObserverCreate(NULL, kRLRunLoopAllActivities, 1, 0, print_activity, NULL);
    RLRunLoopAddObserver(main_loop, observer, kRLRunLoopCommonModes);
    RLRunLoopTimerRef once = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.05, 0, 0, 0, default_tick, NULL);
    RLRunLoopAddTimer(main_loop, once, kRLRunLoopDefaultMode);
    RLRelease(once);
    printf("    RunInMode(default, 1 s) returned %s\n\n",
           result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 0)));
    RLRunLoopRemoveObserver(main_loop, observer, kRLRunLoopCommonModes);

    printf("2. Timers and modes: \"%s\" is made common\n", TRACKING);
    default_ticks = 0;
    RLRunLoopTimerRef in_default =
        RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.1, 0.1, 0, 0, default_tick, NULL);
    RLRunLoopTimerRef in_common =
        RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.1, 0.1, 0, 0, common_tick, NULL);
    RLRunLoopAddTimer(main_loop, in_default, kRLRunLoopDefaultMode);
    RLRunLoopAddTimer(main_loop, in_common, kRLRunLoopCommonModes);
    RLRunLoopAddCommonMode(main_loop, TRACKING);
    printf("  running 0.35 s in the default mode: both timers fire\n");
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.35, 0);
    int before = default_ticks;
    printf("  running 0.35 s in %s (the user is scrolling): only the common-modes timer fires\n", TRACKING);
    RLRunLoopRunInMode(TRACKING, 0.35, 0);
    int ok_modes = default_ticks == before && common_ticks >= 5;
    printf("  default-mode timer ticks while tracking: %d (expected 0)\n\n", default_ticks - before);

    printf("3. A keep-alive worker thread fed from the main thread\n");
    static struct worker w;
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.ready, NULL);
    pthread_mutex_lock(&w.lock);
    pthread_create(&w.thread, NULL, worker_main, &w);
    while (!w.loop) pthread_cond_wait(&w.ready, &w.lock);
    pthread_mutex_unlock(&w.lock);

    const char *messages[] = {"hello", "from", "the main thread"};
    for (int i = 0; i < 3; i++) {
        wait_until_sleeping(w.loop);
        pthread_mutex_lock(&w.lock);
        snprintf(w.message, sizeof w.message, "%s", messages[i]);
        pthread_mutex_unlock(&w.lock);
        printf("  [main] signal the inbox + wake up the worker\n");
        RLRunLoopSourceSignal(w.inbox);
        RLRunLoopWakeUp(w.loop);
        while (atomic_load(&w.jobs_done) < i + 1) sched_yield();
    }
    wait_until_sleeping(w.loop);
    printf("  [main] perform two functions on the worker + wake it up\n");
    RLRunLoopPerformFunction(w.loop, kRLRunLoopDefaultMode, job, "job A");
    RLRunLoopPerformFunction(w.loop, kRLRunLoopCommonModes, job, "job B");
    RLRunLoopWakeUp(w.loop);
    wait_until_sleeping(w.loop);
    printf("  [main] stop the worker\n");
    atomic_store(&w.stopped, 1);
    RLRunLoopStop(w.loop);
    pthread_join(w.thread, NULL);
    RLRunLoopStop(w.loop);  /* harmless: the handle is retained, the thread is gone */
    RLRelease(w.loop);
    int ok_worker = atomic_load(&w.jobs_done) == 3;
    printf("\n");

    printf("4. The main loop's description\n");
    char *description = RLCopyDescription(main_loop);
    printf("%s\n\n", description);
    free(description);

    RLRunLoopTimerInvalidate(in_default);
    RLRunLoopTimerInvalidate(in_common);
    RLRelease(in_default);
    RLRelease(in_common);
    RLRunLoopObserverInvalidate(observer);
    RLRelease(observer);

    if (ok_modes && ok_worker) {
        printf("demo finished: all steps behaved as expected\n");
        return 0;
    }
    printf("demo FAILED: modes %s, worker %s\n", ok_modes ? "ok" : "wrong", ok_worker ? "ok" : "wrong");
    return 1;
}
