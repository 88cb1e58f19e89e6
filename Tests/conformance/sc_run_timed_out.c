/* A mode holding a source that is never signalled: a 50 ms run sleeps and
 * returns TimedOut; a 0-second run makes one pass without sleeping and
 * returns TimedOut; a negative time limit behaves like 0. */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopSourceRef s = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopObserverRef o = add_logger(kCFRunLoopAllActivities, "obs", kCFRunLoopDefaultMode);
    CFAbsoluteTime start = now();
    T("50 ms: %s", run(kCFRunLoopDefaultMode, 0.05, FALSE));
    CHECK(now() - start >= 0.049);
    T("0 s: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    T("-1 s: %s", run(kCFRunLoopDefaultMode, -1, FALSE));
    drop_observer(o);
    drop_source(s);
}
CONF_MAIN(scenario)
