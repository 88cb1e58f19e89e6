/*
 * test_run_timeout — RunInMode(mode, seconds, ...) returns TimedOut:
 *   - seconds = 0 and seconds < 0: exactly one pass (BeforeTimers,
 *     BeforeSources) without BeforeWaiting/AfterWaiting;
 *   - seconds = 0 with a signalled source: the source is performed in that
 *     one pass, still TimedOut (returnAfterSourceHandled false);
 *   - seconds = 0 with an overdue timer;
 *   - seconds = 0.1 with nothing due: sleeps (BeforeWaiting/AfterWaiting),
 *     then TimedOut after at least 0.1 s.
 */
#include "harness.h"

static void timer_cb(RLRunLoopTimerRef t, void *info) { TRACE("timer fired (%s)", (const char *)info); }
static void perform_cb(void *info) { TRACE("perform"); }

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef obs = activity_logger(kRLRunLoopAllActivities, "obs");
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    RLRunLoopTimerRef far = new_timer(now() + 100, 0, timer_cb, "far");
    RLRunLoopAddTimer(rl, far, kRLRunLoopDefaultMode);

    TRACE("run 0 s");
    TRACE("result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0)));
    TRACE("run -1 s");
    TRACE("result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, -1, 0)));

    RLRunLoopSourceRef src = new_source(0, NULL, perform_cb);
    RLRunLoopAddSource(rl, src, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(src);
    TRACE("run 0 s with a signalled source");
    TRACE("result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0)));

    RLRunLoopTimerRef overdue = new_timer(now() - 1, 0, timer_cb, "overdue");
    RLRunLoopAddTimer(rl, overdue, kRLRunLoopDefaultMode);
    TRACE("run 0 s with an overdue one-shot timer");
    TRACE("result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0)));
    TRACE("overdue timer valid: %s", yes_no(RLRunLoopTimerIsValid(overdue)));

    TRACE("run 0.1 s with nothing due");
    RLAbsoluteTime start = now();
    TRACE("result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.1, 0)));
    CHECK(now() - start >= 0.1 - 0.001);

    RLRunLoopTimerInvalidate(overdue);
    RLRelease(overdue);
    RLRunLoopTimerInvalidate(far);
    RLRelease(far);
    RLRunLoopSourceInvalidate(src);
    RLRelease(src);
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("run_timeout") | harness_failures;
}
