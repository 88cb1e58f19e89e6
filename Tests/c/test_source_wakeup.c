/*
 * test_source_wakeup — a version-0 source cannot wake a loop by itself:
 *   A. another thread signals the source of a sleeping loop without
 *      WakeUp: nothing happens until a timer wakes the loop later; the
 *      source is performed in the pass after the timer fired.
 *   B. another thread signals and calls WakeUp: the loop wakes and
 *      performs the source at once (returnAfterSourceHandled -> HandledSource).
 *   C. WakeUp on a loop that is awake (from its BeforeSources observer)
 *      makes its next sleep return at once; three calls coalesce into one
 *      wake-up.
 */
#include "harness.h"

static gate_t g_sleeping = GATE_INIT;
static int g_post_on_wait;
static int g_wake_on_sources;
static RLRunLoopSourceRef g_src;
static int g_wake_too;

static void obs_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    TRACE("obs %s", activity_name(a));
    if (a == kRLRunLoopBeforeWaiting && g_post_on_wait) {
        g_post_on_wait = 0;
        gate_post(&g_sleeping);
    }
    if (a == kRLRunLoopBeforeSources && g_wake_on_sources) {
        g_wake_on_sources = 0;
        TRACE("WakeUp x3 from BeforeSources");
        RLRunLoopWakeUp(RLRunLoopGetCurrent());
        RLRunLoopWakeUp(RLRunLoopGetCurrent());
        RLRunLoopWakeUp(RLRunLoopGetCurrent());
    }
}

static void perform_cb(void *info) { TRACE("perform source"); }
static void timer_cb(RLRunLoopTimerRef t, void *info) { TRACE("timer fired"); }

static void *signaller(void *arg)
{
    RLRunLoopRef rl = (RLRunLoopRef)arg;
    gate_wait(&g_sleeping);
    if (g_wake_too) {
        TRACE("other thread: signal + WakeUp");
        RLRunLoopSourceSignal(g_src);
        RLRunLoopWakeUp(rl);
    } else {
        TRACE("other thread: signal only");
        RLRunLoopSourceSignal(g_src);
    }
    return NULL;
}

/* A run that ended without going to sleep never released the signaller:
 * release it now, so the test fails on its trace instead of hanging in
 * pthread_join.  (The observer ran on this thread: no race.) */
static void release_signaller(void)
{
    if (!g_post_on_wait) return;
    g_post_on_wait = 0;
    CHECK(!"the run ended without sleeping");
    gate_post(&g_sleeping);
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef obs = new_observer(kRLRunLoopAllActivities, 1, 0, obs_cb, NULL);
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    g_src = new_source(0, NULL, perform_cb);
    RLRunLoopAddSource(rl, g_src, kRLRunLoopDefaultMode);

    TRACE("A: signal without WakeUp; a timer wakes the loop 300 ms later");
    g_post_on_wait = 1;
    g_wake_too = 0;
    /* The thread is started before the timer's window opens: starting a
     * thread under valgrind can take longer than the window. */
    pthread_t th = start_thread(signaller, (void *)RLRetain(rl));
    RLAbsoluteTime start = now();
    RLRunLoopTimerRef t = new_timer(start + 0.3, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    TRACE("A: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 1)));
    CHECK(now() - start >= 0.3 - 0.01);
    release_signaller();
    pthread_join(th, NULL);
    RLRelease(rl);
    RLRelease(t);

    TRACE("B: signal + WakeUp from another thread");
    g_post_on_wait = 1;
    g_wake_too = 1;
    th = start_thread(signaller, (void *)RLRetain(rl));
    TRACE("B: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 1)));
    release_signaller();
    pthread_join(th, NULL);
    RLRelease(rl);

    TRACE("C: WakeUp while awake; run 100 ms");
    g_wake_on_sources = 1;
    TRACE("C: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.1, 0)));

    RLRunLoopSourceInvalidate(g_src);
    RLRelease(g_src);
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("source_wakeup") | harness_failures;
}
