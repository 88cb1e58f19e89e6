/* Blocks queued with CFRunLoopPerformBlock run in FIFO order, all in one
 * pass, only when the loop runs their mode: a block for another mode
 * waits (it is not dropped), and a mode whose only content is queued
 * blocks runs one pass, sleeps and times out; the next run is Finished. */
#include "conf.h"

static void work(const char *tag)
{
    CFStringRef m = CFRunLoopCopyCurrentMode(CFRunLoopGetCurrent());
    T("block %s ran in %s", tag, mname(m));
    CFRelease(m);
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopObserverRef o = add_logger(kCFRunLoopBeforeSources | kCFRunLoopBeforeWaiting, "obs", kCFRunLoopDefaultMode);
    T("queue X for mode other, B1 B2 B3 for default");
    CFRunLoopPerformBlock(rl, CFSTR("other"), ^{ work("X"); });
    CFRunLoopPerformBlock(rl, kCFRunLoopDefaultMode, ^{ work("B1"); });
    CFRunLoopPerformBlock(rl, kCFRunLoopDefaultMode, ^{ work("B2"); });
    CFRunLoopPerformBlock(rl, kCFRunLoopDefaultMode, ^{ work("B3"); });
    T("default 20 ms: %s", run(kCFRunLoopDefaultMode, 0.02, FALSE));
    T("other 20 ms (only a queued block): %s", run(CFSTR("other"), 0.02, FALSE));
    T("other again: %s", run(CFSTR("other"), 0.02, FALSE));
    drop_observer(o);
    drop_source(keep);
}
CONF_MAIN(scenario)
