/* returnAfterSourceHandled: with TRUE a run returns HandledSource right
 * after the pass that performed a source; with FALSE it keeps running until
 * the time limit.  A timer firing is not a handled source. */
#include "conf.h"

static void perform(void *info) { T("source %s performed", (const char *)info); }
static void fire(CFRunLoopTimerRef t, void *info) { T("timer fired"); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopObserverRef o = add_logger(kCFRunLoopEntry | kCFRunLoopExit | kCFRunLoopBeforeWaiting, "obs", kCFRunLoopDefaultMode);
    CFRunLoopSourceRef s = new_source(0, "s", perform);
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    T("A: signal, run 1 s returning after a source");
    CFRunLoopSourceSignal(s);
    T("A: %s", run(kCFRunLoopDefaultMode, 1.0, TRUE));
    T("B: signal, run 50 ms not returning after a source");
    CFRunLoopSourceSignal(s);
    T("B: %s", run(kCFRunLoopDefaultMode, 0.05, FALSE));
    T("C: a timer fires during a 150 ms run returning after a source");
    CFRunLoopTimerRef t = new_timer(now() + 0.03, 0, fire, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    T("C: %s", run(kCFRunLoopDefaultMode, 0.15, TRUE));
    CFRelease(t);
    T("D: signal, 0 s run returning after a source");
    CFRunLoopSourceSignal(s);
    T("D: %s", run(kCFRunLoopDefaultMode, 0, TRUE));
    drop_source(s);
    drop_observer(o);
}
CONF_MAIN(scenario)
