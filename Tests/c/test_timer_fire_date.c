/*
 * test_timer_fire_date — moving a timer's fire date:
 *   A. SetNextFireDate earlier: a timer due in 100 s fires within the run
 *      after being moved to +30 ms (the one-shot fires, mode empties ->
 *      Finished, which only happens if it fired before the 1 s timeout);
 *   B. SetNextFireDate later: a timer due in 30 ms moved to +300 ms does
 *      not fire during a 100 ms run, and fires in the next run, not before
 *      the new date;
 *   C. from inside its own callout: a repeating timer (interval 100 s)
 *      moved to +30 ms fires again then; a date earlier than the one being
 *      fired set in the callout is ignored (the usual reschedule applies);
 *      a one-shot timer that moves itself in its callout is still
 *      invalidated after the callout;
 *   D. GetNextTimerFireDate(rl, mode) is the earliest fire date of the
 *      mode's timers, 0 for a mode without timers.
 */
#include "harness.h"

static int near(RLAbsoluteTime a, RLAbsoluteTime b) { return h_fabs(a - b) < 0.001; }

static void timer_cb(RLRunLoopTimerRef t, void *info) { TRACE("timer %s fired", (const char *)info); }

static int g_c_fires;
static RLAbsoluteTime g_c_set;
static void c_timer_cb(RLRunLoopTimerRef t, void *info)
{
    g_c_fires++;
    TRACE("timer c firing %d", g_c_fires);
    if (g_c_fires == 1) {
        g_c_set = now() + 0.03;
        RLRunLoopTimerSetNextFireDate(t, g_c_set);
        TRACE("c: set next fire date +30 ms; read back equal: %s",
              yes_no(near(RLRunLoopTimerGetNextFireDate(t), g_c_set)));
    } else if (g_c_fires == 2) {
        TRACE("c: fired not before the date set: %s", yes_no(now() >= g_c_set - 0.001));
        g_c_set = RLRunLoopTimerGetNextFireDate(t) - 1.0;
        RLRunLoopTimerSetNextFireDate(t, g_c_set);
        TRACE("c: set next fire date 1 s in the past; stop");
        RLRunLoopStop(RLRunLoopGetCurrent());
    } else {
        TRACE("c: invalidates itself");
        RLRunLoopTimerInvalidate(t);
    }
}

static void oneshot_moves_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("one-shot d fired; moves itself to +30 ms");
    RLRunLoopTimerSetNextFireDate(t, now() + 0.03);
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();

    TRACE("A: move a timer earlier");
    RLRunLoopTimerRef a = new_timer(now() + 100, 0, timer_cb, "a");
    RLRunLoopAddTimer(rl, a, kRLRunLoopDefaultMode);
    RLRunLoopTimerSetNextFireDate(a, now() + 0.03);
    TRACE("A: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 0)));
    TRACE("A: valid after firing: %s", yes_no(RLRunLoopTimerIsValid(a)));
    TRACE("A: still in default mode: %s", yes_no(RLRunLoopContainsTimer(rl, a, kRLRunLoopDefaultMode)));
    RLRelease(a);

    TRACE("B: move a timer later");
    RLRunLoopTimerRef b = new_timer(now() + 0.03, 0, timer_cb, "b");
    RLRunLoopAddTimer(rl, b, kRLRunLoopDefaultMode);
    RLAbsoluteTime set = now() + 0.3;
    RLRunLoopTimerSetNextFireDate(b, set);
    TRACE("B: run 100 ms: %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.1, 0)));
    TRACE("B: run 1 s: %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 0)));
    CHECK(now() >= set - 0.001);
    RLRelease(b);

    TRACE("C: a repeating timer moves itself");
    RLRunLoopTimerRef c = new_timer(now() + 0.02, 100, c_timer_cb, NULL);
    RLRunLoopAddTimer(rl, c, kRLRunLoopDefaultMode);
    TRACE("C: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 0)));
    TRACE("C: next fire date reads back the past date set: %s",
          yes_no(near(RLRunLoopTimerGetNextFireDate(c), g_c_set)));
    TRACE("C: run again 1 s (a past date means: fire now)");
    TRACE("C: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 0)));
    RLRunLoopTimerInvalidate(c);
    RLRelease(c);

    TRACE("C: a one-shot timer moves itself");
    RLRunLoopTimerRef d = new_timer(now() + 0.02, 0, oneshot_moves_cb, NULL);
    RLRunLoopAddTimer(rl, d, kRLRunLoopDefaultMode);
    TRACE("C: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.2, 0)));
    TRACE("C: one-shot valid after its callout: %s", yes_no(RLRunLoopTimerIsValid(d)));
    RLRelease(d);

    TRACE("D: GetNextTimerFireDate");
    RLAbsoluteTime base = now();
    RLRunLoopTimerRef e = new_timer(base + 50, 0, timer_cb, "e");
    RLRunLoopTimerRef f = new_timer(base + 30, 0, timer_cb, "f");
    RLRunLoopAddTimer(rl, e, MODE("m"));
    RLRunLoopAddTimer(rl, f, MODE("m"));
    TRACE("D: mode m: earliest (+30 s): %s", yes_no(near(RLRunLoopGetNextTimerFireDate(rl, MODE("m")), base + 30)));
    RLRunLoopTimerInvalidate(f);
    TRACE("D: after invalidating it: next (+50 s): %s", yes_no(near(RLRunLoopGetNextTimerFireDate(rl, MODE("m")), base + 50)));
    RLRunLoopTimerSetNextFireDate(e, base + 10);
    TRACE("D: after moving it to +10 s: %s", yes_no(near(RLRunLoopGetNextTimerFireDate(rl, MODE("m")), base + 10)));
    TRACE("D: default mode without timers: %s", yes_no(RLRunLoopGetNextTimerFireDate(rl, kRLRunLoopDefaultMode) == 0));
    RLRunLoopTimerInvalidate(e);
    TRACE("D: mode m without valid timers: %s", yes_no(RLRunLoopGetNextTimerFireDate(rl, MODE("m")) == 0));
    RLRelease(e);
    RLRelease(f);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("timer_fire_date") | harness_failures;
}
