/* A block queued from another thread does not wake the sleeping loop: it
 * runs once a timer wakes it; followed by CFRunLoopWakeUp it runs at once. */
#include "conf.h"

static gate_t g_sleeping = GATE_INIT;
static int g_post;
static int g_wake;
static CFRunLoopRef g_rl;

static void obs_cb(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info)
{
    T("obs %s", act(a));
    if (a == kCFRunLoopBeforeWaiting && g_post) { g_post = 0; gate_post(&g_sleeping); }
}
static void fire(CFRunLoopTimerRef t, void *info) { T("timer fired"); CFRunLoopStop(CFRunLoopGetCurrent()); }

static void *performer(void *arg)
{
    gate_wait(&g_sleeping);
    T("other thread: perform%s", g_wake ? " + wake up" : " only");
    CFRunLoopPerformBlock(g_rl, kCFRunLoopDefaultMode, ^{ T("block ran"); });
    if (g_wake) CFRunLoopWakeUp(g_rl);
    return NULL;
}

static void scenario(void)
{
    CFRunLoopRef rl = g_rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopObserverRef o = new_observer(kCFRunLoopBeforeWaiting | kCFRunLoopAfterWaiting | kCFRunLoopExit, TRUE, 0, obs_cb, NULL);
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    CFAbsoluteTime due = now() + 0.3;
    CFRunLoopTimerRef t = new_timer(due, 0, fire, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    g_post = 1; g_wake = 0;
    pthread_t th = start_thread(performer, NULL);
    T("A: %s", run(kCFRunLoopDefaultMode, 5, FALSE));
    CHECK(now() >= due - 0.001); /* 1 ms: wall and monotonic clock reads */
    pthread_join(th, NULL);
    CFRelease(t);
    g_post = 1; g_wake = 1;
    th = start_thread(performer, NULL);
    T("B: %s", run(kCFRunLoopDefaultMode, 0.3, FALSE));
    pthread_join(th, NULL);
    drop_observer(o);
    drop_source(keep);
}
CONF_MAIN(scenario)
