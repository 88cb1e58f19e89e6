/* CFRunLoopStop from a source's perform, from an observer's BeforeWaiting
 * callout and from a performed block: each run returns Stopped. */
#include "conf.h"

static void stop_perform(void *info) { T("source performed: stop"); CFRunLoopStop(CFRunLoopGetCurrent()); }

static void obs_cb(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info)
{
    T("obs %s", act(a));
    if (a == kCFRunLoopBeforeWaiting && *(int *)info) {
        *(int *)info = 0;
        T("observer: stop");
        CFRunLoopStop(CFRunLoopGetCurrent());
    }
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    static int stop_in_observer;
    CFRunLoopObserverRef o = new_observer(kCFRunLoopAllActivities, TRUE, 0, obs_cb, &stop_in_observer);
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    CFRunLoopSourceRef s = new_source(0, NULL, stop_perform);
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    T("A: source perform stops");
    CFRunLoopSourceSignal(s);
    T("A: %s", run(kCFRunLoopDefaultMode, 5.0, FALSE));
    T("B: BeforeWaiting observer stops");
    stop_in_observer = 1;
    T("B: %s", run(kCFRunLoopDefaultMode, 5.0, FALSE));
    T("C: performed block stops");
    CFRunLoopPerformBlock(rl, kCFRunLoopDefaultMode, ^{
        T("block: stop");
        CFRunLoopStop(CFRunLoopGetCurrent());
    });
    T("C: %s", run(kCFRunLoopDefaultMode, 5.0, FALSE));
    drop_source(s);
    drop_observer(o);
}
CONF_MAIN(scenario)
