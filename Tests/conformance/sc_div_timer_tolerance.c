/* DIVERGENCE (docs/conformance.md): timer tolerance.  Apple documents
 * CFRunLoopTimerSetTolerance as storing how late the timer may fire and
 * GetTolerance as returning it; CF on Linux ignores the setter (always 0).
 * runloop stores it: expected/sc_div_timer_tolerance.runloop. */
#include "conf.h"

static void fire(CFRunLoopTimerRef t, void *info) { T("timer fired"); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFAbsoluteTime due = now() + 0.05;
    CFRunLoopTimerRef t = new_timer(due, 0, fire, NULL);
    T("new timer tolerance %.2f", CFRunLoopTimerGetTolerance(t));
    CFRunLoopTimerSetTolerance(t, 0.25);
    T("after SetTolerance(0.25): %.2f", CFRunLoopTimerGetTolerance(t));
    CFRunLoopTimerSetTolerance(t, 0);
    T("after SetTolerance(0): %.2f", CFRunLoopTimerGetTolerance(t));
    CFRunLoopTimerSetTolerance(t, 0.01);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    T("run: %s", run(kCFRunLoopDefaultMode, 5, FALSE));
    T("fired no earlier than its fire date: %s", yesno(now() >= due - 0.001));
    T("one-shot valid after firing: %s", yesno(CFRunLoopTimerIsValid(t)));
    CFRelease(t);
}
CONF_MAIN(scenario)
