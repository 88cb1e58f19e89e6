/* GetNextFireDate of an invalidated timer is 0, and SetNextFireDate on it
 * is ignored (it stays 0 and nothing fires); a one-shot timer that has
 * fired is invalid and reads 0 as well; a valid timer reads back what was
 * set. */
#include "conf.h"

static void fire(CFRunLoopTimerRef t, void *info) { T("%s fired", (const char *)info); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopTimerRef t = new_timer(1000.0, 0, fire, "t");
    T("valid timer: next fire date %.1f", CFRunLoopTimerGetNextFireDate(t));
    CFRunLoopTimerSetNextFireDate(t, 2000.0);
    T("after SetNextFireDate(2000): %.1f", CFRunLoopTimerGetNextFireDate(t));
    CFRunLoopTimerInvalidate(t);
    T("invalidated: valid %s, next fire date %.1f", yesno(CFRunLoopTimerIsValid(t)), CFRunLoopTimerGetNextFireDate(t));
    CFRunLoopTimerSetNextFireDate(t, now() + 0.01);
    T("after SetNextFireDate on the invalid timer: %.1f", CFRunLoopTimerGetNextFireDate(t));
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    T("added after invalidation: in the mode %s", yesno(CFRunLoopContainsTimer(rl, t, kCFRunLoopDefaultMode)));
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    T("run 0.1 s: %s", run(kCFRunLoopDefaultMode, 0.1, FALSE));
    CFRelease(t);

    CFRunLoopTimerRef once = new_timer(now() + 0.01, 0, fire, "one-shot");
    CFRunLoopAddTimer(rl, once, kCFRunLoopDefaultMode);
    T("run until the one-shot fires: %s", run(kCFRunLoopDefaultMode, 0.2, FALSE));
    T("one-shot after firing: valid %s, next fire date %.1f", yesno(CFRunLoopTimerIsValid(once)),
      CFRunLoopTimerGetNextFireDate(once));
    CFRelease(once);

    CFRunLoopTimerRef rep = new_timer(now() + 100, 0.5, fire, "repeating");
    CFRunLoopAddTimer(rl, rep, kCFRunLoopDefaultMode);
    CFRunLoopTimerInvalidate(rep);
    T("repeating, invalidated while scheduled: next fire date %.1f, in the mode %s", CFRunLoopTimerGetNextFireDate(rep),
      yesno(CFRunLoopContainsTimer(rl, rep, kCFRunLoopDefaultMode)));
    CFRelease(rep);
    drop_source(keep);
}
CONF_MAIN(scenario)
