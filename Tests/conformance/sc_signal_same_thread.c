/* Signalling on the loop's own thread: from a timer callout the source is
 * performed in the same pass; signalled several times it is performed
 * once; signalled from its own perform it is performed again in the next
 * pass; a source of another mode is not performed. */
#include "conf.h"

static CFRunLoopSourceRef g_s, g_other;
static int g_again = 1;

static void perform(void *info)
{
    T("source %s performed", (const char *)info);
    if (g_again) { g_again = 0; T("source signals itself"); CFRunLoopSourceSignal(g_s); }
}
static void fire(CFRunLoopTimerRef t, void *info)
{
    T("timer fired: signal s three times and other once");
    CFRunLoopSourceSignal(g_s);
    CFRunLoopSourceSignal(g_s);
    CFRunLoopSourceSignal(g_s);
    CFRunLoopSourceSignal(g_other);
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopObserverRef o = add_logger(kCFRunLoopBeforeTimers | kCFRunLoopBeforeSources | kCFRunLoopBeforeWaiting, "obs", kCFRunLoopDefaultMode);
    g_s = new_source(0, "s", perform);
    g_other = new_source(0, "other", perform);
    CFRunLoopAddSource(rl, g_s, kCFRunLoopDefaultMode);
    CFRunLoopAddSource(rl, g_other, CFSTR("elsewhere"));
    CFRunLoopTimerRef t = new_timer(now() + 0.02, 0, fire, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    T("run 150 ms: %s", run(kCFRunLoopDefaultMode, 0.15, FALSE));
    T("run elsewhere 0 s: %s", run(CFSTR("elsewhere"), 0, FALSE));
    CFRelease(t);
    drop_source(g_s);
    drop_source(g_other);
    drop_observer(o);
}
CONF_MAIN(scenario)
