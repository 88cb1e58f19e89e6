/* CFRunLoopIsWaiting: false when the loop is not running and inside its
 * callouts (also BeforeWaiting and AfterWaiting); true, seen from another
 * thread, while it sleeps; false again once a stop has woken it. */
#include "conf.h"

static gate_t g_sleeping = GATE_INIT;
static CFRunLoopRef g_rl;
static int g_post;

static void obs_cb(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info)
{
    T("obs %s: waiting %s", act(a), yesno(CFRunLoopIsWaiting(CFRunLoopGetCurrent())));
    if (a == kCFRunLoopBeforeWaiting && g_post) { g_post = 0; gate_post(&g_sleeping); }
}
static void fire(CFRunLoopTimerRef t, void *info) { T("timer: waiting %s", yesno(CFRunLoopIsWaiting(g_rl))); }

static void *watcher(void *arg)
{
    gate_wait(&g_sleeping);
    T("other thread: loop is asleep: %s", yesno(wait_until_waiting(g_rl)));
    CFRunLoopStop(g_rl);
    return NULL;
}

static void scenario(void)
{
    CFRunLoopRef rl = g_rl = CFRunLoopGetCurrent();
    T("not running: waiting %s", yesno(CFRunLoopIsWaiting(rl)));
    CFRunLoopSourceRef keep = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopObserverRef o = new_observer(kCFRunLoopEntry | kCFRunLoopBeforeWaiting | kCFRunLoopAfterWaiting | kCFRunLoopExit, TRUE, 0, obs_cb, NULL);
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    CFRunLoopTimerRef t = new_timer(now() + 0.02, 0, fire, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    T("A: run 0.1 s: %s", run(kCFRunLoopDefaultMode, 0.1, FALSE));
    g_post = 1;
    pthread_t th = start_thread(watcher, NULL);
    T("B: run 10 s: %s", run(kCFRunLoopDefaultMode, 10, FALSE));
    pthread_join(th, NULL);
    T("after run: waiting %s", yesno(CFRunLoopIsWaiting(rl)));
    CFRelease(t);
    drop_observer(o);
    drop_source(keep);
}
CONF_MAIN(scenario)
