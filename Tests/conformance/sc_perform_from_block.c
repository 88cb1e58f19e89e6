/* A block queued from inside a running block does not run in the same
 * batch and does not wake the loop: it runs in the next batch, after the
 * next wake-up (here the time limit). */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopObserverRef o = add_logger(kCFRunLoopAllActivities, "obs", kCFRunLoopDefaultMode);
    CFRunLoopPerformBlock(rl, kCFRunLoopDefaultMode, ^{
        T("block 1: queues block 3");
        CFRunLoopPerformBlock(CFRunLoopGetCurrent(), kCFRunLoopDefaultMode, ^{ T("block 3"); });
    });
    CFRunLoopPerformBlock(rl, kCFRunLoopDefaultMode, ^{ T("block 2"); });
    T("run 50 ms: %s", run(kCFRunLoopDefaultMode, 0.05, FALSE));
    drop_observer(o);
    drop_source(keep);
}
CONF_MAIN(scenario)
