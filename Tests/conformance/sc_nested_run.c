/* A timer callout runs the loop again in another mode (a nested run):
 * CopyCurrentMode names the innermost mode, observers of each mode see
 * their own run's Entry/Exit, the nested run's result is its own, and the
 * outer run goes on afterwards. */
#include "conf.h"

static void inner_fire(CFRunLoopTimerRef t, void *info) { T("inner timer fired"); T_current_mode("inner timer"); }

static void outer_fire(CFRunLoopTimerRef t, void *info)
{
    T_current_mode("outer timer, before nested run");
    CFRunLoopTimerRef it = new_timer(now() + 0.02, 0, inner_fire, NULL);
    CFRunLoopAddTimer(CFRunLoopGetCurrent(), it, CFSTR("inner"));
    T("nested run in inner: %s", run(CFSTR("inner"), 1.0, FALSE));
    T("nested run in default (same mode, 0 s): %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    T_current_mode("outer timer, after nested runs");
    CFRelease(it);
    CFRunLoopStop(CFRunLoopGetCurrent());
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopObserverRef od = add_logger(kCFRunLoopEntry | kCFRunLoopExit, "default-obs", kCFRunLoopDefaultMode);
    CFRunLoopObserverRef oi = add_logger(kCFRunLoopEntry | kCFRunLoopExit, "inner-obs", CFSTR("inner"));
    CFRunLoopTimerRef t = new_timer(now() + 0.02, 0, outer_fire, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    T_current_mode("before run");
    T("outer run: %s", run(kCFRunLoopDefaultMode, 5, FALSE));
    T_current_mode("after run");
    CFRelease(t);
    drop_observer(od);
    drop_observer(oi);
}
CONF_MAIN(scenario)
