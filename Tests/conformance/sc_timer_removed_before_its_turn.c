/* A due timer that an earlier callout of the same pass takes out of the
 * loop does not fire: it stays valid and fires once added again.  One
 * taken out and added back before its turn fires in its turn.  A
 * repeating timer that takes itself out in its callout still moves on to
 * its next fire date, which a later add keeps. */
#include "conf.h"

static CFRunLoopTimerRef g_removed, g_readded, g_self_remover;
static int g_self_fires;

static void remover_cb(CFRunLoopTimerRef t, void *info)
{
    T("A: first fired: removes the second");
    CFRunLoopRemoveTimer(CFRunLoopGetCurrent(), g_removed, kCFRunLoopDefaultMode);
}
static void removed_cb(CFRunLoopTimerRef t, void *info) { T("A: second fired"); }

static void readder_cb(CFRunLoopTimerRef t, void *info)
{
    T("B: first fired: removes the second and adds it back");
    CFRunLoopRemoveTimer(CFRunLoopGetCurrent(), g_readded, kCFRunLoopDefaultMode);
    CFRunLoopAddTimer(CFRunLoopGetCurrent(), g_readded, kCFRunLoopDefaultMode);
}
static void readded_cb(CFRunLoopTimerRef t, void *info) { T("B: second fired"); }

static void self_remover_cb(CFRunLoopTimerRef t, void *info)
{
    T("C: repeating timer fired (%d): removes itself", ++g_self_fires);
    CFRunLoopRemoveTimer(CFRunLoopGetCurrent(), t, kCFRunLoopDefaultMode);
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFStringRef mode = kCFRunLoopDefaultMode;
    CFRunLoopSourceRef keep = keep_mode_alive(mode);

    CFRunLoopTimerRef remover = new_timer(now() - 0.2, 0, remover_cb, NULL);
    g_removed = new_timer(now() - 0.1, 0, removed_cb, NULL);
    CFRunLoopAddTimer(rl, remover, mode);
    CFRunLoopAddTimer(rl, g_removed, mode);
    T("A: run 0 s: %s", run(mode, 0, FALSE));
    T("A: second valid: %s, in mode: %s", yesno(CFRunLoopTimerIsValid(g_removed)),
      yesno(CFRunLoopContainsTimer(rl, g_removed, mode)));
    CFRunLoopAddTimer(rl, g_removed, mode);
    T("A: added again; run 0 s: %s", run(mode, 0, FALSE));
    T("A: second valid: %s", yesno(CFRunLoopTimerIsValid(g_removed)));

    CFRunLoopTimerRef readder = new_timer(now() - 0.2, 0, readder_cb, NULL);
    g_readded = new_timer(now() - 0.1, 0, readded_cb, NULL);
    CFRunLoopAddTimer(rl, readder, mode);
    CFRunLoopAddTimer(rl, g_readded, mode);
    T("B: run 0 s: %s", run(mode, 0, FALSE));
    T("B: second valid: %s", yesno(CFRunLoopTimerIsValid(g_readded)));

    /* Every 50 ms from 120 ms ago: its next slot is 0-50 ms ahead. */
    g_self_remover = new_timer(now() - 0.12, 0.05, self_remover_cb, NULL);
    CFRunLoopAddTimer(rl, g_self_remover, mode);
    T("C: run 0 s: %s", run(mode, 0, FALSE));
    CFAbsoluteTime ahead = CFRunLoopTimerGetNextFireDate(g_self_remover) - now();
    T("C: valid: %s, in mode: %s, next fire date 0-50 ms ahead: %s",
      yesno(CFRunLoopTimerIsValid(g_self_remover)), yesno(CFRunLoopContainsTimer(rl, g_self_remover, mode)),
      yesno(ahead > 0 && ahead <= 0.05));
    CFRunLoopAddTimer(rl, g_self_remover, mode);
    T("C: added again; run 0 s: %s", run(mode, 0, FALSE));
    T("C: fires: %d", g_self_fires);
    T("C: run 200 ms: %s", run(mode, 0.2, FALSE));
    T("C: fires: %d", g_self_fires);
    CFRunLoopTimerInvalidate(g_self_remover);

    CFRelease(remover);
    CFRelease(g_removed);
    CFRelease(readder);
    CFRelease(g_readded);
    CFRelease(g_self_remover);
    drop_source(keep);
}
CONF_MAIN(scenario)
