/* Timers due together, where the first one's callout runs the loop again
 * (a modal wait): the nested run fires the other due timers (only the
 * timer in its callout is excluded), and when the outer pass gets back to
 * them they are fired already: a one-shot timer is invalid, a repeating
 * one is scheduled at its next date, so neither fires twice. */
#include "conf.h"

static int g_repeating_fires;

static void modal_cb(CFRunLoopTimerRef t, void *info)
{
    T("first fired: runs the loop for 100 ms");
    T("first: nested run: %s", run(kCFRunLoopDefaultMode, 0.1, FALSE));
    T("first: back in its callout");
}
static void second_cb(CFRunLoopTimerRef t, void *info) { T("second fired"); }
static void repeating_cb(CFRunLoopTimerRef t, void *info) { T("repeating fired (%d)", ++g_repeating_fires); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFStringRef mode = kCFRunLoopDefaultMode;
    CFRunLoopSourceRef keep = keep_mode_alive(mode);
    CFRunLoopTimerRef modal = new_timer(now() - 0.3, 0, modal_cb, NULL);
    CFRunLoopTimerRef second = new_timer(now() - 0.2, 0, second_cb, NULL);
    CFRunLoopTimerRef repeating = new_timer(now() - 0.1, 10.0, repeating_cb, NULL);
    CFRunLoopAddTimer(rl, modal, mode);
    CFRunLoopAddTimer(rl, second, mode);
    CFRunLoopAddTimer(rl, repeating, mode);
    T("outer run 0 s: %s", run(mode, 0, FALSE));
    T("second valid: %s; repeating fires: %d", yesno(CFRunLoopTimerIsValid(second)), g_repeating_fires);
    CFRunLoopTimerInvalidate(repeating);
    CFRelease(modal);
    CFRelease(second);
    CFRelease(repeating);
    drop_source(keep);
}
CONF_MAIN(scenario)
