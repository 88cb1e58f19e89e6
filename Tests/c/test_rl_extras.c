/*
 * test_rl_extras — runloop-only behaviour (no CF twin; trace hand-written
 * from include/runloop/runloop.h, not recorded from CF):
 *   - RLRunLoopSourceIsSignalled: set by Signal, cleared before perform;
 *   - RLArrayCreateWithModes + RLRunLoopPerformFunction with an array of
 *     modes: runs in any of them, not in others;
 *   - timer tolerance is stored and reported (CF on Linux ignores it);
 *     negative is stored as 0;
 *   - NULL, stale (released) and wrong-type handles are rejected with 0 and
 *     never crash;
 *   - RLGetRetainCount of fresh objects; RLRelease of an interned mode name
 *     (from CopyCurrentMode) does nothing, the name stays readable;
 *   - RLCopyDescription of a loop names its modes;
 *   - Stop and WakeUp on a retained loop whose thread has exited are
 *     harmless; it is not running.
 */
#include "harness.h"

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_extras tests runloop-only functions"
#endif

static RLRunLoopSourceRef g_src;
static void perform_cb(void *info)
{
    TRACE("perform; signalled inside perform: %s", yes_no(RLRunLoopSourceIsSignalled(g_src)));
}
static void work(void *info)
{
    RLRunLoopMode m = RLRunLoopCopyCurrentMode(RLRunLoopGetCurrent());
    TRACE("work ran in %s", mode_name(m));
    RLRelease(m);
    RLRelease(m);
    TRACE("interned mode name after two RLRelease: %s", mode_name(m));
}
static void timer_cb(RLRunLoopTimerRef t, void *info) {}

static RLRunLoopRef g_exited_loop;
static void *short_lived(void *arg)
{
    g_exited_loop = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    RLRunLoopSourceRef s = new_source(0, NULL, perform_cb);
    RLRunLoopAddSource(g_exited_loop, s, kRLRunLoopDefaultMode);
    RLRelease(s);
    return NULL;
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();

    g_src = new_source(0, NULL, perform_cb);
    RLRunLoopAddSource(rl, g_src, kRLRunLoopDefaultMode);
    TRACE("signalled after create: %s", yes_no(RLRunLoopSourceIsSignalled(g_src)));
    RLRunLoopSourceSignal(g_src);
    TRACE("signalled after Signal: %s", yes_no(RLRunLoopSourceIsSignalled(g_src)));
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    TRACE("signalled after the pass: %s", yes_no(RLRunLoopSourceIsSignalled(g_src)));

    RLRunLoopMode names[] = { "alpha", "bravo" };
    RLArrayRef arr = RLArrayCreateWithModes(names, 2);
    TRACE("array count %ld: %s %s", (long)RLArrayGetCount(arr),
          mode_name((RLRunLoopMode)RLArrayGetValueAtIndex(arr, 0)),
          mode_name((RLRunLoopMode)RLArrayGetValueAtIndex(arr, 1)));
    TRACE("array index 2 is NULL: %s", yes_no(RLArrayGetValueAtIndex(arr, 2) == NULL));
    RLRunLoopAddSource(rl, g_src, MODE("bravo"));
    RLRunLoopAddSource(rl, g_src, MODE("charlie"));
    RLRunLoopPerformFunction(rl, arr, work, NULL);
    RLRelease(arr);
    TRACE("run charlie: %s", result_name(RLRunLoopRunInMode(MODE("charlie"), 0, 0)));
    TRACE("run bravo: %s", result_name(RLRunLoopRunInMode(MODE("bravo"), 0, 0)));

    RLRunLoopTimerRef t = new_timer(now() + 100, 1.0, timer_cb, NULL);
    RLRunLoopTimerSetTolerance(t, 0.1);
    TRACE("tolerance set 0.1 -> %g", RLRunLoopTimerGetTolerance(t));
    fprintf(stderr, "(an error line about a negative tolerance is expected)\n");
    RLRunLoopTimerSetTolerance(t, -1);
    TRACE("tolerance set -1 -> %g", RLRunLoopTimerGetTolerance(t));

    fprintf(stderr, "(error lines about NULL, stale and wrong-type handles are expected)\n");
    TRACE("NULL timer valid: %s", yes_no(RLRunLoopTimerIsValid(NULL)));
    TRACE("source passed as timer valid: %s", yes_no(RLRunLoopTimerIsValid((RLRunLoopTimerRef)g_src)));
    RLRelease(t);
    TRACE("released timer valid: %s", yes_no(RLRunLoopTimerIsValid(t)));
    TRACE("released timer next fire date: %g", RLRunLoopTimerGetNextFireDate(t));
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    TRACE("released timer added: in default %s", yes_no(RLRunLoopContainsTimer(rl, t, kRLRunLoopDefaultMode)));

    RLRunLoopSourceRef fresh = new_source(0, NULL, perform_cb);
    TRACE("fresh source retain count %ld", (long)RLGetRetainCount(fresh));
    RLRetain(fresh);
    TRACE("after RLRetain %ld", (long)RLGetRetainCount(fresh));
    RLRelease(fresh);
    RLRelease(fresh);

    char *d = RLCopyDescription(rl);
    TRACE("description names the default mode: %s", yes_no(d && strstr(d, "kCFRunLoopDefaultMode")));
    TRACE("description names mode bravo: %s", yes_no(d && strstr(d, "bravo")));
    free(d);

    pthread_t th = start_thread(short_lived, NULL);
    pthread_join(th, NULL);
    RLRunLoopStop(g_exited_loop);
    RLRunLoopWakeUp(g_exited_loop);
    trace_current_mode("exited thread's loop", g_exited_loop);
    TRACE("exited thread's loop waiting: %s", yes_no(RLRunLoopIsWaiting(g_exited_loop)));
    RLRelease(g_exited_loop);

    RLRunLoopMode m = RLRunLoopCopyCurrentMode(rl);
    TRACE("current mode outside a run: %s", mode_name(m));

    RLRunLoopSourceInvalidate(g_src);
    RLRelease(g_src);
    TRACE("done");
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_extras") | harness_failures;
}
