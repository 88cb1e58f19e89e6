/*
 * test_shared_mode_switch — the classic CF "timer stops while scrolling"
 * pattern, shared with the Swift driver (Tests/RunLoopKitTests, same trace
 * Tests/traces/shared_mode_switch.trace):
 *   - a timer in the default mode only fires while the loop runs the
 *     default mode, not while it runs "tracking";
 *   - a timer added to the common modes fires in both once "tracking" is
 *     marked common (it joins "tracking" although it was added before);
 *   - two timers due in one pass fire in fire-date order.
 */
#include "harness.h"

static void timer_cb(RLRunLoopTimerRef t, void *info)
{
    RLRunLoopMode m = RLRunLoopCopyCurrentMode(RLRunLoopGetCurrent());
    TRACE("timer %s fired in %s", (const char *)info, mode_name(m));
    if (m) RLRelease(m);
}

static void perform_cb(void *info) {}

static void rearm(RLRunLoopTimerRef plain, RLRunLoopTimerRef common)
{
    RLAbsoluteTime at = now() + 0.02;
    RLRunLoopTimerSetNextFireDate(plain, at);
    RLRunLoopTimerSetNextFireDate(common, at + 0.005);
}

static void run(RLRunLoopMode mode)
{
    RLRunLoopRunResult r = RLRunLoopRunInMode(mode, 0.1, 0);
    TRACE("run %s: %s", mode_name(mode), result_name(r));
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    /* a source in both modes so that no run finishes early */
    RLRunLoopSourceRef keep = new_source(0, NULL, perform_cb);
    RLRunLoopAddSource(rl, keep, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, keep, MODE("tracking"));

    RLRunLoopTimerRef plain = new_timer(now() + 100, 100, timer_cb, "default-only");
    RLRunLoopTimerRef common = new_timer(now() + 100, 100, timer_cb, "common");
    RLRunLoopAddTimer(rl, plain, kRLRunLoopDefaultMode);
    RLRunLoopAddTimer(rl, common, kRLRunLoopCommonModes);

    TRACE("tracking is not common yet");
    rearm(plain, common);
    run(kRLRunLoopDefaultMode);
    rearm(plain, common);
    run(MODE("tracking"));

    TRACE("mark tracking common");
    RLRunLoopAddCommonMode(rl, MODE("tracking"));
    TRACE("default-only in tracking: %s", yes_no(RLRunLoopContainsTimer(rl, plain, MODE("tracking"))));
    TRACE("common in tracking: %s", yes_no(RLRunLoopContainsTimer(rl, common, MODE("tracking"))));
    rearm(plain, common);
    run(MODE("tracking"));
    rearm(plain, common);
    run(kRLRunLoopDefaultMode);

    TRACE("remove common from the common modes");
    RLRunLoopRemoveTimer(rl, common, kRLRunLoopCommonModes);
    TRACE("common in tracking: %s", yes_no(RLRunLoopContainsTimer(rl, common, MODE("tracking"))));
    TRACE("common valid: %s", yes_no(RLRunLoopTimerIsValid(common)));
    rearm(plain, common);
    run(MODE("tracking"));

    RLRunLoopTimerInvalidate(plain);
    RLRelease(plain);
    RLRunLoopTimerInvalidate(common);
    RLRelease(common);
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("shared_mode_switch") | harness_failures;
}
