/*
 * test_readme_example — the README's C example, verbatim (run on a thread):
 * a repeating common-modes timer stops the loop on its third tick; a
 * BeforeWaiting observer sees the loop go to sleep before each tick.
 */
#include "harness.h"

static void tick(RLRunLoopTimerRef timer, void *info) {
    int *n = info;
    TRACE("tick %d", ++*n);
    if (*n == 3) RLRunLoopStop(RLRunLoopGetCurrent());
}

static void watch(RLRunLoopObserverRef o, RLRunLoopActivity activity, void *info) {
    if (activity == kRLRunLoopBeforeWaiting) TRACE("going to sleep");
}

static void example(void) {
    int n = 0;
    RLRunLoopTimerContext ctx = {0, &n, NULL, NULL, NULL};
    RLRunLoopTimerRef timer = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.1,
                                                   0.1, 0, 0, tick, &ctx);
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), timer, kRLRunLoopCommonModes);
    RLRelease(timer);                       /* the loop keeps its own reference */

    RLRunLoopObserverRef obs = RLRunLoopObserverCreate(NULL, kRLRunLoopBeforeWaiting, 1, 0, watch, NULL);
    RLRunLoopAddObserver(RLRunLoopGetCurrent(), obs, kRLRunLoopDefaultMode);
    RLRelease(obs);

    RLRunLoopRun();                         /* returns after the third tick */
    TRACE("RLRunLoopRun returned");
}

int main(void)
{
    run_on_thread(example);
    return trace_check("readme_example") | harness_failures;
}
