/*
 * test_add_twice — adding an item to a mode it is already in does nothing:
 *   - a source added twice is scheduled once (and adding it to the common
 *     modes, which include the default mode, schedules nothing more);
 *     removing it twice cancels once;
 *   - an observer added twice is called once per activity;
 *   - a timer added twice fires once.
 */
#include "harness.h"

static void schedule_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode)
{
    TRACE("schedule in %s", mode_name(mode));
}
static void cancel_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode)
{
    TRACE("cancel in %s", mode_name(mode));
}
static void perform_cb(void *info) { TRACE("perform"); }
static void timer_cb(RLRunLoopTimerRef t, void *info) { TRACE("timer fired"); }

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.schedule = schedule_cb;
    ctx.cancel = cancel_cb;
    ctx.perform = perform_cb;
    RLRunLoopSourceRef s = RLRunLoopSourceCreate(NULL, 0, &ctx);

    TRACE("add source to default twice");
    RLRunLoopAddSource(rl, s, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, s, kRLRunLoopDefaultMode);
    TRACE("add source to common modes (default is the only common mode)");
    RLRunLoopAddSource(rl, s, kRLRunLoopCommonModes);
    RLRunLoopAddSource(rl, s, kRLRunLoopCommonModes);

    TRACE("add observer twice, timer twice; run");
    RLRunLoopObserverRef o = activity_logger(kRLRunLoopEntry | kRLRunLoopBeforeWaiting | kRLRunLoopExit, "obs");
    RLRunLoopAddObserver(rl, o, kRLRunLoopDefaultMode);
    RLRunLoopAddObserver(rl, o, kRLRunLoopDefaultMode);
    /* late enough for the first pass to end before it (under valgrind on a
     * loaded machine, 0.15 s was not: times x4 there, same trace) */
    double scale = getenv("RL_UNDER_VALGRIND") ? 4.0 : 1.0;
    RLRunLoopTimerRef t = new_timer(now() + 0.15 * scale, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(s);
    RLRunLoopSourceSignal(s);
    TRACE("result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.3 * scale, 0)));

    TRACE("remove source from common modes, then from default twice");
    RLRunLoopRemoveSource(rl, s, kRLRunLoopCommonModes);
    RLRunLoopRemoveSource(rl, s, kRLRunLoopDefaultMode);
    RLRunLoopRemoveSource(rl, s, kRLRunLoopDefaultMode);
    TRACE("source in default: %s", yes_no(RLRunLoopContainsSource(rl, s, kRLRunLoopDefaultMode)));
    TRACE("invalidate source");
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    RLRelease(t);
    RLRunLoopObserverInvalidate(o);
    RLRelease(o);
    TRACE("done");
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("add_twice") | harness_failures;
}
