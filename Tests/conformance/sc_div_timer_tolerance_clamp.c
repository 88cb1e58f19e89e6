/* DIVERGENCE (docs/conformance.md): timer tolerance clamp.  Darwin's CF
 * clamps the tolerance of a repeating timer to half its interval when it is
 * set, and GetTolerance reports the clamped value; a one-shot timer keeps
 * what was set.  CF on Linux ignores tolerance (always 0).  runloop follows
 * Darwin: expected/sc_div_timer_tolerance_clamp.runloop. */
#include "conf.h"
#include <math.h>

static void fire(CFRunLoopTimerRef t, void *info)
{
    if (++*(int *)info == 3) CFRunLoopStop(CFRunLoopGetCurrent());
}

static void scenario(void)
{
    int fires = 0;
    CFRunLoopTimerRef rep = new_timer(now() + 0.05, 0.2, fire, &fires);
    CFRunLoopTimerSetTolerance(rep, 1.0);
    T("repeating 0.2 s, SetTolerance(1.0): %.2f", CFRunLoopTimerGetTolerance(rep));
    CFRunLoopTimerSetTolerance(rep, 0.05);
    T("repeating 0.2 s, SetTolerance(0.05): %.2f", CFRunLoopTimerGetTolerance(rep));
    CFRunLoopTimerSetTolerance(rep, 0.1);
    T("repeating 0.2 s, SetTolerance(0.1): %.2f", CFRunLoopTimerGetTolerance(rep));
    CFRunLoopTimerSetTolerance(rep, INFINITY);
    T("repeating 0.2 s, SetTolerance(+inf): %.2f", CFRunLoopTimerGetTolerance(rep));
    CFRunLoopTimerRef once = new_timer(now() + 100, 0, fire, &fires);
    CFRunLoopTimerSetTolerance(once, 1.0);
    T("one-shot, SetTolerance(1.0): %.2f", CFRunLoopTimerGetTolerance(once));
    CFRunLoopTimerSetTolerance(rep, 1.0);
    CFAbsoluteTime start = now();
    CFRunLoopAddTimer(CFRunLoopGetCurrent(), rep, kCFRunLoopDefaultMode);
    T("run: %s", run(kCFRunLoopDefaultMode, 5, FALSE));
    /* fires at +0.05, +0.25, +0.45, each at most 0.1 s late */
    T("three firings took less than 0.45 + 0.1 + margin: %s", yesno(now() - start < 0.45 + 0.1 + 0.3));
    drop_timer(rep);
    drop_timer(once);
}
CONF_MAIN(scenario)
