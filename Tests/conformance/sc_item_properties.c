/* Getters return what the items were created with: orders, activities,
 * repeats, intervals (negative: 0, one-shot), type ids; tolerance of a new
 * timer is 0. */
#include "conf.h"

static void scenario(void)
{
    CFRunLoopSourceRef s = new_source(-7, NULL, nop_perform);
    T("source order %ld, valid %s, type %s", (long)CFRunLoopSourceGetOrder(s), yesno(CFRunLoopSourceIsValid(s)),
      yesno(CFGetTypeID(s) == CFRunLoopSourceGetTypeID()));
    CFRunLoopObserverRef o = new_observer(kCFRunLoopBeforeTimers | kCFRunLoopExit, FALSE, 42, log_activity, NULL);
    T("observer activities %#lx, repeats %s, order %ld, type %s", (unsigned long)CFRunLoopObserverGetActivities(o),
      yesno(CFRunLoopObserverDoesRepeat(o)), (long)CFRunLoopObserverGetOrder(o),
      yesno(CFGetTypeID(o) == CFRunLoopObserverGetTypeID()));
    CFRunLoopTimerContext ctx = { 0, NULL, NULL, NULL, NULL };
    CFRunLoopTimerRef r = CFRunLoopTimerCreate(NULL, now() + 100, 2.5, 0, 9, nop_timer, &ctx);
    CFRunLoopTimerRef n = CFRunLoopTimerCreate(NULL, now() + 100, -3, 0, 0, nop_timer, &ctx);
    T("repeating timer interval %.1f repeats %s order %ld tolerance %.1f type %s", CFRunLoopTimerGetInterval(r),
      yesno(CFRunLoopTimerDoesRepeat(r)), (long)CFRunLoopTimerGetOrder(r), CFRunLoopTimerGetTolerance(r),
      yesno(CFGetTypeID(r) == CFRunLoopTimerGetTypeID()));
    T("negative interval: interval %.1f repeats %s", CFRunLoopTimerGetInterval(n), yesno(CFRunLoopTimerDoesRepeat(n)));
    CFRunLoopObserverContext oc;
    memset(&oc, 0, sizeof oc);
    CFRunLoopObserverGetContext(o, &oc);
    T("observer context info NULL: %s", yesno(oc.info == NULL));
    CFRelease(s);
    CFRelease(o);
    CFRelease(r);
    CFRelease(n);
}
CONF_MAIN(scenario)
