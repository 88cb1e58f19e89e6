/*
 * test_observer_order — observers of one activity run by their order field,
 * lowest first, equal orders in the order they were added; an observer is
 * only called for the activities in its mask. A non-repeating observer is
 * called once (for the first of its activities that happens), is then
 * invalid and no longer in the mode.
 */
#include "harness.h"

static void timer_cb(RLRunLoopTimerRef t, void *info) { TRACE("timer fired"); }

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLOptionFlags ee = kRLRunLoopEntry | kRLRunLoopExit;
    RLRunLoopObserverRef o[5];
    o[0] = new_observer(ee, 1, 5, trace_activity_cb, "first-added order 5");
    o[1] = new_observer(ee, 1, 0, trace_activity_cb, "second-added order 0");
    o[2] = new_observer(ee, 1, 5, trace_activity_cb, "third-added order 5");
    o[3] = new_observer(ee, 1, 0, trace_activity_cb, "fourth-added order 0");
    o[4] = new_observer(ee, 1, -3, trace_activity_cb, "fifth-added order -3");
    for (int i = 0; i < 5; i++) RLRunLoopAddObserver(rl, o[i], kRLRunLoopDefaultMode);

    RLRunLoopObserverRef once = new_observer(kRLRunLoopBeforeWaiting | kRLRunLoopAfterWaiting, 0, 0,
                                             trace_activity_cb, "one-shot");
    RLRunLoopAddObserver(rl, once, kRLRunLoopDefaultMode);
    TRACE("one-shot repeats: %s", yes_no(RLRunLoopObserverDoesRepeat(once)));

    RLRunLoopTimerRef t = new_timer(now() + 0.02, 100, timer_cb, NULL);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    TRACE("run 50 ms (timer fires once)");
    TRACE("result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 0)));
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    TRACE("one-shot valid: %s", yes_no(RLRunLoopObserverIsValid(once)));
    TRACE("one-shot in default mode: %s", yes_no(RLRunLoopContainsObserver(rl, once, kRLRunLoopDefaultMode)));
    RLRelease(once);

    for (int i = 0; i < 5; i++) {
        RLRunLoopObserverInvalidate(o[i]);
        RLRelease(o[i]);
    }
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("observer_order") | harness_failures;
}
