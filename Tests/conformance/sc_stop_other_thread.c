/* Another thread stops the loop while it sleeps: the loop wakes
 * (AfterWaiting), exits and RunInMode returns Stopped; CFRunLoopRun
 * returns after a stop from another thread too. */
#include "conf.h"

static gate_t g_sleeping = GATE_INIT;
static int g_post;

static void obs_cb(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info)
{
    T("obs %s", act(a));
    if (a == kCFRunLoopBeforeWaiting && g_post) { g_post = 0; gate_post(&g_sleeping); }
}

static void *stopper(void *arg)
{
    gate_wait(&g_sleeping);
    T("other thread: stop");
    CFRunLoopStop((CFRunLoopRef)arg);
    return NULL;
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef s = keep_mode_alive(kCFRunLoopDefaultMode);
    CFRunLoopObserverRef o = new_observer(kCFRunLoopAllActivities, TRUE, 0, obs_cb, NULL);
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    g_post = 1;
    pthread_t th = start_thread(stopper, (void *)rl);
    T("RunInMode: %s", run(kCFRunLoopDefaultMode, 10.0, FALSE));
    pthread_join(th, NULL);
    g_post = 1;
    th = start_thread(stopper, (void *)rl);
    CFRunLoopRun();
    T("CFRunLoopRun returned");
    pthread_join(th, NULL);
    drop_observer(o);
    drop_source(s);
}
CONF_MAIN(scenario)
