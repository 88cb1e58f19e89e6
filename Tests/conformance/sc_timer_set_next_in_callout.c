/* Inside its own callout: GetNextFireDate is the date being fired; a
 * repeating timer that sets its next fire date keeps that date (instead of
 * the next slot), even a past one; a one-shot timer that moves itself is
 * still invalidated after the callout. */
#include "conf.h"

static int g_n;
static CFAbsoluteTime g_fired_date, g_moved_to;

static void rep_cb(CFRunLoopTimerRef t, void *info)
{
    g_n++;
    T("repeating fired (%d); next date is the fired one: %s", g_n,
      yesno(CFRunLoopTimerGetNextFireDate(t) == g_fired_date));
    if (g_n == 1) {
        g_moved_to = now() + 0.15;
        CFRunLoopTimerSetNextFireDate(t, g_moved_to);
        T("moved itself to +150 ms; reads back: %s", yesno(CFRunLoopTimerGetNextFireDate(t) == g_moved_to));
        g_fired_date = g_moved_to;
    } else if (g_n == 2) {
        g_moved_to = now() - 5;
        CFRunLoopTimerSetNextFireDate(t, g_moved_to);
        T("moved itself 5 s into the past; reads back: %s", yesno(CFRunLoopTimerGetNextFireDate(t) == g_moved_to));
        g_fired_date = g_moved_to;
    } else {
        CFRunLoopStop(CFRunLoopGetCurrent());
    }
}

static void once_cb(CFRunLoopTimerRef t, void *info)
{
    T("one-shot fired; moves itself to +50 ms");
    CFRunLoopTimerSetNextFireDate(t, now() + 0.05);
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    g_fired_date = now() + 0.02;
    CFRunLoopTimerRef t = new_timer(g_fired_date, 10.0, rep_cb, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    T("run: %s", run(kCFRunLoopDefaultMode, 5, FALSE));
    T("fired %d times", g_n);
    drop_timer(t);

    CFRunLoopTimerRef o = new_timer(now() + 0.02, 0, once_cb, NULL);
    CFRunLoopAddTimer(rl, o, kCFRunLoopDefaultMode);
    T("run 150 ms: %s", run(kCFRunLoopDefaultMode, 0.15, FALSE));
    T("one-shot valid: %s", yesno(CFRunLoopTimerIsValid(o)));
    CFRelease(o);
    drop_source(keep);
}
CONF_MAIN(scenario)
