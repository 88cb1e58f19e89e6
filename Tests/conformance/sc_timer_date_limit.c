/* CF clamps fire dates to its timer date limit, 4039289856.0 (2128-12-31):
 * DBL_MAX, 1e300, +inf and anything past the limit read back as the limit,
 * at creation and through SetNextFireDate; dates up to the limit and the
 * past (-inf included) are kept as given.  Such a timer never fires. */
#include "conf.h"
#include <float.h>
#include <math.h>

static void fire(CFRunLoopTimerRef t, void *info) { T("timer fired"); }

static void scenario(void)
{
    CFRunLoopTimerRef a = new_timer(DBL_MAX, 0, fire, NULL);
    T("created at DBL_MAX: %.1f", CFRunLoopTimerGetNextFireDate(a));
    CFRunLoopTimerRef b = new_timer(INFINITY, 1.0, fire, NULL);
    T("created at +inf (repeating): %.1f", CFRunLoopTimerGetNextFireDate(b));
    const double dates[] = { 1e300, INFINITY, 4039289856.0 + 1, 4039289856.0, 4039289855.0, 1e9, -INFINITY };
    const char *names[] = { "1e300", "+inf", "limit + 1", "limit", "limit - 1", "1e9", "-inf" };
    for (int i = 0; i < 7; i++) {
        CFRunLoopTimerSetNextFireDate(a, dates[i]);
        T("SetNextFireDate(%s): %.1f", names[i], CFRunLoopTimerGetNextFireDate(a));
    }
    CFRunLoopTimerSetNextFireDate(a, DBL_MAX);
    CFRunLoopTimerRef c = new_timer(1e9, DBL_MAX, fire, NULL);
    T("interval DBL_MAX is kept: %s", yesno(CFRunLoopTimerGetInterval(c) == DBL_MAX));
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopAddTimer(rl, a, kCFRunLoopDefaultMode);
    CFRunLoopAddTimer(rl, b, kCFRunLoopDefaultMode);
    T("next timer fire date of the mode: %.1f", CFRunLoopGetNextTimerFireDate(rl, kCFRunLoopDefaultMode));
    T("run 0.1 s: %s", run(kCFRunLoopDefaultMode, 0.1, FALSE));
    drop_timer(a);
    drop_timer(b);
    CFRelease(c);
}
CONF_MAIN(scenario)
