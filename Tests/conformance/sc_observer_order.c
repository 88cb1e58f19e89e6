/* Observers of one activity run lowest order first; observers are not
 * called for activities outside their mask; an observer added to two
 * modes is called in either. */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    CFIndex orders[] = { 3, -1, 100, 0 };
    const char *tags[] = { "order 3", "order -1", "order 100", "order 0" };
    CFRunLoopObserverRef o[4];
    for (int i = 0; i < 4; i++) {
        o[i] = new_observer(kCFRunLoopEntry | kCFRunLoopExit, TRUE, orders[i], log_activity, (void *)tags[i]);
        CFRunLoopAddObserver(rl, o[i], kCFRunLoopDefaultMode);
    }
    CFRunLoopObserverRef w = new_observer(kCFRunLoopBeforeWaiting, TRUE, 50, log_activity, "waiting-only");
    CFRunLoopAddObserver(rl, w, kCFRunLoopDefaultMode);
    CFRunLoopAddObserver(rl, w, CFSTR("second"));
    CFRunLoopAddSource(rl, keep, CFSTR("second"));
    T("default 0 s: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    T("default 20 ms: %s", run(kCFRunLoopDefaultMode, 0.02, FALSE));
    T("second 20 ms: %s", run(CFSTR("second"), 0.02, FALSE));
    for (int i = 0; i < 4; i++) T("%s: order %ld", tags[i], (long)CFRunLoopObserverGetOrder(o[i]));
    for (int i = 0; i < 4; i++) drop_observer(o[i]);
    drop_observer(w);
    drop_source(keep);
}
CONF_MAIN(scenario)
