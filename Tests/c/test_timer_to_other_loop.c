/*
 * test_timer_to_other_loop — a timer whose callout takes it out of its
 * loop and adds it to another thread's loop.  A one-shot timer is still
 * invalidated after its callout (CF invalidates it wherever it is then):
 * the other loop no longer holds it.  A repeating timer moves on to its
 * next fire date and is scheduled in the other loop, which fires it there.
 */
#include "harness.h"

static RLRunLoopRef g_other;
static gate_t g_ready = GATE_INIT;
static _Atomic int g_fires_there;

static void keep_cb(RLRunLoopTimerRef t, void *info) {}

static void *other_thread(void *arg)
{
    g_other = RLRunLoopGetCurrent();
    RLRetain(g_other);
    RLRunLoopTimerRef keep = new_timer(now() + 1000, 0, keep_cb, NULL);
    RLRunLoopAddTimer(g_other, keep, kRLRunLoopDefaultMode);
    gate_post(&g_ready);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10.0, 0);  /* until stopped */
    RLRunLoopTimerInvalidate(keep);
    RLRelease(keep);
    return NULL;
}

static void move_cb(RLRunLoopTimerRef t, void *info)
{
    if (RLRunLoopGetCurrent() == g_other) {
        g_fires_there++;
        return;
    }
    TRACE("%s timer fired: moves itself to the other loop", (const char *)info);
    RLRunLoopRemoveTimer(RLRunLoopGetCurrent(), t, kRLRunLoopDefaultMode);
    RLRunLoopAddTimer(g_other, t, kRLRunLoopDefaultMode);
    TRACE("  in the other loop during its callout: %s", yes_no(RLRunLoopContainsTimer(g_other, t, kRLRunLoopDefaultMode)));
}

static void scenario(void)
{
    pthread_t th = start_thread(other_thread, NULL);
    gate_wait(&g_ready);
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopTimerRef keep = new_timer(now() + 1000, 0, keep_cb, NULL);
    RLRunLoopAddTimer(rl, keep, kRLRunLoopDefaultMode);

    RLRunLoopTimerRef once = new_timer(now() - 0.1, 0, move_cb, (void *)"one-shot");
    RLRunLoopAddTimer(rl, once, kRLRunLoopDefaultMode);
    TRACE("run 0 s: %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0)));
    TRACE("one-shot: valid: %s, in the other loop: %s, in this one: %s", yes_no(RLRunLoopTimerIsValid(once)),
          yes_no(RLRunLoopContainsTimer(g_other, once, kRLRunLoopDefaultMode)),
          yes_no(RLRunLoopContainsTimer(rl, once, kRLRunLoopDefaultMode)));

    RLRunLoopTimerRef repeating = new_timer(now() - 0.1, 0.05, move_cb, (void *)"repeating");
    RLRunLoopAddTimer(rl, repeating, kRLRunLoopDefaultMode);
    TRACE("run 0 s: %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0)));
    RLAbsoluteTime ahead = RLRunLoopTimerGetNextFireDate(repeating) - now();
    TRACE("repeating: valid: %s, in the other loop: %s, next fire date 0-50 ms ahead: %s",
          yes_no(RLRunLoopTimerIsValid(repeating)),
          yes_no(RLRunLoopContainsTimer(g_other, repeating, kRLRunLoopDefaultMode)),
          yes_no(ahead > 0 && ahead <= 0.05));
    /* Its next date is 0-50 ms ahead: give it two seconds. */
    for (int i = 0; i < 200 && g_fires_there == 0; i++) sleep_s(0.01);
    TRACE("repeating: fired on the other loop's thread: %s", yes_no(g_fires_there > 0));
    RLRunLoopTimerInvalidate(repeating);

    RLRunLoopStop(g_other);
    pthread_join(th, NULL);
    RLRelease(g_other);
    RLRunLoopTimerInvalidate(keep);
    RLRelease(keep);
    RLRelease(once);
    RLRelease(repeating);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("timer_to_other_loop") | harness_failures;
}
