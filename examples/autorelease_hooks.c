/*
 * autorelease_hooks — how the main thread's autorelease pool is drained.
 *
 * Apple's main loop has two observers:
 *   - order LONG_MIN (runs first) on Entry: push a pool, before any other
 *     code of the run;
 *   - order LONG_MAX (runs last) on BeforeWaiting and Exit: at
 *     BeforeWaiting pop the pool and push a fresh one (objects autoreleased
 *     during the pass are freed before the thread sleeps); at Exit pop it.
 * Ordinary observers (order 0) run between the two.  A toy pool of
 * strings stands in for Objective-C's.
 */
#include <runloop/runloop.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a toy autorelease pool: a stack of pools of strings ---------------- */
#define MAX_OBJECTS 16
static char *objects[MAX_OBJECTS];
static int object_count;
static int pool_marks[8], depth;

static void pool_push(void)
{
    pool_marks[depth++] = object_count;
    printf("  [pool] push (depth %d)\n", depth);
}

static void pool_pop(void)
{
    int mark = pool_marks[--depth];
    printf("  [pool] pop (depth %d): releasing %d object(s)\n", depth + 1, object_count - mark);
    while (object_count > mark) free(objects[--object_count]);
}

static void autorelease(const char *what)
{
    objects[object_count++] = strdup(what);
    printf("    autorelease %s\n", what);
}

/* ---- the two hooks and an ordinary observer ----------------------------- */

static void first_hook(RLRunLoopObserverRef o, RLRunLoopActivity activity, void *info)
{
    (void)o, (void)info;
    if (activity == kRLRunLoopEntry) pool_push();
}

static void last_hook(RLRunLoopObserverRef o, RLRunLoopActivity activity, void *info)
{
    (void)o, (void)info;
    if (activity == kRLRunLoopBeforeWaiting) {
        pool_pop();
        pool_push();
    } else if (activity == kRLRunLoopExit) {
        pool_pop();
    }
}

static void ordinary(RLRunLoopObserverRef o, RLRunLoopActivity activity, void *info)
{
    (void)o, (void)info;
    printf("  ordinary observer (order 0) at %s\n",
           activity == kRLRunLoopEntry ? "Entry" : activity == kRLRunLoopBeforeWaiting ? "BeforeWaiting" : "Exit");
}

/* ---- work that autoreleases --------------------------------------------- */

static void handle_event(void *info)
{
    (void)info;
    printf("  source: handling an event\n");
    autorelease("event-string");
    autorelease("temporary-buffer");
}

static void fire(RLRunLoopTimerRef timer, void *info)
{
    (void)timer, (void)info;
    printf("  timer: fired, stopping the run\n");
    autorelease("timer-string");
    RLRunLoopStop(RLRunLoopGetCurrent());
}

int main(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLOptionFlags hooks = kRLRunLoopEntry | kRLRunLoopBeforeWaiting | kRLRunLoopExit;

    /* Added in the "wrong" order on purpose: `order` decides, not addition. */
    RLRunLoopObserverRef observers[] = {
        RLRunLoopObserverCreate(NULL, hooks, 1, LONG_MAX, last_hook, NULL),
        RLRunLoopObserverCreate(NULL, hooks, 1, 0, ordinary, NULL),
        RLRunLoopObserverCreate(NULL, kRLRunLoopEntry, 1, LONG_MIN, first_hook, NULL),
    };
    for (int i = 0; i < 3; i++) RLRunLoopAddObserver(rl, observers[i], kRLRunLoopCommonModes);

    RLRunLoopSourceContext context = { .perform = handle_event };
    RLRunLoopSourceRef source = RLRunLoopSourceCreate(NULL, 0, &context);
    RLRunLoopAddSource(rl, source, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(source);
    RLRunLoopTimerRef timer = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.010, 0, 0, 0, fire, NULL);
    RLRunLoopAddTimer(rl, timer, kRLRunLoopDefaultMode);

    printf("run:\n");
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10, 0);
    printf("after the run: %d object(s) left, pool depth %d\n", object_count, depth);

    for (int i = 0; i < 3; i++) {
        RLRunLoopObserverInvalidate(observers[i]);
        RLRelease(observers[i]);
    }
    RLRunLoopSourceInvalidate(source);
    RLRelease(source);
    RLRelease(timer);
    return object_count == 0 && depth == 0 ? 0 : 1;
}
