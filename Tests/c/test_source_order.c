/*
 * test_source_order — how a pass performs signalled version-0 sources:
 *   A. lower order first; equal orders in the order of their FIRST signal
 *      (not of creation; signalling again does not move a source back);
 *      a source signalled three times before a pass is performed once.
 *   B. a source signalled during a perform (even one with a lower order,
 *      or the performing source itself) is performed in the next pass, not
 *      in the current one.
 */
#include "harness.h"

static RLRunLoopSourceRef g_x, g_y, g_z;
static int g_x_count;

static void perform_cb(void *info) { TRACE("perform %s", (const char *)info); }

static void perform_x(void *info)
{
    TRACE("perform x (order 5)");
    if (g_x_count++ == 0) {
        TRACE("x signals y (order 0), z (order 9) and itself");
        RLRunLoopSourceSignal(g_y);
        RLRunLoopSourceSignal(g_z);
        RLRunLoopSourceSignal(g_x);
    }
}

/* 0.05 s; x10 under valgrind, where a pass on a loaded machine can take
 * longer and the run ended before its second pass (same trace). */
static double run_seconds(void) { return getenv("RL_UNDER_VALGRIND") ? 0.5 : 0.05; }

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef obs = activity_logger(kRLRunLoopEntry | kRLRunLoopBeforeSources |
                                               kRLRunLoopBeforeWaiting | kRLRunLoopExit, "obs");
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);

    TRACE("A: create a(2) b(1) c(1) d(0); signal a a a, c, b, d, c, b");
    RLRunLoopSourceRef a = new_source(2, "a (order 2)", perform_cb);
    RLRunLoopSourceRef b = new_source(1, "b (order 1)", perform_cb);
    RLRunLoopSourceRef c = new_source(1, "c (order 1)", perform_cb);
    RLRunLoopSourceRef d = new_source(0, "d (order 0)", perform_cb);
    RLRunLoopAddSource(rl, a, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, b, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, c, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, d, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(a);
    RLRunLoopSourceSignal(a);
    RLRunLoopSourceSignal(a);
    /* the clock must move between signals for "first signal" to be ordered */
    sleep_s(0.001);
    RLRunLoopSourceSignal(c);
    sleep_s(0.001);
    RLRunLoopSourceSignal(b);
    sleep_s(0.001);
    RLRunLoopSourceSignal(d);
    sleep_s(0.001);
    RLRunLoopSourceSignal(c);
    RLRunLoopSourceSignal(b);
    TRACE("A: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, run_seconds(), 0)));

    TRACE("B: signal x; x's perform signals others");
    g_x = new_source(5, NULL, perform_x);
    g_y = new_source(0, "y (order 0)", perform_cb);
    g_z = new_source(9, "z (order 9)", perform_cb);
    RLRunLoopAddSource(rl, g_x, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, g_y, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, g_z, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(g_x);
    TRACE("B: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, run_seconds(), 0)));

    RLRunLoopSourceRef all[] = { a, b, c, d, g_x, g_y, g_z };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        RLRunLoopSourceInvalidate(all[i]);
        RLRelease(all[i]);
    }
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("source_order") | harness_failures;
}
