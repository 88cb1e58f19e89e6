/*
 * test_timer_nested_due — timers due together, where the first one's
 * callout runs the loop again (a modal wait): the nested run fires the
 * other due timers (only the timer in its callout is excluded), and when
 * the outer pass gets back to them they have fired already: the one-shot
 * timer is invalid, the repeating one scheduled at its next date, so
 * neither fires twice (CF's __CFRunLoopDoTimer checks each one again).
 */
#include "harness.h"

static int g_repeating_fires;

static void modal_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("first fired: runs the loop for 100 ms");
    TRACE("first: nested run: %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.1, 0)));
    TRACE("first: back in its callout");
}
static void second_cb(RLRunLoopTimerRef t, void *info) { TRACE("second fired"); }
static void repeating_cb(RLRunLoopTimerRef t, void *info) { TRACE("repeating fired (%d)", ++g_repeating_fires); }
static void keep_cb(RLRunLoopTimerRef t, void *info) {}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopMode mode = kRLRunLoopDefaultMode;
    RLRunLoopTimerRef keep = new_timer(now() + 1000, 0, keep_cb, NULL);
    RLRunLoopTimerRef modal = new_timer(now() - 0.3, 0, modal_cb, NULL);
    RLRunLoopTimerRef second = new_timer(now() - 0.2, 0, second_cb, NULL);
    RLRunLoopTimerRef repeating = new_timer(now() - 0.1, 10.0, repeating_cb, NULL);
    RLRunLoopAddTimer(rl, keep, mode);
    RLRunLoopAddTimer(rl, modal, mode);
    RLRunLoopAddTimer(rl, second, mode);
    RLRunLoopAddTimer(rl, repeating, mode);
    TRACE("outer run 0 s: %s", result_name(RLRunLoopRunInMode(mode, 0, 0)));
    TRACE("second valid: %s; repeating fires: %d", yes_no(RLRunLoopTimerIsValid(second)), g_repeating_fires);
    RLRunLoopTimerInvalidate(repeating);
    RLRunLoopTimerInvalidate(keep);
    RLRunLoopTimerRef all[] = { keep, modal, second, repeating };
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++) RLRelease(all[i]);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("timer_nested_due") | harness_failures;
}
