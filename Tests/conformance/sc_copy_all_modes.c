/* CopyAllModes lists the default mode from the start and every mode
 * created by adding an item or queuing a block; modes are never removed
 * (not even when emptied); kCFRunLoopCommonModes is not a mode; CopyAllModes
 * of another thread's loop works. */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    T_all_modes("fresh loop", rl);
    CFRunLoopSourceRef s = new_source(0, NULL, nop_perform);
    CFRunLoopTimerRef t = new_timer(now() + 100, 0, nop_timer, NULL);
    CFRunLoopObserverRef o = new_observer(kCFRunLoopEntry, TRUE, 0, log_activity, "obs");
    CFRunLoopAddSource(rl, s, CFSTR("by-source"));
    CFRunLoopAddTimer(rl, t, CFSTR("by-timer"));
    CFRunLoopAddObserver(rl, o, CFSTR("by-observer"));
    CFRunLoopPerformBlock(rl, CFSTR("by-block"), ^{});
    CFRunLoopAddSource(rl, s, kCFRunLoopCommonModes);
    T_all_modes("after adding", rl);
    CFRunLoopContainsSource(rl, s, CFSTR("by-contains"));
    T("run by-run: %s", run(CFSTR("by-run"), 0, FALSE));
    T_all_modes("after Contains and RunInMode on unknown modes", rl);
    CFRunLoopRemoveSource(rl, s, CFSTR("by-source"));
    drop_timer(t);
    drop_observer(o);
    T_all_modes("after removing the items", rl);
    CFRunLoopAddCommonMode(rl, CFSTR("by-add-common"));
    T_all_modes("after AddCommonMode", rl);
    CFArrayRef a = CFRunLoopCopyAllModes(rl);
    T("array type is CFArray: %s", yesno(CFGetTypeID(a) == CFArrayGetTypeID()));
    CFRelease(a);
    drop_source(s);
}
CONF_MAIN(scenario)
