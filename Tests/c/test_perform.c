/*
 * test_perform — functions/blocks queued with perform (CFRunLoopPerformBlock
 * under CF, RLRunLoopPerformFunction under runloop):
 *   A. run only when the loop runs a matching mode; they wait (are not
 *      dropped) while other modes run; a mode whose only content is queued
 *      work is run (not Finished at once);
 *   B. run in FIFO order, all in the same pass;
 *   C. work queued for kRLRunLoopCommonModes runs in a mode marked common,
 *      not in a mode that is not common;
 *   D. queuing work from another thread does not wake a sleeping loop: it
 *      runs once something else (a timer) wakes it; with WakeUp it runs at
 *      once;
 *   E. work queued from inside a performed function runs later in the same
 *      run, not inside the current batch.
 */
#include "harness.h"

static gate_t g_sleeping = GATE_INIT;
static int g_post_on_wait;
static int g_wake_too;

static void obs_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    if (info) TRACE("obs %s", activity_name(a));
    if (a == kRLRunLoopBeforeWaiting && g_post_on_wait) {
        g_post_on_wait = 0;
        gate_post(&g_sleeping);
    }
}

static void work(void *info)
{
    RLRunLoopMode m = RLRunLoopCopyCurrentMode(RLRunLoopGetCurrent());
    TRACE("work %s ran in %s", (const char *)info, mode_name(m));
    if (m) RLRelease(m);
}

static void requeue(void *info)
{
    TRACE("work E1 ran; queues E2");
    perform_fn(RLRunLoopGetCurrent(), kRLRunLoopDefaultMode, work, "E2");
}

static void timer_cb(RLRunLoopTimerRef t, void *info) { TRACE("timer fired"); }
static void perform_cb(void *info) {}

static void *performer(void *arg)
{
    RLRunLoopRef rl = (RLRunLoopRef)arg;
    gate_wait(&g_sleeping);
    if (g_wake_too) {
        TRACE("other thread: perform + WakeUp");
        perform_fn(rl, kRLRunLoopDefaultMode, work, "D2");
        RLRunLoopWakeUp(rl);
    } else {
        TRACE("other thread: perform without WakeUp");
        perform_fn(rl, kRLRunLoopDefaultMode, work, "D1");
    }
    return NULL;
}

static const char *run(RLRunLoopMode mode, double s)
{
    return result_name(RLRunLoopRunInMode(mode, s, 0));
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceRef keep = new_source(0, NULL, perform_cb);
    RLRunLoopAddSource(rl, keep, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, keep, MODE("notcommon"));

    TRACE("A: queue A for mode other; run default");
    perform_fn(rl, MODE("other"), work, "A");
    TRACE("A: default: %s", run(kRLRunLoopDefaultMode, 0.02));
    TRACE("A: run other (only queued work in it)");
    TRACE("A: other: %s", run(MODE("other"), 0.02));
    TRACE("A: other again: %s", run(MODE("other"), 0.02));

    TRACE("B: queue B1 B2 B3 for default");
    perform_fn(rl, kRLRunLoopDefaultMode, work, "B1");
    perform_fn(rl, kRLRunLoopDefaultMode, work, "B2");
    perform_fn(rl, kRLRunLoopDefaultMode, work, "B3");
    TRACE("B: default: %s", run(kRLRunLoopDefaultMode, 0));

    TRACE("C: queue C for common modes; tracking is common, notcommon is not");
    RLRunLoopAddCommonMode(rl, MODE("tracking"));
    RLRunLoopAddSource(rl, keep, MODE("tracking"));
    perform_fn(rl, kRLRunLoopCommonModes, work, "C");
    TRACE("C: notcommon: %s", run(MODE("notcommon"), 0));
    TRACE("C: tracking: %s", run(MODE("tracking"), 0));

    TRACE("D: queue from another thread while the loop sleeps");
    RLRunLoopObserverRef obs = new_observer(kRLRunLoopBeforeWaiting | kRLRunLoopAfterWaiting, 1, 0, obs_cb, "obs");
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    RLRunLoopTimerRef t = new_timer(now() + 0.3, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    g_post_on_wait = 1;
    g_wake_too = 0;
    pthread_t th = start_thread(performer, (void *)RLRetain(rl));
    RLAbsoluteTime start = now();
    TRACE("D: run 0.5 s, returnAfterSourceHandled");
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.5, 1);
    TRACE("D: result %s", result_name(r));
    CHECK(now() - start >= 0.3 - 0.01);
    pthread_join(th, NULL);
    RLRelease(rl);
    RLRelease(t);
    g_post_on_wait = 1;
    g_wake_too = 1;
    th = start_thread(performer, (void *)RLRetain(rl));
    TRACE("D: run 0.1 s");
    TRACE("D: result %s", run(kRLRunLoopDefaultMode, 0.1));
    pthread_join(th, NULL);
    RLRelease(rl);
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);

    TRACE("E: E1 queues E2");
    obs = new_observer(kRLRunLoopAllActivities, 1, 0, obs_cb, "obs");
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    perform_fn(rl, kRLRunLoopDefaultMode, requeue, NULL);
    perform_fn(rl, kRLRunLoopDefaultMode, work, "E1b");
    TRACE("E: result %s", run(kRLRunLoopDefaultMode, 0.02));
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);

    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("perform") | harness_failures;
}
