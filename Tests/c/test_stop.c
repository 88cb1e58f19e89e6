/*
 * test_stop — RunInMode returns Stopped after RLRunLoopStop:
 *   A. Stop called from a timer callout of the running loop;
 *   B. Stop called while the loop is not running is dropped: the next run
 *      is not affected (times out);
 *   C. Stop called from another thread while the loop sleeps (the other
 *      thread waits for the BeforeWaiting notification through a gate):
 *      the loop wakes (AfterWaiting), exits and returns Stopped;
 *   D. RLRunLoopRun() (default mode, no time limit) returns after Stop.
 */
#include "harness.h"

static RLRunLoopRef g_rl;
static gate_t g_sleeping = GATE_INIT;
static int g_post_on_wait;

static void obs_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    TRACE("obs %s", activity_name(a));
    if (a == kRLRunLoopBeforeWaiting && g_post_on_wait) {
        g_post_on_wait = 0;
        gate_post(&g_sleeping);
    }
}

static void stopping_timer_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("timer fired: stop");
    RLRunLoopStop(RLRunLoopGetCurrent());
}

static void *stopper(void *arg)
{
    RLRunLoopRef rl = (RLRunLoopRef)arg;
    gate_wait(&g_sleeping);
    TRACE("other thread: stop");
    RLRunLoopStop(rl);
    return NULL;
}

static void timer_cb(RLRunLoopTimerRef t, void *info) { TRACE("timer fired"); }

static void scenario(void)
{
    RLRunLoopRef rl = g_rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef obs = new_observer(kRLRunLoopAllActivities, 1, 0, obs_cb, NULL);
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);

    TRACE("A: stop from a timer callout");
    RLRunLoopTimerRef t = new_timer(now() + 0.02, 100, stopping_timer_cb, NULL);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    TRACE("A: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 0)));
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);

    TRACE("B: stop while not running, then run 50 ms");
    RLRunLoopTimerRef keep = new_timer(now() + 100, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, keep, kRLRunLoopDefaultMode);
    RLRunLoopStop(rl);
    TRACE("B: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 0)));

    TRACE("C: stop from another thread while sleeping");
    g_post_on_wait = 1;
    pthread_t th = start_thread(stopper, (void *)RLRetain(rl));
    TRACE("C: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 0)));
    pthread_join(th, NULL);
    RLRelease(rl);

    TRACE("D: RLRunLoopRun, stopped from another thread");
    g_post_on_wait = 1;
    th = start_thread(stopper, (void *)RLRetain(rl));
    RLRunLoopRun();
    TRACE("D: RLRunLoopRun returned");
    pthread_join(th, NULL);
    RLRelease(rl);

    RLRunLoopTimerInvalidate(keep);
    RLRelease(keep);
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("stop") | harness_failures;
}
