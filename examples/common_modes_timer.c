/*
 * common_modes_timer — why a timer stops while a scroll view is tracking,
 * and the fix.
 *
 * While the user drags, UIKit runs the main loop in a "tracking" mode.  A
 * timer added to the default mode belongs to that mode only, so it does
 * not fire during tracking.  Mark the tracking mode common and add the
 * timer to kRLRunLoopCommonModes: it is then in every common mode (the
 * default mode is common from the start) and keeps firing.
 */
#include <runloop/runloop.h>

#include <stdio.h>

#define TRACKING "UITrackingRunLoopMode"

static void fire(RLRunLoopTimerRef timer, void *info)
{
    (void)timer;
    printf("  %s timer fired in mode %s\n", (const char *)info, RLRunLoopCopyCurrentMode(RLRunLoopGetCurrent()));
}

/* A repeating timer (every 10 ms, first due now) labelled `label`. */
static RLRunLoopTimerRef make_timer(const char *label)
{
    RLRunLoopTimerContext context = { .info = (void *)label };
    return RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent(), 0.010, 0, 0, fire, &context);
}

/* One pass of the tracking mode, without sleeping: the due timers of that
 * mode fire. */
static void track_once(const char *what)
{
    printf("%s\n", what);
    RLRunLoopRunInMode(TRACKING, 0, 0);
}

int main(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopTimerRef in_default = make_timer("default-mode");
    RLRunLoopTimerRef in_common = make_timer("common-modes");

    /* A long-lived timer keeps the tracking mode from being empty. */
    RLRunLoopTimerRef keep = RLRunLoopTimerCreate(NULL, 1e12, 0, 0, 0, fire, NULL);
    RLRunLoopAddTimer(rl, keep, TRACKING);

    RLRunLoopAddTimer(rl, in_default, kRLRunLoopDefaultMode);
    track_once("tracking, timer added to the default mode:");
    printf("  (nothing fired)\n");

    RLRunLoopAddCommonMode(rl, TRACKING);
    RLRunLoopAddTimer(rl, in_common, kRLRunLoopCommonModes);
    track_once("tracking, tracking mode made common, second timer added to the common modes:");

    printf("the common-modes timer is in: %s%s\n",
           RLRunLoopContainsTimer(rl, in_common, kRLRunLoopDefaultMode) ? "default " : "",
           RLRunLoopContainsTimer(rl, in_common, TRACKING) ? "tracking" : "");

    RLRunLoopTimerInvalidate(in_default);
    RLRunLoopTimerInvalidate(in_common);
    RLRunLoopTimerInvalidate(keep);
    RLRelease(in_default);
    RLRelease(in_common);
    RLRelease(keep);
    return 0;
}
