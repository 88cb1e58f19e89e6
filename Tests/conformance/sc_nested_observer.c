/* An observer whose callout runs the loop (nested, same mode) is not
 * called again by that nested run; other observers are.  Stop inside the
 * nested run stops only the nested run. */
#include "conf.h"

static int g_nest = 1;
static CFRunLoopSourceRef g_s;

static void nesting_cb(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info)
{
    T("nesting observer %s", act(a));
    if (a == kCFRunLoopBeforeSources && g_nest) {
        g_nest = 0;
        CFRunLoopSourceSignal(g_s);
        T("nested run: %s", run(kCFRunLoopDefaultMode, 1.0, FALSE));
    }
}
static void perform(void *info) { T("source performed: stop"); CFRunLoopStop(CFRunLoopGetCurrent()); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    g_s = new_source(0, NULL, perform);
    CFRunLoopAddSource(rl, g_s, kCFRunLoopDefaultMode);
    CFRunLoopObserverRef n = new_observer(kCFRunLoopEntry | kCFRunLoopBeforeSources | kCFRunLoopExit, TRUE, 0, nesting_cb, NULL);
    CFRunLoopObserverRef other = add_logger(kCFRunLoopEntry | kCFRunLoopBeforeSources | kCFRunLoopExit, "other", kCFRunLoopDefaultMode);
    CFRunLoopAddObserver(rl, n, kCFRunLoopDefaultMode);
    T("outer run 0 s: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    drop_observer(n);
    drop_observer(other);
    drop_source(g_s);
}
CONF_MAIN(scenario)
