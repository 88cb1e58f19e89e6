/* A 0-second run still fires a timer that is already due, in its single
 * pass, and never sleeps (no BeforeWaiting/AfterWaiting). */
#include "conf.h"

static void fire(CFRunLoopTimerRef t, void *info) { T("timer %s fired", (const char *)info); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef s = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopObserverRef o = add_logger(kCFRunLoopAllActivities, "obs", kCFRunLoopDefaultMode);
    CFRunLoopTimerRef t = new_timer(now() - 1.0, 0, fire, "overdue");
    CFRunLoopTimerRef later = new_timer(now() + 100, 0, fire, "later");
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    CFRunLoopAddTimer(rl, later, kCFRunLoopDefaultMode);
    T("0 s: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    T("overdue timer valid: %s", yesno(CFRunLoopTimerIsValid(t)));
    CFRelease(t);
    drop_timer(later);
    drop_observer(o);
    drop_source(s);
}
CONF_MAIN(scenario)
