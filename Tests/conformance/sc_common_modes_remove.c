/* Removing from kCFRunLoopCommonModes removes a common-mode item from
 * every common mode, including one it was also added to by name; an item
 * added to a common mode only by name stays there.  (The two sources have
 * different info: CF treats sources with equal contexts as one item.) */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopAddCommonMode(rl, CFSTR("tracking"));
    CFRunLoopSourceRef by_name = new_source(0, "by name", nop_perform);
    CFRunLoopSourceRef both = new_source(0, "both", nop_perform);
    CFRunLoopTimerRef t = new_timer(now() + 100, 0, nop_timer, NULL);
    CFRunLoopObserverRef o = new_observer(kCFRunLoopEntry, TRUE, 0, log_activity, "obs");
    CFRunLoopAddSource(rl, by_name, CFSTR("tracking"));
    CFRunLoopAddSource(rl, both, CFSTR("tracking"));
    CFRunLoopAddSource(rl, both, kCFRunLoopCommonModes);
    CFRunLoopAddTimer(rl, t, kCFRunLoopCommonModes);
    CFRunLoopAddObserver(rl, o, kCFRunLoopCommonModes);
    T("remove all four from common modes");
    CFRunLoopRemoveSource(rl, by_name, kCFRunLoopCommonModes);
    CFRunLoopRemoveSource(rl, both, kCFRunLoopCommonModes);
    CFRunLoopRemoveTimer(rl, t, kCFRunLoopCommonModes);
    CFRunLoopRemoveObserver(rl, o, kCFRunLoopCommonModes);
    T("by-name source in tracking: %s", yesno(CFRunLoopContainsSource(rl, by_name, CFSTR("tracking"))));
    T("both source in tracking: %s, default: %s", yesno(CFRunLoopContainsSource(rl, both, CFSTR("tracking"))),
      yesno(CFRunLoopContainsSource(rl, both, kCFRunLoopDefaultMode)));
    T("timer in default: %s, tracking: %s", yesno(CFRunLoopContainsTimer(rl, t, kCFRunLoopDefaultMode)),
      yesno(CFRunLoopContainsTimer(rl, t, CFSTR("tracking"))));
    T("observer in default: %s, tracking: %s", yesno(CFRunLoopContainsObserver(rl, o, kCFRunLoopDefaultMode)),
      yesno(CFRunLoopContainsObserver(rl, o, CFSTR("tracking"))));
    T("timer still valid: %s", yesno(CFRunLoopTimerIsValid(t)));
    T("default: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    drop_source(by_name);
    drop_source(both);
    drop_timer(t);
    drop_observer(o);
}
CONF_MAIN(scenario)
