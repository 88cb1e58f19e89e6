/* CFRunLoopStop from a timer callout ends the running RunInMode with
 * Stopped; the next run is not affected. */
#include "conf.h"

static void stop_cb(CFRunLoopTimerRef t, void *info)
{
    T("timer fired: stop");
    CFRunLoopStop(CFRunLoopGetCurrent());
    T("timer callout returns");
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopObserverRef o = add_logger(kCFRunLoopAllActivities, "obs", kCFRunLoopDefaultMode);
    CFRunLoopTimerRef t = new_timer(now() + 0.02, 100, stop_cb, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    T("first run: %s", run(kCFRunLoopDefaultMode, 5.0, FALSE));
    T("second run, 30 ms: %s", run(kCFRunLoopDefaultMode, 0.03, FALSE));
    drop_timer(t);
    drop_observer(o);
}
CONF_MAIN(scenario)
