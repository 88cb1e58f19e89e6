/* A repeating timer that invalidates itself in its callout never fires
 * again; a timer that invalidates a later timer from its callout keeps it
 * from firing; the invalidated timers leave their mode. */
#include "conf.h"

static CFRunLoopTimerRef g_victim;
static int g_fires;

static void self_cb(CFRunLoopTimerRef t, void *info)
{
    T("self-invalidating timer fired (%d)", ++g_fires);
    CFRunLoopTimerInvalidate(t);
    T("valid after invalidate in callout: %s", yesno(CFRunLoopTimerIsValid(t)));
}
static void killer_cb(CFRunLoopTimerRef t, void *info)
{
    T("killer fired: invalidates victim");
    CFRunLoopTimerInvalidate(g_victim);
}
static void victim_cb(CFRunLoopTimerRef t, void *info) { T("victim fired"); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopTimerRef self = new_timer(now() + 0.01, 0.01, self_cb, NULL);
    CFRunLoopAddTimer(rl, self, kCFRunLoopDefaultMode);
    T("A: run 100 ms: %s", run(kCFRunLoopDefaultMode, 0.1, FALSE));
    T("A: in default: %s", yesno(CFRunLoopContainsTimer(rl, self, kCFRunLoopDefaultMode)));
    CFRelease(self);
    CFRunLoopTimerRef killer = new_timer(now() + 0.02, 0, killer_cb, NULL);
    g_victim = new_timer(now() + 0.06, 0, victim_cb, NULL);
    CFRunLoopAddTimer(rl, killer, kCFRunLoopDefaultMode);
    CFRunLoopAddTimer(rl, g_victim, kCFRunLoopDefaultMode);
    T("B: run 150 ms: %s", run(kCFRunLoopDefaultMode, 0.15, FALSE));
    T("B: victim valid: %s, in default: %s", yesno(CFRunLoopTimerIsValid(g_victim)),
      yesno(CFRunLoopContainsTimer(rl, g_victim, kCFRunLoopDefaultMode)));
    CFRelease(killer);
    CFRelease(g_victim);
    drop_source(keep);
}
CONF_MAIN(scenario)
