/*
 * activity_trace — watch a run loop work.
 *
 * An observer registered for every activity prints each step of each pass:
 * Entry, BeforeTimers, BeforeSources, BeforeWaiting (about to sleep),
 * AfterWaiting (woken), Exit.  The loop has a signalled source and a timer
 * due in 10 ms, so the first pass performs the source without sleeping and
 * the second sleeps until the timer fires (and stops the run).
 */
#include <runloop/runloop.h>

#include <stdio.h>

static const char *name(RLRunLoopActivity activity)
{
    switch (activity) {
    case kRLRunLoopEntry: return "Entry";
    case kRLRunLoopBeforeTimers: return "BeforeTimers";
    case kRLRunLoopBeforeSources: return "BeforeSources";
    case kRLRunLoopBeforeWaiting: return "BeforeWaiting";
    case kRLRunLoopAfterWaiting: return "AfterWaiting";
    case kRLRunLoopExit: return "Exit";
    default: return "?";
    }
}

static void observe(RLRunLoopObserverRef observer, RLRunLoopActivity activity, void *info)
{
    (void)observer, (void)info;
    printf("observer: %s\n", name(activity));
}

static void perform(void *info) { (void)info; printf("  source performed\n"); }

static void fire(RLRunLoopTimerRef timer, void *info)
{
    (void)timer, (void)info;
    printf("  timer fired: stopping the loop\n");
    RLRunLoopStop(RLRunLoopGetCurrent());
}

int main(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();

    RLRunLoopObserverRef observer = RLRunLoopObserverCreate(NULL, kRLRunLoopAllActivities, 1, 0, observe, NULL);
    RLRunLoopAddObserver(rl, observer, kRLRunLoopDefaultMode);

    RLRunLoopSourceContext context = { .perform = perform };
    RLRunLoopSourceRef source = RLRunLoopSourceCreate(NULL, 0, &context);
    RLRunLoopAddSource(rl, source, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(source);

    /* One-shot: it leaves the mode after firing. */
    RLRunLoopTimerRef timer = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.010, 0, 0, 0, fire, NULL);
    RLRunLoopAddTimer(rl, timer, kRLRunLoopDefaultMode);

    /* Pass 1 performs the source (and does not sleep: it handled one);
     * pass 2 sleeps until the timer, which stops the run. */
    RLRunLoopRunResult result = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10, 0);
    printf("run returned %s\n", result == kRLRunLoopRunStopped ? "Stopped" : "something else");

    RLRunLoopSourceInvalidate(source);
    RLRunLoopObserverInvalidate(observer);
    RLRelease(source);
    RLRelease(timer);
    RLRelease(observer);
    return 0;
}
