/*
 * test_timer_removed — a due timer that an earlier callout of the same
 * pass takes out of the loop does not fire (CF's __CFRunLoopDoTimer checks
 * that the timer is still the loop's): it stays valid and fires once added
 * again (A).  One taken out and added back before its turn fires in its
 * turn (B).  A repeating timer that takes itself out in its callout still
 * moves on to its next fire date, which a later add keeps (C).
 */
#include "harness.h"

static RLRunLoopTimerRef g_removed, g_readded;
static int g_self_fires;

static void remover_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("A: first fired: removes the second");
    RLRunLoopRemoveTimer(RLRunLoopGetCurrent(), g_removed, kRLRunLoopDefaultMode);
}
static void removed_cb(RLRunLoopTimerRef t, void *info) { TRACE("A: second fired"); }

static void readder_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("B: first fired: removes the second and adds it back");
    RLRunLoopRemoveTimer(RLRunLoopGetCurrent(), g_readded, kRLRunLoopDefaultMode);
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), g_readded, kRLRunLoopDefaultMode);
}
static void readded_cb(RLRunLoopTimerRef t, void *info) { TRACE("B: second fired"); }

static void self_remover_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("C: repeating timer fired (%d): removes itself", ++g_self_fires);
    RLRunLoopRemoveTimer(RLRunLoopGetCurrent(), t, kRLRunLoopDefaultMode);
}

static void keep_cb(RLRunLoopTimerRef t, void *info) {}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopMode mode = kRLRunLoopDefaultMode;
    /* Keeps the mode from being empty once the timers are gone. */
    RLRunLoopTimerRef keep = new_timer(now() + 1000, 0, keep_cb, NULL);
    RLRunLoopAddTimer(rl, keep, mode);

    RLRunLoopTimerRef remover = new_timer(now() - 0.2, 0, remover_cb, NULL);
    g_removed = new_timer(now() - 0.1, 0, removed_cb, NULL);
    RLRunLoopAddTimer(rl, remover, mode);
    RLRunLoopAddTimer(rl, g_removed, mode);
    TRACE("A: run 0 s: %s", result_name(RLRunLoopRunInMode(mode, 0, 0)));
    TRACE("A: second valid: %s, in mode: %s", yes_no(RLRunLoopTimerIsValid(g_removed)),
          yes_no(RLRunLoopContainsTimer(rl, g_removed, mode)));
    RLRunLoopAddTimer(rl, g_removed, mode);
    TRACE("A: added again; run 0 s: %s", result_name(RLRunLoopRunInMode(mode, 0, 0)));
    TRACE("A: second valid: %s", yes_no(RLRunLoopTimerIsValid(g_removed)));

    RLRunLoopTimerRef readder = new_timer(now() - 0.2, 0, readder_cb, NULL);
    g_readded = new_timer(now() - 0.1, 0, readded_cb, NULL);
    RLRunLoopAddTimer(rl, readder, mode);
    RLRunLoopAddTimer(rl, g_readded, mode);
    TRACE("B: run 0 s: %s", result_name(RLRunLoopRunInMode(mode, 0, 0)));
    TRACE("B: second valid: %s", yes_no(RLRunLoopTimerIsValid(g_readded)));

    /* Every 50 ms from 120 ms ago: its next slot is 0-50 ms ahead. */
    RLRunLoopTimerRef self_remover = new_timer(now() - 0.12, 0.05, self_remover_cb, NULL);
    RLRunLoopAddTimer(rl, self_remover, mode);
    TRACE("C: run 0 s: %s", result_name(RLRunLoopRunInMode(mode, 0, 0)));
    RLAbsoluteTime ahead = RLRunLoopTimerGetNextFireDate(self_remover) - now();
    TRACE("C: valid: %s, in mode: %s, next fire date 0-50 ms ahead: %s",
          yes_no(RLRunLoopTimerIsValid(self_remover)), yes_no(RLRunLoopContainsTimer(rl, self_remover, mode)),
          yes_no(ahead > 0 && ahead <= 0.05));
    RLRunLoopAddTimer(rl, self_remover, mode);
    TRACE("C: added again; run 0 s: %s", result_name(RLRunLoopRunInMode(mode, 0, 0)));
    TRACE("C: fires: %d", g_self_fires);
    TRACE("C: run 200 ms: %s", result_name(RLRunLoopRunInMode(mode, 0.2, 0)));
    TRACE("C: fires: %d", g_self_fires);

    RLRunLoopTimerInvalidate(self_remover);
    RLRunLoopTimerInvalidate(keep);
    RLRunLoopTimerRef all[] = { keep, remover, g_removed, readder, g_readded, self_remover };
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) RLRelease(all[i]);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("timer_removed") | harness_failures;
}
