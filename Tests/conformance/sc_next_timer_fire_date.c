/* GetNextTimerFireDate: 0 for a mode without timers (or unknown); the
 * earliest fire date among the mode's valid timers; follows invalidation,
 * removal and SetNextFireDate; per mode; common-mode timers count. */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFAbsoluteTime base = now();
    T("no timers: %s", yesno(CFRunLoopGetNextTimerFireDate(rl, kCFRunLoopDefaultMode) == 0));
    T("unknown mode: %s", yesno(CFRunLoopGetNextTimerFireDate(rl, CFSTR("nope")) == 0));
    CFRunLoopTimerRef a = new_timer(base + 50, 0, nop_timer, NULL);
    CFRunLoopTimerRef b = new_timer(base + 30, 0, nop_timer, NULL);
    CFRunLoopTimerRef c = new_timer(base + 10, 0, nop_timer, NULL);
    CFRunLoopAddTimer(rl, a, kCFRunLoopDefaultMode);
    CFRunLoopAddTimer(rl, b, kCFRunLoopDefaultMode);
    CFRunLoopAddTimer(rl, c, CFSTR("other"));
    T("default is b's date: %s", yesno(CFRunLoopGetNextTimerFireDate(rl, kCFRunLoopDefaultMode) == base + 30));
    T("other is c's date: %s", yesno(CFRunLoopGetNextTimerFireDate(rl, CFSTR("other")) == base + 10));
    CFRunLoopTimerSetNextFireDate(a, base + 20);
    T("a moved to +20: default is a's: %s", yesno(CFRunLoopGetNextTimerFireDate(rl, kCFRunLoopDefaultMode) == base + 20));
    CFRunLoopTimerInvalidate(a);
    T("a invalidated: default is b's: %s", yesno(CFRunLoopGetNextTimerFireDate(rl, kCFRunLoopDefaultMode) == base + 30));
    CFRunLoopRemoveTimer(rl, b, kCFRunLoopDefaultMode);
    T("b removed: default is 0: %s", yesno(CFRunLoopGetNextTimerFireDate(rl, kCFRunLoopDefaultMode) == 0));
    CFRunLoopRemoveTimer(rl, c, CFSTR("other"));
    CFRunLoopAddTimer(rl, c, kCFRunLoopCommonModes);
    T("c in common modes: default is c's: %s", yesno(CFRunLoopGetNextTimerFireDate(rl, kCFRunLoopDefaultMode) == base + 10));
    CFRelease(a);
    drop_timer(b);
    drop_timer(c);
}
CONF_MAIN(scenario)
