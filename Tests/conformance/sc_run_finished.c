/* RunInMode returns Finished at once, without Entry/Exit, for a mode that
 * does not exist, a mode with only observers, a mode whose only source was
 * removed, and kCFRunLoopCommonModes; CFRunLoopRun returns at once too. */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    T("unknown mode: %s", run(CFSTR("never-used"), 1.0, FALSE));
    CFRunLoopObserverRef o = add_logger(kCFRunLoopAllActivities, "obs", CFSTR("observed"));
    T("mode with only an observer: %s", run(CFSTR("observed"), 1.0, FALSE));
    CFRunLoopSourceRef s = new_source(0, NULL, nop_perform);
    CFRunLoopAddSource(rl, s, CFSTR("observed"));
    CFRunLoopRemoveSource(rl, s, CFSTR("observed"));
    T("mode whose source was removed: %s", run(CFSTR("observed"), 1.0, FALSE));
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    T("common modes as the run mode: %s", run(kCFRunLoopCommonModes, 1.0, FALSE));
    CFRunLoopRemoveSource(rl, s, kCFRunLoopDefaultMode);
    CFRunLoopObserverRef d = add_logger(kCFRunLoopAllActivities, "default-obs", kCFRunLoopDefaultMode);
    T("CFRunLoopRun on an empty default mode");
    CFRunLoopRun();
    T("CFRunLoopRun returned");
    drop_source(s);
    drop_observer(o);
    drop_observer(d);
}
CONF_MAIN(scenario)
