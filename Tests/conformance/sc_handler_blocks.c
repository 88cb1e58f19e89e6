/* CFRunLoopTimerCreateWithHandler and CFRunLoopObserverCreateWithHandler:
 * the block gets the item; a repeating timer block can invalidate its
 * timer; a one-shot observer block runs once. */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    __block int fires = 0;
    CFRunLoopTimerRef t = CFRunLoopTimerCreateWithHandler(kCFAllocatorDefault, now() + 0.01, 0.01, 0, 0,
                                                          ^(CFRunLoopTimerRef timer) {
        fires++;
        T("timer block %d (interval %.2f)", fires, CFRunLoopTimerGetInterval(timer));
        if (fires == 3) CFRunLoopTimerInvalidate(timer);
    });
    CFRunLoopObserverRef o = CFRunLoopObserverCreateWithHandler(kCFAllocatorDefault, kCFRunLoopBeforeWaiting, FALSE, 0,
                                                                ^(CFRunLoopObserverRef obs, CFRunLoopActivity a) {
        T("one-shot observer block: %s, repeats %s", act(a), yesno(CFRunLoopObserverDoesRepeat(obs)));
    });
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    T("run 200 ms: %s", run(kCFRunLoopDefaultMode, 0.2, FALSE));
    T("timer valid: %s, observer valid: %s", yesno(CFRunLoopTimerIsValid(t)), yesno(CFRunLoopObserverIsValid(o)));
    CFRelease(t);
    CFRelease(o);
    drop_source(keep);
}
CONF_MAIN(scenario)
