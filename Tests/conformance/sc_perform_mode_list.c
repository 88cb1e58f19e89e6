/* A mode list built with CFArrayCreate(..., &kCFTypeArrayCallBacks) is a
 * valid mode argument of CFRunLoopPerformBlock: the block runs once, in
 * the first listed mode that runs; unlisted modes don't run it. */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = new_source(0, NULL, nop_perform);
    CFRunLoopAddSource(rl, keep, kCFRunLoopDefaultMode);
    CFRunLoopAddSource(rl, keep, CFSTR("m1"));
    CFRunLoopAddSource(rl, keep, CFSTR("m2"));
    const void *names[2] = { CFSTR("m1"), CFSTR("m2") };
    CFArrayRef list = CFArrayCreate(kCFAllocatorDefault, names, 2, &kCFTypeArrayCallBacks);
    T("list count %ld", (long)CFArrayGetCount(list));
    CFRunLoopPerformBlock(rl, list, ^{
        CFStringRef m = CFRunLoopCopyCurrentMode(CFRunLoopGetCurrent());
        T("block 1 (m1|m2) ran in %s", mname(m));
        CFRelease(m);
    });
    CFRunLoopPerformBlock(rl, list, ^{ T("block 2 (m1|m2) ran"); });
    CFRelease(list);
    const void *with_default[2] = { CFSTR("m2"), kCFRunLoopDefaultMode };
    CFArrayRef list2 = CFArrayCreate(kCFAllocatorDefault, with_default, 2, &kCFTypeArrayCallBacks);
    CFRunLoopPerformBlock(rl, list2, ^{ T("block 3 (m2|default) ran"); });
    CFRelease(list2);
    T("default: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    T("m2: %s", run(CFSTR("m2"), 0, FALSE));
    T("m1: %s", run(CFSTR("m1"), 0, FALSE));
    drop_source(keep);
}
CONF_MAIN(scenario)
