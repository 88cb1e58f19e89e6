/* A timer or observer belongs to one loop: adding it to another thread's
 * loop does nothing (CF is silent; runloop also prints an error line on
 * stderr, which the comparison ignores); the first loop still fires it. */
#include "conf.h"

static CFRunLoopTimerRef g_t;
static CFRunLoopObserverRef g_o;

static void fire(CFRunLoopTimerRef t, void *info) { T("timer fired on the scenario loop"); CFRunLoopStop(CFRunLoopGetCurrent()); }

static void *worker(void *arg)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopAddTimer(rl, g_t, kCFRunLoopDefaultMode);
    CFRunLoopAddObserver(rl, g_o, kCFRunLoopDefaultMode);
    T("worker loop holds the timer: %s, the observer: %s", yesno(CFRunLoopContainsTimer(rl, g_t, kCFRunLoopDefaultMode)),
      yesno(CFRunLoopContainsObserver(rl, g_o, kCFRunLoopDefaultMode)));
    return NULL;
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    g_t = new_timer(now() + 0.05, 0, fire, NULL);
    g_o = new_observer(kCFRunLoopEntry, TRUE, 0, log_activity, "obs");
    CFRunLoopAddTimer(rl, g_t, kCFRunLoopDefaultMode);
    CFRunLoopAddObserver(rl, g_o, kCFRunLoopDefaultMode);
    pthread_t th = start_thread(worker, NULL);
    pthread_join(th, NULL);
    T("run: %s", run(kCFRunLoopDefaultMode, 5, FALSE));
    CFRelease(g_t);
    drop_observer(g_o);
}
CONF_MAIN(scenario)
