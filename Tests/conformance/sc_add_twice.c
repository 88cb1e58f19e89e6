/* Adding an item already in a mode does nothing (the schedule callback
 * runs once; one removal removes it); items can be in several modes. */
#include "conf.h"

static void sched(void *info, CFRunLoopRef rl, CFStringRef mode) { T("schedule in %s", mname(mode)); }
static int g_sorted; /* invalidation cancels mode by mode in hash order */
static void cancel(void *info, CFRunLoopRef rl, CFStringRef mode)
{
    if (g_sorted) T_defer("cancel in %s", mname(mode));
    else T("cancel in %s", mname(mode));
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.schedule = sched;
    ctx.cancel = cancel;
    ctx.perform = nop_perform;
    CFRunLoopSourceRef s = CFRunLoopSourceCreate(NULL, 0, &ctx);
    T("add source to default twice");
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    T("add source to other");
    CFRunLoopAddSource(rl, s, CFSTR("other"));
    T("remove source from default once");
    CFRunLoopRemoveSource(rl, s, kCFRunLoopDefaultMode);
    T("in default: %s, in other: %s", yesno(CFRunLoopContainsSource(rl, s, kCFRunLoopDefaultMode)),
      yesno(CFRunLoopContainsSource(rl, s, CFSTR("other"))));
    T("remove again from default (not there)");
    CFRunLoopRemoveSource(rl, s, kCFRunLoopDefaultMode);

    CFRunLoopTimerRef t = new_timer(now() + 100, 0, nop_timer, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    CFRunLoopRemoveTimer(rl, t, kCFRunLoopDefaultMode);
    T("timer added twice, removed once, in default: %s", yesno(CFRunLoopContainsTimer(rl, t, kCFRunLoopDefaultMode)));
    CFRunLoopObserverRef o = new_observer(kCFRunLoopEntry, TRUE, 0, log_activity, "obs");
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    T("observer added twice, run 0 s: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    CFRunLoopRemoveObserver(rl, o, kCFRunLoopDefaultMode);
    T("observer removed once, in default: %s", yesno(CFRunLoopContainsObserver(rl, o, kCFRunLoopDefaultMode)));
    T("invalidate source");
    g_sorted = 1;
    CFRunLoopSourceInvalidate(s);
    T_flush_sorted();
    CFRelease(s);
    drop_timer(t);
    drop_observer(o);
}
CONF_MAIN(scenario)
