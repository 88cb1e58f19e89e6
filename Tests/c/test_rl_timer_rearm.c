/*
 * test_rl_timer_rearm — a run limit left armed by an earlier run never
 * wakes a later run (runloop-only: CF has no timerfd).  A run that ends
 * before its 50 ms limit leaves the timerfd armed for that limit (the
 * poller re-arms only when a wait needs an earlier moment); the next run
 * has no limit and no timer, so the stale expiry must be absorbed inside
 * the wait: its observer sees exactly one wake-up, the one another
 * thread's RLRunLoopStop makes at 200 ms.
 */
#include "harness.h"

static int g_after_waiting;
static void count_wake(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o; (void)a; (void)info;
    g_after_waiting++;
}

static void perform_nothing(void *info) { (void)info; }

static void *stopper(void *arg)
{
    sleep_s(0.2);
    RLRunLoopStop((RLRunLoopRef)arg);
    return NULL;
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceContext ctx = {0};
    ctx.perform = perform_nothing;
    RLRunLoopSourceRef src = RLRunLoopSourceCreate(NULL, 0, &ctx);
    RLRunLoopAddSource(rl, src, kRLRunLoopDefaultMode);

    /* 1: handled at once, well before its 50 ms limit */
    RLRunLoopSourceSignal(src);
    CHECK(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, true) == kRLRunLoopRunHandledSource);

    /* 2: no limit, no timer; only the stop wakes it */
    RLRunLoopObserverRef obs = RLRunLoopObserverCreate(NULL, kRLRunLoopAfterWaiting, true, 0, count_wake, NULL);
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    pthread_t t = start_thread(stopper, (void *)RLRetain(rl));
    double start = now();
    CHECK(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1e12, false) == kRLRunLoopRunStopped);
    double took = now() - start;
    pthread_join(t, NULL);
    RLRelease(rl);
    CHECK(took >= 0.15);
    CHECK(g_after_waiting == 1);
    if (g_after_waiting != 1) fprintf(stderr, "woke %d times\n", g_after_waiting);

    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
    RLRunLoopSourceInvalidate(src);
    RLRelease(src);
}

int main(void)
{
    run_on_thread(scenario);
    return harness_failures;
}
