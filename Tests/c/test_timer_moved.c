/*
 * test_timer_moved — timers due together fire in one pass, and each is
 * checked again when its turn comes (CF's __CFRunLoopDoTimer).  A: an
 * earlier callout of the pass moves a due one-shot timer 50 ms ahead: it
 * does not fire now, stays valid and in its mode, and fires once at its
 * new date.  B: the same for a repeating timer: it fires once, at the new
 * date, then keeps its interval from there.  C: a due timer moved to
 * another past date still fires in its turn.  Only order and booleans are
 * traced.
 */
#include "harness.h"

static RLRunLoopTimerRef g_moved, g_repeating, g_past;
static int g_repeating_fires;

static void first_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("A: first fired: moves the second 50 ms ahead");
    RLRunLoopTimerSetNextFireDate(g_moved, now() + 0.05);
}
static void moved_cb(RLRunLoopTimerRef t, void *info) { TRACE("A: second fired"); }
static void third_cb(RLRunLoopTimerRef t, void *info) { TRACE("A: third fired"); }

static void mover_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("B: mover fired: moves the repeating timer 50 ms ahead");
    RLRunLoopTimerSetNextFireDate(g_repeating, now() + 0.05);
}
static void repeating_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("B: repeating timer fired (%d)", ++g_repeating_fires);
}

static void past_mover_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("C: first fired: moves the second to another past date");
    RLRunLoopTimerSetNextFireDate(g_past, now() - 1.0);
}
static void past_cb(RLRunLoopTimerRef t, void *info) { TRACE("C: second fired"); }
static void last_cb(RLRunLoopTimerRef t, void *info) { TRACE("C: third fired"); }

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopMode mode = kRLRunLoopDefaultMode;
    /* Keeps the mode from being empty once the timers are gone. */
    RLRunLoopTimerRef keep = new_timer(now() + 1000, 0, third_cb, NULL);
    RLRunLoopAddTimer(rl, keep, mode);

    RLRunLoopTimerRef first = new_timer(now() - 0.3, 0, first_cb, NULL);
    g_moved = new_timer(now() - 0.2, 0, moved_cb, NULL);
    RLRunLoopTimerRef third = new_timer(now() - 0.1, 0, third_cb, NULL);
    RLRunLoopAddTimer(rl, first, mode);
    RLRunLoopAddTimer(rl, g_moved, mode);
    RLRunLoopAddTimer(rl, third, mode);
    TRACE("A: run 0 s: %s", result_name(RLRunLoopRunInMode(mode, 0, 0)));
    TRACE("A: second valid: %s, in mode: %s", yes_no(RLRunLoopTimerIsValid(g_moved)),
          yes_no(RLRunLoopContainsTimer(rl, g_moved, mode)));
    TRACE("A: run 150 ms: %s", result_name(RLRunLoopRunInMode(mode, 0.15, 0)));
    TRACE("A: second valid: %s, in mode: %s", yes_no(RLRunLoopTimerIsValid(g_moved)),
          yes_no(RLRunLoopContainsTimer(rl, g_moved, mode)));

    RLRunLoopTimerRef mover = new_timer(now() - 0.3, 0, mover_cb, NULL);
    g_repeating = new_timer(now() - 0.2, 10.0, repeating_cb, NULL);
    RLRunLoopAddTimer(rl, mover, mode);
    RLRunLoopAddTimer(rl, g_repeating, mode);
    TRACE("B: run 0 s: %s", result_name(RLRunLoopRunInMode(mode, 0, 0)));
    TRACE("B: repeating fires so far: %d", g_repeating_fires);
    TRACE("B: run 150 ms: %s", result_name(RLRunLoopRunInMode(mode, 0.15, 0)));
    RLAbsoluteTime ahead = RLRunLoopTimerGetNextFireDate(g_repeating) - now();
    TRACE("B: repeating fires: %d, next fire date 9-11 s ahead: %s", g_repeating_fires,
          yes_no(ahead > 9.0 && ahead < 11.0));
    RLRunLoopTimerInvalidate(g_repeating);

    RLRunLoopTimerRef past_mover = new_timer(now() - 0.3, 0, past_mover_cb, NULL);
    g_past = new_timer(now() - 0.2, 0, past_cb, NULL);
    RLRunLoopTimerRef last = new_timer(now() - 0.1, 0, last_cb, NULL);
    RLRunLoopAddTimer(rl, past_mover, mode);
    RLRunLoopAddTimer(rl, g_past, mode);
    RLRunLoopAddTimer(rl, last, mode);
    TRACE("C: run 0 s: %s", result_name(RLRunLoopRunInMode(mode, 0, 0)));
    TRACE("C: second valid: %s", yes_no(RLRunLoopTimerIsValid(g_past)));

    RLRunLoopTimerInvalidate(keep);
    RLRunLoopTimerRef all[] = { keep, first, g_moved, third, mover, g_repeating, past_mover, g_past, last };
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) RLRelease(all[i]);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("timer_moved") | harness_failures;
}
