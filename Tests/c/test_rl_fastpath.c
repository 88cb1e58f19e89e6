/*
 * test_rl_fastpath — the opt-in inline fast paths (include/runloop/fastpath.h,
 * included below) read the library's hot words where the library keeps them:
 *   A. the directory is the same pointer on every call and has pages
 *      (so the header's RL_FAST_PATH_LAYOUT is the library's layout,
 *      `fastPathLayout` in FastPathAPI.swift); asked for with another
 *      layout, the library gives a directory with no pages (a caller built
 *      for another layout always calls the library);
 *   B. a source: not pending, then pending after RLRunLoopSourceSignal
 *      (not "pending and woken"), then both after
 *      RLRunLoopSourceSignalAndWakeUp, then neither once the loop has
 *      performed it;
 *   C. a loop: a wake-up pending while it runs and RLRunLoopWakeUp was
 *      called in a callout; none while it does not run;
 *   D. NULL, forged values, a handle of another kind and a released
 *      source never match (and the calls report errors, not crash);
 *   E. the inline RLRunLoopSourceSignal on a pending source does not call
 *      the library: a stale handle that reads as pending cannot exist, so
 *      this is checked by counting the library's errors for a released
 *      handle (the call goes through) against a live pending one (no call).
 * The library-side scenarios (test_rl_signal_wake, test_rl_signal_ring,
 * test_rl_errors) call the library functions; their ctest *_inline
 * variants run them through these fast paths against the same traces.
 */
#include "harness.h"

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_fastpath tests runloop-only functions"
#endif
#include <runloop/fastpath.h>

static int g_errors;
static void count_error(RLErrorCode code, const char *function, const char *message, void *info)
{
    (void)code;
    (void)function;
    (void)message;
    (void)info;
    g_errors++;
}

static RLRunLoopRef g_rl;
static RLRunLoopSourceRef g_src;
static int g_pending_inside, g_woken_inside, g_wake_pending_inside;

static void perform_check(void *info)
{
    (void)info;
    g_pending_inside = RLInternalSourceIsPending(g_src);
    RLRunLoopWakeUp(g_rl);
    g_wake_pending_inside = RLInternalLoopHasWakeUpPending(g_rl);
    RLRunLoopSourceSignalAndWakeUp(g_src);
    g_woken_inside = RLInternalSourceIsPendingAndWoken(g_src);
}

static void perform_nothing(void *info) { (void)info; }

static void scenario(void)
{
    RLSetErrorHandler(count_error, NULL);

    /* A */
    const void *d1 = RLInternalHotWordDirectory(RL_FAST_PATH_LAYOUT);
    const void *d2 = RLInternalHotWordDirectory(RL_FAST_PATH_LAYOUT);
    const void *other = RLInternalHotWordDirectory(RL_FAST_PATH_LAYOUT + 1);
    RLRunLoopRef rl = g_rl = RLRunLoopGetCurrent();
    uint64_t raw = (uint64_t)(uintptr_t)rl;
    const void *const *pages = (const void *const *)d1;
    const void *const *none = (const void *const *)other;
    TRACE("A: directory stable %s, another layout gets another %s, with no page for this loop %s (the real one has it %s)",
          yes_no(d1 != NULL && d1 == d2), yes_no(other != NULL && other != d1),
          yes_no(none[(raw >> 12) & 0x3FFF] == NULL), yes_no(pages[(raw >> 12) & 0x3FFF] != NULL));

    /* B */
    RLRunLoopSourceRef src = g_src = new_source(0, NULL, perform_nothing);
    RLRunLoopAddSource(rl, src, MODE("fast"));
    TRACE("B: new: pending %s", yes_no(RLInternalSourceIsPending(src)));
    RLRunLoopSourceSignal(src);
    TRACE("B: signalled: pending %s, pending and woken %s", yes_no(RLInternalSourceIsPending(src)),
          yes_no(RLInternalSourceIsPendingAndWoken(src)));
    RLRunLoopSourceSignalAndWakeUp(src);
    TRACE("B: signalled and woken: pending %s, pending and woken %s", yes_no(RLInternalSourceIsPending(src)),
          yes_no(RLInternalSourceIsPendingAndWoken(src)));
    RLRunLoopRunInMode(MODE("fast"), 0, false);
    TRACE("B: performed: pending %s, pending and woken %s", yes_no(RLInternalSourceIsPending(src)),
          yes_no(RLInternalSourceIsPendingAndWoken(src)));

    /* C */
    TRACE("C: not running: wake-up pending %s", yes_no(RLInternalLoopHasWakeUpPending(rl)));
    RLRunLoopSourceRef checker = new_source(0, NULL, perform_check);
    RLRunLoopAddSource(rl, checker, MODE("check"));
    RLRunLoopAddSource(rl, src, MODE("check"));
    RLRunLoopSourceSignal(checker);
    RLRunLoopRunInMode(MODE("check"), 0, false);
    TRACE("C: in a callout: source pending %s; after RLRunLoopWakeUp, wake-up pending %s; "
          "after the one call, pending and woken %s",
          yes_no(g_pending_inside), yes_no(g_wake_pending_inside), yes_no(g_woken_inside));
    TRACE("C: run over: wake-up pending %s", yes_no(RLInternalLoopHasWakeUpPending(rl)));
    RLRunLoopRunInMode(MODE("check"), 0, false);  /* performs src */

    /* D */
    static const uint64_t forged[] = { 0, 1, 0xA500000000000000ull, 0xA5FFFFFF03FFFFFFull, ~0ull };
    int matched = 0;
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        const void *h = (const void *)(uintptr_t)forged[i];
        matched += RLInternalSourceIsPending((RLRunLoopSourceRef)h) + RLInternalSourceIsPendingAndWoken((RLRunLoopSourceRef)h)
                 + RLInternalLoopHasWakeUpPending((RLRunLoopRef)h);
    }
    RLRunLoopSourceSignal(src);
    /* a loop handle where a source is expected, and the reverse */
    matched += RLInternalSourceIsPending((RLRunLoopSourceRef)(void *)rl)
             + RLInternalLoopHasWakeUpPending((RLRunLoopRef)(void *)src);
    TRACE("D: forged handles and wrong kinds matched: %d", matched);
    g_errors = 0;
    RLRunLoopSourceSignal(NULL);
    RLRunLoopWakeUp(NULL);
    RLRunLoopSourceSignalAndWakeUp(NULL);
    RLRunLoopSourceSignal((RLRunLoopSourceRef)(void *)rl);
    TRACE("D: NULL x3 and a loop as a source: errors %d", g_errors);

    /* E */
    RLRunLoopSourceRef gone = new_source(0, NULL, perform_nothing);
    RLRunLoopSourceSignal(gone);
    int live = RLInternalSourceIsPending(gone);
    g_errors = 0;
    RLRunLoopSourceSignal(gone);  /* pending: answered inline */
    int errors_live = g_errors;
    RLRunLoopSourceInvalidate(gone);
    RLRelease(gone);
    int stale = RLInternalSourceIsPending(gone);
    RLRunLoopSourceSignal(gone);  /* stale: the library reports it */
    TRACE("E: pending live source matches %s (errors %d); released: matches %s, signal reports %d error(s)",
          yes_no(live), errors_live, yes_no(stale), g_errors - errors_live);

    RLSetErrorHandler(NULL, NULL);
    RLRunLoopSourceInvalidate(checker);
    RLRelease(checker);
    RLRunLoopSourceInvalidate(src);
    RLRelease(src);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_fastpath") | harness_failures;
}
