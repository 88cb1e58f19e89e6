/*
 * A program outside the runloop tree, built against an *installed* runloop
 * (once through pkg-config, once through find_package(runloop)).
 * Prints a fixed transcript that Tests/consumer/check_consumer.sh compares.
 */
#include <runloop/runloop.h>

#include <stdio.h>
#include <string.h>

static int fired;

static void tick(RLRunLoopTimerRef timer, void *info)
{
    (void)timer, (void)info;
    printf("tick %d\n", ++fired);
    if (fired == 3) RLRunLoopStop(RLRunLoopGetCurrent());
}

static void watch(RLRunLoopObserverRef observer, RLRunLoopActivity activity, void *info)
{
    (void)observer, (void)info;
    if (activity == kRLRunLoopEntry) printf("entry\n");
    if (activity == kRLRunLoopExit) printf("exit\n");
}

int main(void)
{
    const char *version = RLGetVersion();
    printf("library %s, header %s: %s\n", version, RL_VERSION_STRING,
           strcmp(version, RL_VERSION_STRING) == 0 ? "match" : "MISMATCH");

    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopTimerRef timer = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent(), 0.001, 0, 0, tick, NULL);
    RLRunLoopObserverRef observer = RLRunLoopObserverCreate(NULL, kRLRunLoopEntry | kRLRunLoopExit, 1, 0, watch, NULL);
    RLRunLoopAddTimer(rl, timer, kRLRunLoopDefaultMode);
    RLRunLoopAddObserver(rl, observer, kRLRunLoopDefaultMode);

    RLRunLoopRunResult result = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10, 0);
    printf("result %s\n", result == kRLRunLoopRunStopped ? "stopped" : "UNEXPECTED");

    RLRunLoopTimerInvalidate(timer);
    RLRunLoopObserverInvalidate(observer);
    RLRelease(timer);
    RLRelease(observer);
    return result == kRLRunLoopRunStopped && strcmp(version, RL_VERSION_STRING) == 0 ? 0 : 1;
}
