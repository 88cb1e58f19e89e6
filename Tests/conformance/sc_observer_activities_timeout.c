/* A repeating timer fires once during a 200 ms run; the run then sleeps
 * until the time limit: AfterWaiting, Exit, TimedOut.  An observer with a
 * mask sees only its activities. */
#include "conf.h"

static void fire(CFRunLoopTimerRef t, void *info) { T("timer fired"); }

static void scenario(void)
{
    CFRunLoopObserverRef all = add_logger(kCFRunLoopAllActivities, "all", kCFRunLoopDefaultMode);
    CFRunLoopObserverRef some = add_logger(kCFRunLoopEntry | kCFRunLoopExit | kCFRunLoopAfterWaiting, "masked", kCFRunLoopDefaultMode);
    CFRunLoopTimerRef t = new_timer(now() + 0.05, 100.0, fire, NULL);
    CFRunLoopAddTimer(CFRunLoopGetCurrent(), t, kCFRunLoopDefaultMode);
    CFAbsoluteTime start = now();
    T("run: %s", run(kCFRunLoopDefaultMode, 0.2, FALSE));
    CHECK(now() - start >= 0.199);
    drop_timer(t);
    drop_observer(all);
    drop_observer(some);
}
CONF_MAIN(scenario)
