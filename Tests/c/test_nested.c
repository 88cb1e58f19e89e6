/*
 * test_nested — a callout may run the loop again (nested run):
 *   A. a default-mode timer callout runs the loop in mode "inner";
 *      CopyCurrentMode is (null) outside any run, the outer mode in the
 *      outer callout, "inner" inside the nested run, and the outer mode
 *      again after the nested run returns; only "inner" items fire in the
 *      nested run; Stop from the nested run stops only the nested run and
 *      the outer run goes on (and finishes when its last timer fired).
 *   B. an observer whose callout runs a nested run in the same mode is not
 *      called again by that nested run (it is still firing); other
 *      observers are.
 */
#include "harness.h"

static RLRunLoopTimerRef g_inner_timer;

static void inner_timer_cb(RLRunLoopTimerRef t, void *info)
{
    trace_current_mode("inner timer", RLRunLoopGetCurrent());
    TRACE("inner timer: stop");
    RLRunLoopStop(RLRunLoopGetCurrent());
}

static void outer_timer_cb(RLRunLoopTimerRef t, void *info)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    trace_current_mode("outer timer", rl);
    g_inner_timer = new_timer(now() + 0.02, 100, inner_timer_cb, NULL);
    RLRunLoopAddTimer(rl, g_inner_timer, MODE("inner"));
    TRACE("outer timer: nested run in inner");
    RLRunLoopRunResult r = RLRunLoopRunInMode(MODE("inner"), 5.0, 0);
    TRACE("outer timer: nested result %s", result_name(r));
    trace_current_mode("outer timer after nested run", rl);
}

static void late_timer_cb(RLRunLoopTimerRef t, void *info)
{
    trace_current_mode("late outer timer", RLRunLoopGetCurrent());
}

static int g_runner_nested;
static void runner_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    TRACE("runner %s", activity_name(a));
    if (a == kRLRunLoopBeforeWaiting && !g_runner_nested) {
        g_runner_nested = 1;
        TRACE("runner: nested run in default mode, 0 s");
        RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
        TRACE("runner: nested result %s", result_name(r));
    }
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef outer_obs = activity_logger(kRLRunLoopEntry | kRLRunLoopExit, "outer-mode obs");
    RLRunLoopObserverRef inner_obs = activity_logger(kRLRunLoopEntry | kRLRunLoopExit, "inner-mode obs");
    RLRunLoopAddObserver(rl, outer_obs, kRLRunLoopDefaultMode);
    RLRunLoopAddObserver(rl, inner_obs, MODE("inner"));

    TRACE("A: nested run in another mode");
    trace_current_mode("before run", rl);
    RLRunLoopTimerRef outer = new_timer(now() + 0.02, 0, outer_timer_cb, NULL);
    RLRunLoopTimerRef late = new_timer(now() + 0.2, 0, late_timer_cb, NULL);
    RLRunLoopAddTimer(rl, outer, kRLRunLoopDefaultMode);
    RLRunLoopAddTimer(rl, late, kRLRunLoopDefaultMode);
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 0);
    TRACE("A: outer result %s", result_name(r));
    trace_current_mode("after run", rl);
    RLRelease(outer);
    RLRelease(late);
    RLRunLoopTimerInvalidate(g_inner_timer);
    RLRelease(g_inner_timer);
    RLRunLoopObserverInvalidate(outer_obs);
    RLRelease(outer_obs);

    TRACE("B: observer runs a nested run in the same mode");
    RLRunLoopObserverRef runner = new_observer(kRLRunLoopAllActivities, 1, 0, runner_cb, NULL);
    RLRunLoopObserverRef logger = activity_logger(kRLRunLoopAllActivities, "logger");
    RLRunLoopAddObserver(rl, runner, kRLRunLoopDefaultMode);
    RLRunLoopAddObserver(rl, logger, kRLRunLoopDefaultMode);
    RLRunLoopTimerRef keep = new_timer(now() + 100, 0, late_timer_cb, NULL);
    RLRunLoopAddTimer(rl, keep, kRLRunLoopDefaultMode);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 0);
    TRACE("B: outer result %s", result_name(r));

    RLRunLoopTimerInvalidate(keep);
    RLRelease(keep);
    RLRunLoopObserverInvalidate(runner);
    RLRelease(runner);
    RLRunLoopObserverInvalidate(logger);
    RLRelease(logger);
    RLRunLoopObserverInvalidate(inner_obs);
    RLRelease(inner_obs);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("nested") | harness_failures;
}
