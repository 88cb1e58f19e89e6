/* A source signalled from another thread without CFRunLoopWakeUp does not
 * wake the sleeping loop: it is performed only after a timer wakes it. */
#include "conf.h"

static gate_t g_sleeping = GATE_INIT;
static int g_post = 1;

static void obs_cb(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info)
{
    T("obs %s", act(a));
    if (a == kCFRunLoopBeforeWaiting && g_post) { g_post = 0; gate_post(&g_sleeping); }
}
static void perform(void *info) { T("source performed"); }
static void fire(CFRunLoopTimerRef t, void *info) { T("timer fired"); }

static void *signaller(void *arg)
{
    gate_wait(&g_sleeping);
    T("other thread: signal only");
    CFRunLoopSourceSignal((CFRunLoopSourceRef)arg);
    return NULL;
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopObserverRef o = new_observer(kCFRunLoopAllActivities, TRUE, 0, obs_cb, NULL);
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    CFRunLoopSourceRef s = new_source(0, NULL, perform);
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    CFAbsoluteTime due = now() + 0.3;
    CFRunLoopTimerRef t = new_timer(due, 0, fire, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    pthread_t th = start_thread(signaller, (void *)s);
    T("run: %s", run(kCFRunLoopDefaultMode, 5.0, TRUE));
    CHECK(now() >= due - 0.001); /* 1 ms: wall and monotonic clock reads */
    pthread_join(th, NULL);
    CFRelease(t);
    drop_observer(o);
    drop_source(s);
}
CONF_MAIN(scenario)
