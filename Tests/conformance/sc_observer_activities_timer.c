/* An AllActivities observer sees one run of a mode holding a one-shot
 * timer: Entry, BeforeTimers, BeforeSources, BeforeWaiting, AfterWaiting,
 * the timer fires, then (the mode is empty) the run ends: Finished, Exit. */
#include "conf.h"

static void fire(CFRunLoopTimerRef t, void *info) { T("timer fired"); }

static void scenario(void)
{
    CFRunLoopObserverRef o = add_logger(kCFRunLoopAllActivities, "obs", kCFRunLoopDefaultMode);
    CFRunLoopTimerRef t = new_timer(now() + 0.05, 0, fire, NULL);
    CFRunLoopAddTimer(CFRunLoopGetCurrent(), t, kCFRunLoopDefaultMode);
    T("run: %s", run(kCFRunLoopDefaultMode, 2.0, FALSE));
    T("one-shot timer valid after firing: %s", yesno(CFRunLoopTimerIsValid(t)));
    CFRelease(t);
    drop_observer(o);
}
CONF_MAIN(scenario)
