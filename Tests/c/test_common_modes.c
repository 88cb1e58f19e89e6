/*
 * test_common_modes — items added to kRLRunLoopCommonModes live in every
 * mode marked common:
 *   - a timer added to the common modes fires in the default mode (common
 *     from the start);
 *   - a mode marked common later with AddCommonMode gets the common items
 *     that were added BEFORE (the timer fires when running that mode), and
 *     the ones added after;
 *   - a mode that is not common gets none of them;
 *   - Contains*(kRLRunLoopCommonModes) tells whether the item is a common
 *     mode item;
 *   - removing an item from kRLRunLoopCommonModes also removes it from a
 *     common mode it had been added to by name, when it is also a common
 *     mode item; an item that was only added by name is not touched by a
 *     removal from kRLRunLoopCommonModes (CF checks the common mode items
 *     only); removing a common item from one common mode by name leaves it
 *     in the others and in the common mode items.
 */
#include "harness.h"

static void timer_cb(RLRunLoopTimerRef t, void *info)
{
    RLRunLoopMode m = RLRunLoopCopyCurrentMode(RLRunLoopGetCurrent());
    TRACE("timer %s fired in %s", (const char *)info, mode_name(m));
    if (m) RLRelease(m);
}
static void perform_cb(void *info) { TRACE("perform"); }

static void run(RLRunLoopMode mode)
{
    RLRunLoopRunResult r = RLRunLoopRunInMode(mode, 0.1, 0);
    TRACE("run %s: %s", mode_name(mode), result_name(r));
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    /* keep-alive sources so no run finishes early */
    RLRunLoopSourceRef keep = new_source(0, NULL, perform_cb);
    RLRunLoopAddSource(rl, keep, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, keep, MODE("tracking"));
    RLRunLoopAddSource(rl, keep, MODE("other"));

    RLRunLoopTimerRef early = new_timer(now() + 0.02, 100, timer_cb, "early");
    RLRunLoopAddTimer(rl, early, kRLRunLoopCommonModes);
    TRACE("early in common items: %s", yes_no(RLRunLoopContainsTimer(rl, early, kRLRunLoopCommonModes)));
    TRACE("early in default: %s", yes_no(RLRunLoopContainsTimer(rl, early, kRLRunLoopDefaultMode)));
    TRACE("early in tracking (not yet common): %s", yes_no(RLRunLoopContainsTimer(rl, early, MODE("tracking"))));
    run(kRLRunLoopDefaultMode);
    RLRunLoopTimerSetNextFireDate(early, now() + 0.02);
    run(MODE("tracking"));

    TRACE("AddCommonMode tracking");
    RLRunLoopAddCommonMode(rl, MODE("tracking"));
    RLRunLoopAddCommonMode(rl, MODE("tracking"));
    TRACE("early in tracking: %s", yes_no(RLRunLoopContainsTimer(rl, early, MODE("tracking"))));
    run(MODE("tracking"));

    RLRunLoopTimerRef late = new_timer(now() + 0.02, 100, timer_cb, "late");
    RLRunLoopAddTimer(rl, late, kRLRunLoopCommonModes);
    RLRunLoopTimerSetNextFireDate(early, now() + 0.04);
    TRACE("late in tracking: %s", yes_no(RLRunLoopContainsTimer(rl, late, MODE("tracking"))));
    TRACE("late in other: %s", yes_no(RLRunLoopContainsTimer(rl, late, MODE("other"))));
    run(MODE("tracking"));
    RLRunLoopTimerSetNextFireDate(early, now() + 0.02);
    RLRunLoopTimerSetNextFireDate(late, now() + 0.02);
    run(MODE("other"));

    TRACE("remove late from tracking by name");
    RLRunLoopRemoveTimer(rl, late, MODE("tracking"));
    TRACE("late in tracking: %s", yes_no(RLRunLoopContainsTimer(rl, late, MODE("tracking"))));
    TRACE("late in default: %s", yes_no(RLRunLoopContainsTimer(rl, late, kRLRunLoopDefaultMode)));
    TRACE("late in common items: %s", yes_no(RLRunLoopContainsTimer(rl, late, kRLRunLoopCommonModes)));

    TRACE("source added to tracking by name, then removed from common modes");
    RLRunLoopSourceRef s = new_source(0, NULL, perform_cb);
    RLRunLoopAddSource(rl, s, MODE("tracking"));
    TRACE("s in common items: %s", yes_no(RLRunLoopContainsSource(rl, s, kRLRunLoopCommonModes)));
    RLRunLoopRemoveSource(rl, s, kRLRunLoopCommonModes);
    TRACE("s in tracking: %s", yes_no(RLRunLoopContainsSource(rl, s, MODE("tracking"))));

    TRACE("source added to tracking by name and to common modes, then removed from common modes");
    RLRunLoopSourceRef s2 = new_source(0, NULL, perform_cb);
    RLRunLoopAddSource(rl, s2, MODE("tracking"));
    RLRunLoopAddSource(rl, s2, kRLRunLoopCommonModes);
    RLRunLoopRemoveSource(rl, s2, kRLRunLoopCommonModes);
    TRACE("s2 in tracking: %s", yes_no(RLRunLoopContainsSource(rl, s2, MODE("tracking"))));
    TRACE("s2 in default: %s", yes_no(RLRunLoopContainsSource(rl, s2, kRLRunLoopDefaultMode)));
    RLRelease(s2);

    TRACE("observer added to other by name, then removed from common modes");
    RLRunLoopObserverRef o = activity_logger(kRLRunLoopEntry, "o");
    RLRunLoopAddObserver(rl, o, MODE("other"));
    RLRunLoopRemoveObserver(rl, o, kRLRunLoopCommonModes);
    TRACE("o in other (not common): %s", yes_no(RLRunLoopContainsObserver(rl, o, MODE("other"))));
    RLRunLoopAddObserver(rl, o, MODE("tracking"));
    RLRunLoopRemoveObserver(rl, o, kRLRunLoopCommonModes);
    TRACE("o in tracking: %s", yes_no(RLRunLoopContainsObserver(rl, o, MODE("tracking"))));

    TRACE("timer added to default by name, then removed from common modes");
    RLRunLoopTimerRef t = new_timer(now() + 100, 0, timer_cb, "t");
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    RLRunLoopRemoveTimer(rl, t, kRLRunLoopCommonModes);
    TRACE("t in default: %s", yes_no(RLRunLoopContainsTimer(rl, t, kRLRunLoopDefaultMode)));

    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    RLRunLoopObserverInvalidate(o);
    RLRelease(o);
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    RLRunLoopTimerInvalidate(early);
    RLRelease(early);
    RLRunLoopTimerInvalidate(late);
    RLRelease(late);
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("common_modes") | harness_failures;
}
