/* A timer or observer created with a NULL callout is an object (CF makes
 * placeholders: keep-alive timers, observers reserved for later): it can be
 * added, it fires or is notified for nothing, a one-shot timer still
 * invalidates itself after its fire date, and its context is retained and
 * released as usual. */
#include "conf.h"

static int g_retains, g_releases;
static const void *count_retain(const void *info) { g_retains++; return info; }
static void count_release(const void *info) { g_releases++; }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopTimerContext tctx = { 0, "timer", count_retain, count_release, NULL };
    CFRunLoopTimerRef once = CFRunLoopTimerCreate(NULL, now() + 0.02, 0, 0, 0, NULL, &tctx);
    CFRunLoopTimerRef every = CFRunLoopTimerCreate(NULL, now() + 0.02, 0.05, 0, 0, NULL, NULL);
    CFRunLoopObserverContext octx = { 0, "observer", count_retain, count_release, NULL };
    CFRunLoopObserverRef obs = CFRunLoopObserverCreate(NULL, kCFRunLoopAllActivities, TRUE, 0, NULL, &octx);
    CFRunLoopObserverRef one_shot = CFRunLoopObserverCreate(NULL, kCFRunLoopEntry, FALSE, 0, NULL, NULL);
    T("created: one-shot timer %s, repeating timer %s, observer %s, one-shot observer %s",
      yesno(once != NULL), yesno(every != NULL), yesno(obs != NULL), yesno(one_shot != NULL));
    if (!once || !every || !obs || !one_shot) return;
    T("retains after creation: %d", g_retains);
    CFRunLoopAddTimer(rl, once, kCFRunLoopDefaultMode);
    CFRunLoopAddTimer(rl, every, kCFRunLoopDefaultMode);
    CFRunLoopAddObserver(rl, obs, kCFRunLoopDefaultMode);
    CFRunLoopAddObserver(rl, one_shot, kCFRunLoopDefaultMode);
    T("in the mode: %s %s %s %s", yesno(CFRunLoopContainsTimer(rl, once, kCFRunLoopDefaultMode)),
      yesno(CFRunLoopContainsTimer(rl, every, kCFRunLoopDefaultMode)),
      yesno(CFRunLoopContainsObserver(rl, obs, kCFRunLoopDefaultMode)),
      yesno(CFRunLoopContainsObserver(rl, one_shot, kCFRunLoopDefaultMode)));
    T("run 0.3 s: %s", run(kCFRunLoopDefaultMode, 0.3, FALSE));
    T("after the run: one-shot timer valid %s, repeating timer valid %s, observer valid %s, one-shot observer valid %s",
      yesno(CFRunLoopTimerIsValid(once)), yesno(CFRunLoopTimerIsValid(every)), yesno(CFRunLoopObserverIsValid(obs)),
      yesno(CFRunLoopObserverIsValid(one_shot)));
    T("one-shot timer still in the mode: %s", yesno(CFRunLoopContainsTimer(rl, once, kCFRunLoopDefaultMode)));
    drop_timer(every);
    drop_observer(obs);
    CFRelease(once);
    CFRelease(one_shot);
    T("retains %d, releases %d", g_retains, g_releases);
}
CONF_MAIN(scenario)
