/* A mode made common before any item exists receives every item added to
 * kCFRunLoopCommonModes afterwards; CopyAllModes lists it; a mode that is
 * not common does not receive them. */
#include "conf.h"

static void perform(void *info)
{
    CFStringRef m = CFRunLoopCopyCurrentMode(CFRunLoopGetCurrent());
    T("source performed in %s", mname(m));
    CFRelease(m);
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopAddCommonMode(rl, CFSTR("modal"));
    T_all_modes("after AddCommonMode(modal)", rl);
    CFRunLoopSourceRef s = new_source(0, NULL, perform);
    CFRunLoopAddSource(rl, s, kCFRunLoopCommonModes);
    T("source in modal: %s, in plain: %s", yesno(CFRunLoopContainsSource(rl, s, CFSTR("modal"))),
      yesno(CFRunLoopContainsSource(rl, s, CFSTR("plain"))));
    CFRunLoopSourceSignal(s);
    T("plain: %s", run(CFSTR("plain"), 0, TRUE));
    T("modal: %s", run(CFSTR("modal"), 0, TRUE));
    CFRunLoopSourceSignal(s);
    T("default: %s", run(kCFRunLoopDefaultMode, 0, TRUE));
    T_all_modes("end", rl);
    drop_source(s);
}
CONF_MAIN(scenario)
