/* Items added to kCFRunLoopCommonModes join the default mode at once (it
 * is common from the start) and join a mode made common later by
 * CFRunLoopAddCommonMode; the schedule callback runs for each mode.  The
 * repeating timer fires (and stops the run) in both modes. */
#include "conf.h"

static void sched(void *info, CFRunLoopRef rl, CFStringRef mode) { T("schedule in %s", mname(mode)); }
static void fire(CFRunLoopTimerRef t, void *info)
{
    CFStringRef m = CFRunLoopCopyCurrentMode(CFRunLoopGetCurrent());
    T("timer fired in %s: stop", mname(m));
    CFRelease(m);
    CFRunLoopStop(CFRunLoopGetCurrent());
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.schedule = sched;
    ctx.perform = nop_perform;
    CFRunLoopSourceRef s = CFRunLoopSourceCreate(NULL, 0, &ctx);
    CFRunLoopTimerRef t = new_timer(now() + 0.02, 0.02, fire, NULL);
    CFRunLoopObserverRef o = new_observer(kCFRunLoopEntry, TRUE, 0, log_activity, "obs");
    T("add source, timer, observer to common modes");
    CFRunLoopAddSource(rl, s, kCFRunLoopCommonModes);
    CFRunLoopAddTimer(rl, t, kCFRunLoopCommonModes);
    CFRunLoopAddObserver(rl, o, kCFRunLoopCommonModes);
    T("in default: source %s timer %s observer %s", yesno(CFRunLoopContainsSource(rl, s, kCFRunLoopDefaultMode)),
      yesno(CFRunLoopContainsTimer(rl, t, kCFRunLoopDefaultMode)), yesno(CFRunLoopContainsObserver(rl, o, kCFRunLoopDefaultMode)));
    T("in tracking: source %s timer %s observer %s", yesno(CFRunLoopContainsSource(rl, s, CFSTR("tracking"))),
      yesno(CFRunLoopContainsTimer(rl, t, CFSTR("tracking"))), yesno(CFRunLoopContainsObserver(rl, o, CFSTR("tracking"))));
    T("in common modes: source %s", yesno(CFRunLoopContainsSource(rl, s, kCFRunLoopCommonModes)));
    T("tracking before AddCommonMode: %s", run(CFSTR("tracking"), 0.1, TRUE));
    T("AddCommonMode(tracking)");
    CFRunLoopAddCommonMode(rl, CFSTR("tracking"));
    T("in tracking: source %s timer %s observer %s", yesno(CFRunLoopContainsSource(rl, s, CFSTR("tracking"))),
      yesno(CFRunLoopContainsTimer(rl, t, CFSTR("tracking"))), yesno(CFRunLoopContainsObserver(rl, o, CFSTR("tracking"))));
    T("AddCommonMode(tracking) again");
    CFRunLoopAddCommonMode(rl, CFSTR("tracking"));
    T("tracking: %s", run(CFSTR("tracking"), 1.0, TRUE));
    T("default: %s", run(kCFRunLoopDefaultMode, 1.0, TRUE));
    drop_source(s);
    drop_timer(t);
    drop_observer(o);
}
CONF_MAIN(scenario)
