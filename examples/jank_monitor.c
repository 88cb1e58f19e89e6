/*
 * jank_monitor — find passes of the loop that block the thread too long.
 *
 * The time between waking up (AfterWaiting, or Entry) and going back to
 * sleep (BeforeWaiting, or Exit) is the work of one pass.  On a UI thread a
 * pass longer than a frame or two is visible as jank.  Two observers time
 * it: one with the lowest order (runs first) stamps the start, one with
 * the highest order (runs last) measures the end and reports slow passes.
 * A repeating timer ticks three times; its second tick does 250 ms of
 * "work", which the monitor catches.  (Production monitors watch from
 * another thread so they can also catch a pass that never ends.)
 */
#define _POSIX_C_SOURCE 200809L
#include <runloop/runloop.h>

#include <limits.h>
#include <stdio.h>
#include <time.h>

#define THRESHOLD_MS 100.0
#define SLOW_WORK_MS 250

static double pass_start_ms;
static int ticks, janky_passes;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void pass_begins(RLRunLoopObserverRef o, RLRunLoopActivity activity, void *info)
{
    (void)o, (void)activity, (void)info;
    pass_start_ms = now_ms();
}

static void pass_ends(RLRunLoopObserverRef o, RLRunLoopActivity activity, void *info)
{
    (void)o, (void)info;
    double busy = now_ms() - pass_start_ms;
    if (busy > THRESHOLD_MS) {
        janky_passes++;
        printf("jank: a pass kept the thread busy for more than %.0f ms (before %s, after tick %d)\n",
               THRESHOLD_MS, activity == kRLRunLoopExit ? "Exit" : "BeforeWaiting", ticks);
    }
}

static void tick(RLRunLoopTimerRef timer, void *info)
{
    (void)info;
    ticks++;
    printf("tick %d%s\n", ticks, ticks == 2 ? " (slow)" : "");
    if (ticks == 2) {
        /* stands in for slow work done on the loop's thread */
        struct timespec work = { 0, SLOW_WORK_MS * 1000000L };
        nanosleep(&work, NULL);
    }
    if (ticks == 3) RLRunLoopTimerInvalidate(timer);   /* the mode empties: the run finishes */
}

int main(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef begin = RLRunLoopObserverCreate(NULL, kRLRunLoopEntry | kRLRunLoopAfterWaiting,
                                                         1, LONG_MIN, pass_begins, NULL);
    RLRunLoopObserverRef end = RLRunLoopObserverCreate(NULL, kRLRunLoopBeforeWaiting | kRLRunLoopExit,
                                                       1, LONG_MAX, pass_ends, NULL);
    RLRunLoopAddObserver(rl, begin, kRLRunLoopCommonModes);
    RLRunLoopAddObserver(rl, end, kRLRunLoopCommonModes);

    RLRunLoopTimerRef timer = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.010, 0.010, 0, 0, tick, NULL);
    RLRunLoopAddTimer(rl, timer, kRLRunLoopDefaultMode);

    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 30, 0);
    printf("%d ticks, %d janky pass(es)\n", ticks, janky_passes);

    RLRunLoopObserverInvalidate(begin);
    RLRunLoopObserverInvalidate(end);
    RLRelease(begin);
    RLRelease(end);
    RLRelease(timer);
    return janky_passes == 1 ? 0 : 1;
}
