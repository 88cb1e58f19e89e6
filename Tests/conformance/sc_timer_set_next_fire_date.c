/* CFRunLoopTimerSetNextFireDate moves a scheduled timer: later (it does
 * not fire before), earlier (it fires sooner), into the past (fires at
 * once); GetNextFireDate reads back the date set; a repeating timer then
 * continues from the new date. */
#include "conf.h"

static CFAbsoluteTime g_start;

static void fire(CFRunLoopTimerRef t, void *info)
{
    T("timer %s fired", (const char *)info);
    CFRunLoopStop(CFRunLoopGetCurrent());
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    g_start = now();
    CFRunLoopTimerRef t = new_timer(g_start + 0.05, 0, fire, "A");
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    CFAbsoluteTime later = g_start + 100;
    CFRunLoopTimerSetNextFireDate(t, later);
    T("A: moved 100 s later, reads back: %s", yesno(CFRunLoopTimerGetNextFireDate(t) == later));
    T("A: run 150 ms: %s", run(kCFRunLoopDefaultMode, 0.15, FALSE));
    CFRunLoopTimerSetNextFireDate(t, now() + 0.05);
    T("A: moved to +50 ms, run 5 s: %s", run(kCFRunLoopDefaultMode, 5, FALSE));
    T("A: one-shot valid after firing: %s", yesno(CFRunLoopTimerIsValid(t)));
    CFRelease(t);

    CFRunLoopTimerRef r = new_timer(now() + 100, 0.2, fire, "B");
    CFRunLoopAddTimer(rl, r, kCFRunLoopDefaultMode);
    CFAbsoluteTime past = now() - 10;
    CFRunLoopTimerSetNextFireDate(r, past);
    T("B: repeating timer moved 10 s into the past, reads back: %s", yesno(CFRunLoopTimerGetNextFireDate(r) == past));
    T("B: run 0 s: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    CFAbsoluteTime next = CFRunLoopTimerGetNextFireDate(r);
    T("B: next fire date after firing is in the future: %s, within one interval: %s",
      yesno(next > now()), yesno(next <= now() + 0.2));
    drop_timer(r);

    CFRunLoopTimerRef u = new_timer(now() + 100, 0, fire, "C");
    CFAbsoluteTime soon = now() + 0.03;
    CFRunLoopTimerSetNextFireDate(u, soon);
    T("C: moved before being added, reads back: %s", yesno(CFRunLoopTimerGetNextFireDate(u) == soon));
    CFRunLoopAddTimer(rl, u, kCFRunLoopDefaultMode);
    T("C: run 5 s: %s", run(kCFRunLoopDefaultMode, 5, FALSE));
    CFRelease(u);
    drop_source(keep);
}
CONF_MAIN(scenario)
