/*
 * test_observer_activities — an AllActivities observer sees, for one run:
 * Entry; each pass BeforeTimers, BeforeSources, BeforeWaiting, (sleep),
 * AfterWaiting, then the due timer fires; Exit last.
 *   A. a one-shot timer fires once, then the mode is empty -> Finished.
 *   B. a repeating timer (long interval) fires once, the run times out
 *      -> the second wake-up (the timeout) is AfterWaiting then Exit.
 */
#include "harness.h"

static void timer_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("timer fired (%s)", (const char *)info);
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef obs = activity_logger(kRLRunLoopAllActivities, "obs");
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);

    TRACE("A: one-shot timer in 50 ms, run 1 s");
    RLRunLoopTimerRef t1 = new_timer(now() + 0.05, 0, timer_cb, "one-shot");
    RLRunLoopAddTimer(rl, t1, kRLRunLoopDefaultMode);
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 0);
    TRACE("A: result %s", result_name(r));
    TRACE("A: one-shot timer valid after firing: %s", yes_no(RLRunLoopTimerIsValid(t1)));
    RLRelease(t1);

    TRACE("B: repeating timer (interval 100 s) first in 50 ms, run 200 ms");
    RLRunLoopTimerRef t2 = new_timer(now() + 0.05, 100.0, timer_cb, "repeating");
    RLRunLoopAddTimer(rl, t2, kRLRunLoopDefaultMode);
    RLAbsoluteTime start = now();
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.2, 0);
    TRACE("B: result %s", result_name(r));
    CHECK(now() - start >= 0.2 - 0.001);
    RLRunLoopTimerInvalidate(t2);
    RLRelease(t2);

    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("observer_activities") | harness_failures;
}
