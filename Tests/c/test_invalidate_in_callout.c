/*
 * test_invalidate_in_callout — any item may be invalidated from inside any
 * callout, including its own:
 *   A. a repeating timer invalidates itself: fires once, then invalid; the
 *      mode is empty -> Finished;
 *   B. a repeating observer invalidates itself: called once;
 *   C. a source invalidates itself in its perform: its cancel callback runs
 *      (with the mode), it is invalid, a later signal does nothing;
 *   D. two timers due at the same date, each invalidating the other:
 *      exactly one of them fires;
 *   E. an observer invalidates the next observer of the same activity: the
 *      second is not called;
 *   F. a source invalidates another source signalled for the same pass
 *      (higher order): the second is not performed.
 */
#include "harness.h"

static RLRunLoopTimerRef g_t1, g_t2;
static RLRunLoopObserverRef g_o2;
static RLRunLoopSourceRef g_s2;

static void self_timer_cb(RLRunLoopTimerRef t, void *info)
{
    TRACE("A: timer fired; invalidates itself");
    RLRunLoopTimerInvalidate(t);
    TRACE("A: timer valid inside its callout after invalidate: %s", yes_no(RLRunLoopTimerIsValid(t)));
}

static void self_obs_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    TRACE("B: observer %s; invalidates itself", activity_name(a));
    RLRunLoopObserverInvalidate(o);
}

static void cancel_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode)
{
    TRACE("%s: cancel in %s", (const char *)info, mode_name(mode));
}

static RLRunLoopSourceRef g_self_src;
static void self_src_perform(void *info)
{
    TRACE("C: perform; invalidates itself");
    RLRunLoopSourceInvalidate(g_self_src);
    TRACE("C: source valid: %s", yes_no(RLRunLoopSourceIsValid(g_self_src)));
}

static int g_pair_fires;
static void pair_timer_cb(RLRunLoopTimerRef t, void *info)
{
    /* which of the two fires first is not specified (CF converts each fire
     * date to its clock at creation, so equal dates are not equal there) */
    RLRunLoopTimerRef other = (t == g_t1) ? g_t2 : g_t1;
    g_pair_fires++;
    TRACE("D: a timer fired; invalidates the other");
    RLRunLoopTimerInvalidate(other);
}

static void e_obs1_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    TRACE("E: observer 1 %s; invalidates observer 2", activity_name(a));
    RLRunLoopObserverInvalidate(g_o2);
}

static void f_perform1(void *info)
{
    TRACE("F: source 1 perform; invalidates source 2");
    RLRunLoopSourceInvalidate(g_s2);
}

static void perform_cb(void *info) { TRACE("%s perform", (const char *)info); }
static void timer_cb(RLRunLoopTimerRef t, void *info) {}

/* A duration of the scenario: x5 under valgrind, where a pass on a loaded
 * machine can outlast these windows (the trace is the same). */
static double T(double seconds) { return getenv("RL_UNDER_VALGRIND") ? 5 * seconds : seconds; }

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopTimerRef keep = new_timer(now() + 100, 0, timer_cb, NULL);

    /* A */
    RLRunLoopTimerRef t = new_timer(now() + T(0.02), T(0.02), self_timer_cb, NULL);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    TRACE("A: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, T(0.2), 0)));
    TRACE("A: timer valid: %s", yes_no(RLRunLoopTimerIsValid(t)));
    RLRelease(t);

    /* B */
    RLRunLoopAddTimer(rl, keep, kRLRunLoopDefaultMode);
    RLRunLoopObserverRef o = new_observer(kRLRunLoopBeforeTimers, 1, 0, self_obs_cb, NULL);
    RLRunLoopAddObserver(rl, o, kRLRunLoopDefaultMode);
    TRACE("B: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, T(0.05), 0)));
    TRACE("B: observer valid: %s", yes_no(RLRunLoopObserverIsValid(o)));
    RLRelease(o);

    /* C */
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = "C";
    ctx.cancel = cancel_cb;
    ctx.perform = self_src_perform;
    g_self_src = RLRunLoopSourceCreate(NULL, 0, &ctx);
    RLRunLoopAddSource(rl, g_self_src, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(g_self_src);
    TRACE("C: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, T(0.05), 0)));
    RLRunLoopSourceSignal(g_self_src);
    TRACE("C: signalled again; result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, T(0.05), 0)));
    TRACE("C: in default mode: %s", yes_no(RLRunLoopContainsSource(rl, g_self_src, kRLRunLoopDefaultMode)));
    RLRelease(g_self_src);

    /* D */
    RLAbsoluteTime when = now() + T(0.03);
    g_t1 = new_timer(when, 0, pair_timer_cb, "added-first");
    g_t2 = new_timer(when, 0, pair_timer_cb, "added-second");
    RLRunLoopAddTimer(rl, g_t1, kRLRunLoopDefaultMode);
    RLRunLoopAddTimer(rl, g_t2, kRLRunLoopDefaultMode);
    TRACE("D: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, T(0.1), 0)));
    TRACE("D: firings %d; valid: %s %s", g_pair_fires, yes_no(RLRunLoopTimerIsValid(g_t1)),
          yes_no(RLRunLoopTimerIsValid(g_t2)));
    RLRelease(g_t1);
    RLRelease(g_t2);

    /* E */
    RLRunLoopObserverRef o1 = new_observer(kRLRunLoopEntry, 1, 0, e_obs1_cb, NULL);
    g_o2 = activity_logger(kRLRunLoopEntry, "E: observer 2");
    RLRunLoopAddObserver(rl, o1, kRLRunLoopDefaultMode);
    RLRunLoopAddObserver(rl, g_o2, kRLRunLoopDefaultMode);
    TRACE("E: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0)));
    RLRunLoopObserverInvalidate(o1);
    RLRelease(o1);
    RLRelease(g_o2);

    /* F */
    RLRunLoopSourceRef s1 = new_source(0, NULL, f_perform1);
    memset(&ctx, 0, sizeof ctx);
    ctx.info = "F: source 2";
    ctx.cancel = cancel_cb;
    ctx.perform = perform_cb;
    g_s2 = RLRunLoopSourceCreate(NULL, 1, &ctx);
    RLRunLoopAddSource(rl, s1, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, g_s2, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(s1);
    RLRunLoopSourceSignal(g_s2);
    TRACE("F: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0)));
    RLRunLoopSourceInvalidate(s1);
    RLRelease(s1);
    RLRelease(g_s2);

    RLRunLoopTimerInvalidate(keep);
    RLRelease(keep);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("invalidate_in_callout") | harness_failures;
}
