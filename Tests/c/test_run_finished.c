/*
 * test_run_finished — RunInMode returns Finished at once, without Entry or
 * Exit notifications, when the run mode has no sources and no timers:
 * a mode whose only source was removed, a mode with observers only, a mode
 * name never used before, and kRLRunLoopCommonModes itself as the run mode
 * (even though the default mode, which is common, has a timer).
 * A run whose mode becomes empty during the run (its one-shot timer fired)
 * also ends with Finished, after the Exit notification.
 */
#include "harness.h"

static void timer_cb(RLRunLoopTimerRef t, void *info) { TRACE("timer fired"); }
static void perform_cb(void *info) { TRACE("perform"); }

static void run(const char *label, RLRunLoopMode mode, double seconds)
{
    TRACE("%s: run %s", label, mode_name(mode));
    RLRunLoopRunResult r = RLRunLoopRunInMode(mode, seconds, 0);
    TRACE("%s: result %s", label, result_name(r));
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef obs = activity_logger(kRLRunLoopAllActivities, "obs");

    /* a mode whose only source was removed again (observer watching) */
    RLRunLoopSourceRef src = new_source(0, NULL, perform_cb);
    RLRunLoopAddSource(rl, src, MODE("emptied"));
    RLRunLoopAddObserver(rl, obs, MODE("emptied"));
    RLRunLoopRemoveSource(rl, src, MODE("emptied"));
    run("emptied mode", MODE("emptied"), 1.0);

    /* a mode that only ever had an observer */
    RLRunLoopAddObserver(rl, obs, MODE("observers-only"));
    run("observers-only mode", MODE("observers-only"), 1.0);

    /* a mode name never used */
    run("never-used mode", MODE("never-used"), 1.0);

    /* a mode whose timer was invalidated */
    RLRunLoopTimerRef dead = new_timer(now() + 100, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, dead, MODE("dead-timer"));
    RLRunLoopAddObserver(rl, obs, MODE("dead-timer"));
    RLRunLoopTimerInvalidate(dead);
    RLRelease(dead);
    run("invalidated-timer mode", MODE("dead-timer"), 1.0);

    /* kRLRunLoopCommonModes as the run mode, default mode busy */
    RLRunLoopTimerRef t = new_timer(now() + 100, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, t, kRLRunLoopCommonModes);
    RLRunLoopAddObserver(rl, obs, kRLRunLoopCommonModes);
    run("common modes as run mode", kRLRunLoopCommonModes, 1.0);

    /* a mode that becomes empty during the run */
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    RLRunLoopTimerRef soon = new_timer(now() + 0.02, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, soon, kRLRunLoopDefaultMode);
    run("default mode, one-shot timer only", kRLRunLoopDefaultMode, 1.0);
    RLRelease(soon);

    /* and, now empty, the default mode again */
    run("default mode after that", kRLRunLoopDefaultMode, 1.0);
    trace_current_mode("after runs", rl);

    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
    RLRelease(src);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("run_finished") | harness_failures;
}
