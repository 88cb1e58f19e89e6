/* Another thread signals a source and wakes the sleeping loop: the loop
 * wakes, performs the source in the same pass, and (returnAfterSourceHandled)
 * returns HandledSource. */
#include "conf.h"

static gate_t g_sleeping = GATE_INIT;

static void obs_cb(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info)
{
    T("obs %s", act(a));
    if (a == kCFRunLoopBeforeWaiting) gate_post(&g_sleeping);
}
static void perform(void *info) { T("source performed"); }

static CFRunLoopRef g_rl;
static void *signaller(void *arg)
{
    CFRunLoopSourceRef s = (CFRunLoopSourceRef)arg;
    gate_wait(&g_sleeping);
    T("other thread: signal + wake up");
    CFRunLoopSourceSignal(s);
    CFRunLoopWakeUp(g_rl);
    return NULL;
}

static void scenario(void)
{
    CFRunLoopRef rl = g_rl = CFRunLoopGetCurrent();
    CFRunLoopObserverRef o = new_observer(kCFRunLoopAllActivities, TRUE, 0, obs_cb, NULL);
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    CFRunLoopSourceRef s = new_source(0, NULL, perform);
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    pthread_t th = start_thread(signaller, (void *)s);
    T("run: %s", run(kCFRunLoopDefaultMode, 10.0, TRUE));
    pthread_join(th, NULL);
    drop_observer(o);
    drop_source(s);
}
CONF_MAIN(scenario)
