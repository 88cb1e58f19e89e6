/* A non-repeating observer is called once and invalidates itself: it is
 * no longer valid, no longer in its mode, and its context's release runs. */
#include "conf.h"

static const void *retain_cb(const void *info) { T("retain %s", (const char *)info); return info; }
static void release_cb(const void *info) { T("release %s", (const char *)info); }

static void obs_cb(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info)
{
    T("%s %s (valid in callout: %s)", (const char *)info, act(a), yesno(CFRunLoopObserverIsValid(o)));
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopObserverContext ctx = { 0, "once", retain_cb, release_cb, NULL };
    CFRunLoopObserverRef once = CFRunLoopObserverCreate(NULL, kCFRunLoopBeforeTimers | kCFRunLoopExit, FALSE, 0, obs_cb, &ctx);
    CFRunLoopObserverRef rep = new_observer(kCFRunLoopBeforeTimers, TRUE, 1, obs_cb, "repeating");
    T("once repeats: %s", yesno(CFRunLoopObserverDoesRepeat(once)));
    CFRunLoopAddObserver(rl, once, kCFRunLoopDefaultMode);
    CFRunLoopAddObserver(rl, rep, kCFRunLoopDefaultMode);
    T("run 30 ms: %s", run(kCFRunLoopDefaultMode, 0.03, FALSE));
    T("once valid: %s, in default: %s", yesno(CFRunLoopObserverIsValid(once)),
      yesno(CFRunLoopContainsObserver(rl, once, kCFRunLoopDefaultMode)));
    T("run 0 s: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    T("CFRelease(once)");
    CFRelease(once);
    drop_observer(rep);
    drop_source(keep);
}
CONF_MAIN(scenario)
