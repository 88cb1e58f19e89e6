/* A timer whose fire date has already passed when the run starts fires
 * right away in that run (CF: after one AfterWaiting, the timer port being
 * ready), not after the run's time limit. */
#include "conf.h"

static void fire(CFRunLoopTimerRef t, void *info) { T("timer fired: stop"); CFRunLoopStop(CFRunLoopGetCurrent()); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopObserverRef o = add_logger(kCFRunLoopAllActivities, "obs", kCFRunLoopDefaultMode);
    CFRunLoopTimerRef t = new_timer(now() - 1, 0, fire, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    CFAbsoluteTime start = now();
    T("run 2 s: %s", run(kCFRunLoopDefaultMode, 2, FALSE));
    T("fired before the time limit: %s", yesno(now() - start < 1.0));
    CFRelease(t);
    drop_observer(o);
    drop_source(keep);
}
CONF_MAIN(scenario)
