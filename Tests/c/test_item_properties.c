/*
 * test_item_properties — what the getters of each item report:
 * source order, validity and context; observer activities, repeats,
 * order; timer interval (negative = one-shot, reported as CF stores it),
 * repeats, order, initial tolerance 0; type ids of each object.
 */
#include "harness.h"

static void perform_cb(void *info) {}
static void timer_cb(RLRunLoopTimerRef t, void *info) {}
static void obs_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) {}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    static int tag;

    RLRunLoopSourceRef s = new_source(-7, &tag, perform_cb);
    TRACE("source order %ld valid %s", (long)RLRunLoopSourceGetOrder(s), yes_no(RLRunLoopSourceIsValid(s)));
    RLRunLoopSourceContext sc;
    memset(&sc, 0xff, sizeof sc);
    sc.version = 0; /* CF reads the caller's version to know how much to copy */
    RLRunLoopSourceGetContext(s, &sc);
    TRACE("source context: version %ld info ours %s perform ours %s retain NULL %s",
          (long)sc.version, yes_no(sc.info == &tag), yes_no(sc.perform == perform_cb), yes_no(sc.retain == NULL));
    RLRunLoopSourceInvalidate(s);
    TRACE("source valid after invalidate %s, order %ld", yes_no(RLRunLoopSourceIsValid(s)),
          (long)RLRunLoopSourceGetOrder(s));

    RLRunLoopObserverRef o = new_observer(kRLRunLoopBeforeWaiting | kRLRunLoopExit, 0, 42, obs_cb, &tag);
    TRACE("observer activities 0x%lx repeats %s order %ld valid %s",
          (unsigned long)RLRunLoopObserverGetActivities(o), yes_no(RLRunLoopObserverDoesRepeat(o)),
          (long)RLRunLoopObserverGetOrder(o), yes_no(RLRunLoopObserverIsValid(o)));
    RLRunLoopObserverContext oc;
    memset(&oc, 0xff, sizeof oc);
    RLRunLoopObserverGetContext(o, &oc);
    TRACE("observer context: version %ld info ours %s", (long)oc.version, yes_no(oc.info == &tag));
    RLRunLoopObserverRef all = new_observer(kRLRunLoopAllActivities, 1, 0, obs_cb, NULL);
    TRACE("all-activities observer activities 0x%lx", (unsigned long)RLRunLoopObserverGetActivities(all));

    RLRunLoopTimerRef t1 = new_timer(now() + 100, 0.5, timer_cb, &tag);
    RLRunLoopTimerRef t0 = new_timer(now() + 100, 0, timer_cb, NULL);
    RLRunLoopTimerRef tn = new_timer(now() + 100, -2, timer_cb, NULL);
    TRACE("timer interval 0.5: interval %g repeats %s order %ld", RLRunLoopTimerGetInterval(t1),
          yes_no(RLRunLoopTimerDoesRepeat(t1)), (long)RLRunLoopTimerGetOrder(t1));
    TRACE("timer interval 0: interval %g repeats %s", RLRunLoopTimerGetInterval(t0), yes_no(RLRunLoopTimerDoesRepeat(t0)));
    TRACE("timer interval -2: interval %g repeats %s", RLRunLoopTimerGetInterval(tn), yes_no(RLRunLoopTimerDoesRepeat(tn)));
    RLRunLoopTimerContext tc;
    memset(&tc, 0xff, sizeof tc);
    RLRunLoopTimerGetContext(t1, &tc);
    TRACE("timer context: version %ld info ours %s", (long)tc.version, yes_no(tc.info == &tag));
    /* Tolerance set/get is runloop-only: CF on Linux ignores SetTolerance
     * (always reports 0); see test_rl_extras.c and CF_NOTES.md. */
    TRACE("timer tolerance initially %g", RLRunLoopTimerGetTolerance(t1));

    TRACE("type ids: loop %s source %s observer %s timer %s distinct %s",
          yes_no(RLGetTypeID(rl) == RLRunLoopGetTypeID()),
          yes_no(RLGetTypeID(s) == RLRunLoopSourceGetTypeID()),
          yes_no(RLGetTypeID(o) == RLRunLoopObserverGetTypeID()),
          yes_no(RLGetTypeID(t1) == RLRunLoopTimerGetTypeID()),
          yes_no(RLRunLoopGetTypeID() != RLRunLoopSourceGetTypeID() &&
                 RLRunLoopSourceGetTypeID() != RLRunLoopObserverGetTypeID() &&
                 RLRunLoopObserverGetTypeID() != RLRunLoopTimerGetTypeID()));
    RLArrayRef modes = RLRunLoopCopyAllModes(rl);
    TRACE("CopyAllModes type is array: %s", yes_no(RLGetTypeID(modes) == RLArrayGetTypeID()));
    RLRelease(modes);

    RLRunLoopTimerInvalidate(t1);
    TRACE("timer valid after invalidate %s", yes_no(RLRunLoopTimerIsValid(t1)));
    RLRelease(t1);
    RLRelease(t0);
    RLRelease(tn);
    RLRelease(o);
    RLRelease(all);
    RLRelease(s);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("item_properties") | harness_failures;
}
