/* A block queued for kCFRunLoopCommonModes runs in the first common mode
 * that runs (not in a mode that is not common), once. */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = new_source(0, NULL, nop_perform);
    CFRunLoopAddSource(rl, keep, CFSTR("plain"));
    CFRunLoopAddSource(rl, keep, CFSTR("tracking"));
    CFRunLoopAddSource(rl, keep, kCFRunLoopDefaultMode);
    CFRunLoopAddCommonMode(rl, CFSTR("tracking"));
    CFRunLoopPerformBlock(rl, kCFRunLoopCommonModes, ^{
        CFStringRef m = CFRunLoopCopyCurrentMode(CFRunLoopGetCurrent());
        T("common block ran in %s", mname(m));
        CFRelease(m);
    });
    T("plain: %s", run(CFSTR("plain"), 0, FALSE));
    T("tracking: %s", run(CFSTR("tracking"), 0, FALSE));
    T("default: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    drop_source(keep);
}
CONF_MAIN(scenario)
