/* CFRunLoopStop on a loop that is not running is dropped: the next run
 * times out instead of returning Stopped. */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef s = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopStop(rl);
    T("after a stop while not running, 50 ms: %s", run(kCFRunLoopDefaultMode, 0.05, FALSE));
    CFRunLoopStop(rl);
    CFRunLoopStop(rl);
    T("after two stops, 0 s: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    drop_source(s);
}
CONF_MAIN(scenario)
