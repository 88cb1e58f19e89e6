/* The main thread's loop, run on the main thread: CF's main loop serves the
 * dispatch main queue in its common modes, so a common mode of the main
 * loop is never empty and a run in it goes on until its time is up
 * (TimedOut), even with no item or after its only timer fired.  A mode
 * that is not common behaves as on any thread (Finished when empty), and
 * so does kCFRunLoopCommonModes as the run mode (refused: Finished).
 * runloop's build of this scenario links no libdispatch, CF's does: the
 * results are the same. */
#include "conf.h"

static int g_fired;
static void count_fire(CFRunLoopTimerRef t, void *info) { g_fired++; }

/* Runs `mode` for 0.05 s with a one-shot timer due now, if `timer`. */
static void run_with(const char *label, CFStringRef mode, int timer, double seconds)
{
    CFRunLoopTimerRef t = NULL;
    g_fired = 0;
    if (timer) {
        t = new_timer(now(), 0, count_fire, NULL);
        CFRunLoopAddTimer(CFRunLoopGetCurrent(), t, mode);
    }
    const char *result = run(mode, seconds, FALSE);
    T("%s: %s, timer fired %d time(s)", label, result, g_fired);
    if (t) drop_timer(t);
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    T("on the main loop: %s", yesno(rl == CFRunLoopGetMain()));

    run_with("default, nothing", kCFRunLoopDefaultMode, 0, 0.05);
    run_with("default, one timer", kCFRunLoopDefaultMode, 1, 0.05);
    run_with("default, nothing, 0 s", kCFRunLoopDefaultMode, 0, 0);
    run_with("private, nothing", CFSTR("private"), 0, 0.05);
    run_with("private, one timer", CFSTR("private"), 1, 0.05);

    CFRunLoopAddCommonMode(rl, CFSTR("added-common"));
    run_with("added common mode, nothing", CFSTR("added-common"), 0, 0.05);
    run_with("added common mode, one timer", CFSTR("added-common"), 1, 0.05);
    run_with("kCFRunLoopCommonModes", kCFRunLoopCommonModes, 0, 0.05);

    /* A source handled: the run returns as on any thread. */
    CFRunLoopSourceRef s = new_source(0, NULL, nop_perform);
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    CFRunLoopSourceSignal(s);
    T("default, signalled source, return after handled: %s", run(kCFRunLoopDefaultMode, 0.05, TRUE));
    drop_source(s);
    T("default, after the source is gone: %s", run(kCFRunLoopDefaultMode, 0.05, FALSE));
}
CONF_MAIN_ON_MAIN_THREAD(scenario)
