/* A source's schedule callback runs once per mode it joins (on the adding
 * thread), cancel once per mode it leaves: by RemoveSource, by removing
 * it from common modes, and by CFRunLoopSourceInvalidate; an invalidated
 * source cannot be added again and its perform never runs. */
#include "conf.h"

static int g_sorted;
static void sched(void *info, CFRunLoopRef rl, CFStringRef mode)
{
    T("schedule in %s (current loop: %s)", mname(mode), yesno(rl == CFRunLoopGetCurrent()));
}
static void cancel(void *info, CFRunLoopRef rl, CFStringRef mode)
{
    if (g_sorted) T_defer("cancel in %s", mname(mode));
    else T("cancel in %s", mname(mode));
}
static void perform(void *info) { T("perform"); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.schedule = sched;
    ctx.cancel = cancel;
    ctx.perform = perform;
    CFRunLoopSourceRef s = CFRunLoopSourceCreate(NULL, 0, &ctx);
    T("add to a, b, then common (default common)");
    CFRunLoopAddSource(rl, s, CFSTR("a"));
    CFRunLoopAddSource(rl, s, CFSTR("b"));
    CFRunLoopAddSource(rl, s, kCFRunLoopCommonModes);
    T("remove from a");
    CFRunLoopRemoveSource(rl, s, CFSTR("a"));
    T("remove from common");
    CFRunLoopRemoveSource(rl, s, kCFRunLoopCommonModes);
    T("add to a and c, invalidate");
    CFRunLoopAddSource(rl, s, CFSTR("a"));
    CFRunLoopAddSource(rl, s, CFSTR("c"));
    CFRunLoopSourceSignal(s);
    g_sorted = 1;
    CFRunLoopSourceInvalidate(s);
    T_flush_sorted();
    g_sorted = 0;
    T("valid: %s", yesno(CFRunLoopSourceIsValid(s)));
    T("add invalidated source to a");
    CFRunLoopAddSource(rl, s, CFSTR("a"));
    T("in a: %s", yesno(CFRunLoopContainsSource(rl, s, CFSTR("a"))));
    T("b 0 s: %s", run(CFSTR("b"), 0, FALSE));
    CFRelease(s);
}
CONF_MAIN(scenario)
