/*
 * test_all_modes — which calls create a mode (CopyAllModes, names sorted):
 * a new loop has the default mode; AddCommonMode, RunInMode, Contains*,
 * Remove* and GetNextTimerFireDate with a new name do not create a mode;
 * AddSource, AddTimer, AddObserver and PerformBlock do; adding an item to
 * the common modes creates each mode marked common that did not exist yet.
 */
#include "harness.h"

static void timer_cb(RLRunLoopTimerRef t, void *info) {}
static void perform_cb(void *info) {}
static void obs_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) {}
static void block_fn(void *info) {}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceRef s = new_source(0, NULL, perform_cb);
    RLRunLoopTimerRef t = new_timer(now() + 100, 100, timer_cb, NULL);
    RLRunLoopObserverRef o = new_observer(kRLRunLoopAllActivities, 1, 0, obs_cb, NULL);

    trace_all_modes("new loop", rl);
    RLRunLoopAddCommonMode(rl, MODE("common-marked"));
    trace_all_modes("after AddCommonMode(common-marked)", rl);
    RLRunLoopRunInMode(MODE("run-only"), 0, 0);
    trace_all_modes("after RunInMode(run-only)", rl);
    RLRunLoopContainsSource(rl, s, MODE("contains-s"));
    RLRunLoopContainsTimer(rl, t, MODE("contains-t"));
    RLRunLoopContainsObserver(rl, o, MODE("contains-o"));
    trace_all_modes("after Contains*", rl);
    RLRunLoopRemoveSource(rl, s, MODE("remove-s"));
    RLRunLoopRemoveTimer(rl, t, MODE("remove-t"));
    RLRunLoopRemoveObserver(rl, o, MODE("remove-o"));
    trace_all_modes("after Remove*", rl);
    RLAbsoluteTime d = RLRunLoopGetNextTimerFireDate(rl, MODE("next-fire"));
    TRACE("GetNextTimerFireDate of an unknown mode is 0: %s", yes_no(d == 0));
    trace_all_modes("after GetNextTimerFireDate", rl);

    RLRunLoopAddSource(rl, s, MODE("add-s"));
    trace_all_modes("after AddSource(add-s)", rl);
    RLRunLoopAddTimer(rl, t, MODE("add-t"));
    trace_all_modes("after AddTimer(add-t)", rl);
    RLRunLoopAddObserver(rl, o, MODE("add-o"));
    trace_all_modes("after AddObserver(add-o)", rl);
    perform_fn(rl, MODE("perform"), block_fn, NULL);
    trace_all_modes("after perform(perform)", rl);
    RLRunLoopAddSource(rl, s, kRLRunLoopCommonModes);
    trace_all_modes("after AddSource(common modes)", rl);

    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    RLRunLoopObserverInvalidate(o);
    RLRelease(o);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("all_modes") | harness_failures;
}
