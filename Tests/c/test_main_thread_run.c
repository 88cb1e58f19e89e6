/*
 * test_main_thread_run — the main loop, run on the main thread, by a
 * program that links no libdispatch (under runloop: only -lrunloop).  CF's
 * main loop serves the dispatch main queue in its common modes, so those
 * are never empty, and runloop's main loop behaves the same whether or not
 * the process has libdispatch:
 *   - the default mode with no item, or after its only timer fired, runs
 *     until its time is up: TimedOut, not Finished (a 0 s run too);
 *   - a mode that is not common is empty as on any thread: Finished;
 *   - a mode made common that does not exist yet is not run (Finished);
 *     once a timer made it, it is never empty (TimedOut);
 *   - kRLRunLoopCommonModes is not a mode to run: Finished;
 *   - a handled source still returns HandledSource.
 * Trace recorded from the real CF (which always has libdispatch); the
 * ctest variant test_main_thread_run_dispatch runs the same program with
 * libdispatch preloaded and must give the same trace.
 */
#include "harness.h"

#ifndef RL_TEST_AGAINST_CF
#include <dlfcn.h>
#endif

static int g_fired;
static void count_fire(RLRunLoopTimerRef t, void *info) { g_fired++; }
static void nop_perform(void *info) {}

/* Runs `mode` for `seconds` with a one-shot timer due now, if `timer`;
 * traces the result and checks that a TimedOut run took its time. */
static void run_with(const char *label, RLRunLoopMode mode, int timer, double seconds)
{
    RLRunLoopTimerRef t = NULL;
    g_fired = 0;
    if (timer) {
        t = new_timer(now(), 0, count_fire, NULL);
        RLRunLoopAddTimer(RLRunLoopGetCurrent(), t, mode);
    }
    RLAbsoluteTime start = now();
    RLRunLoopRunResult r = RLRunLoopRunInMode(mode, seconds, false);
    double took = now() - start;
    TRACE("%s: %s, timer fired %d time(s)", label, result_name(r), g_fired);
    if (r == kRLRunLoopRunTimedOut) CHECK(took >= seconds * 0.9);
    if (t) {
        RLRunLoopTimerInvalidate(t);
        RLRelease(t);
    }
}

int main(void)
{
#ifndef RL_TEST_AGAINST_CF
    /* The same trace with or without libdispatch in the process.  ctest
     * says which case a run is: RL_EXPECT_DISPATCH=0 (the library alone),
     * =1 (test_main_thread_run_dispatch preloads it).  Unset (memcheck,
     * ASan against a SwiftPM-built library, which brings libdispatch with
     * the Swift runtime): either. */
    const char *expect = getenv("RL_EXPECT_DISPATCH");
    if (expect) CHECK((dlsym(RTLD_DEFAULT, "_dispatch_get_main_queue_handle_4CF") != NULL) == (atoi(expect) == 1));
#endif
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    TRACE("on the main loop: %s", yes_no(rl == RLRunLoopGetMain()));

    run_with("default, nothing", kRLRunLoopDefaultMode, 0, 0.05);
    run_with("default, one timer", kRLRunLoopDefaultMode, 1, 0.05);
    run_with("default, nothing, 0 s", kRLRunLoopDefaultMode, 0, 0);
    run_with("private, nothing", MODE("private"), 0, 0.05);
    run_with("private, one timer", MODE("private"), 1, 0.05);

    RLRunLoopAddCommonMode(rl, MODE("added-common"));
    run_with("added common mode, nothing", MODE("added-common"), 0, 0.05);
    run_with("added common mode, one timer", MODE("added-common"), 1, 0.05);
    run_with("added common mode, after its timer", MODE("added-common"), 0, 0.05);
    run_with("kRLRunLoopCommonModes", kRLRunLoopCommonModes, 0, 0.05);

    RLRunLoopSourceRef s = new_source(0, NULL, nop_perform);
    RLRunLoopAddSource(rl, s, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(s);
    TRACE("default, signalled source, return after handled: %s",
          result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, true)));
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    run_with("default, after the source is gone", kRLRunLoopDefaultMode, 0, 0.05);
    return trace_check("main_thread_run") | harness_failures;
}
