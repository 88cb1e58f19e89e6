/*
 * test_handled_source — returnAfterSourceHandled:
 *   - a signalled version-0 source is performed, then the run returns
 *     HandledSource without sleeping (no BeforeWaiting);
 *   - a timer firing does not count: the run goes on and times out;
 *   - a performed block/function does not count either;
 *   - with returnAfterSourceHandled false, the same source is performed
 *     and the run goes on until it times out.
 */
#include "harness.h"

static void timer_cb(RLRunLoopTimerRef t, void *info) { TRACE("timer fired"); }
static void perform_cb(void *info) { TRACE("perform %s", (const char *)info); }
static void block_fn(void *info) { TRACE("block ran"); }

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef obs = activity_logger(kRLRunLoopAllActivities, "obs");
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    RLRunLoopSourceRef src = new_source(0, "src", perform_cb);
    RLRunLoopAddSource(rl, src, kRLRunLoopDefaultMode);

    TRACE("1: signalled source, returnAfterSourceHandled=true, 1 s");
    RLRunLoopSourceSignal(src);
    TRACE("1: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 1)));

    TRACE("2: timer due in 20 ms, returnAfterSourceHandled=true, 0.15 s");
    RLRunLoopTimerRef t = new_timer(now() + 0.02, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    TRACE("2: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.15, 1)));
    RLRelease(t);

    TRACE("3: queued block, returnAfterSourceHandled=true, 0.1 s");
    perform_fn(rl, kRLRunLoopDefaultMode, block_fn, NULL);
    TRACE("3: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.1, 1)));

    TRACE("4: signalled source, returnAfterSourceHandled=false, 0.1 s");
    RLRunLoopSourceSignal(src);
    TRACE("4: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.1, 0)));

    RLRunLoopSourceInvalidate(src);
    RLRelease(src);
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("handled_source") | harness_failures;
}
