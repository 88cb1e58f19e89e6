/*
 * test_rl_stall_swap — a stall report reaches only the handler whose
 * threshold it met (runloop-only, include/runloop/insight.h).
 *
 * A loop thread stalls on every pass (a repeating timer whose callout
 * sleeps 300 us) while the main thread swaps the loop's stall handler,
 * many times, between a 1 ns threshold (every step is a stall) and a
 * 1e308 s one (nothing ever is).  Each handler's info carries the
 * threshold it was installed with: a report whose elapsed time is below
 * it was decided under the other threshold and delivered after the swap.
 * None may be; the 1 ns handler must have been reported to (the swaps
 * raced real reports).  Then the same with one handler and one info for
 * both thresholds, as a program that keeps its threshold in a global
 * does: once the swap to 1e308 s has returned, no call may come (the
 * global is raised after that return, and lowered before the swap back).
 *
 * (Issue 40 reported the 1e308 s handler called once after such a swap;
 * this does not reproduce on 570b2e7, whose watchdog delivers a report
 * only if the handler that decided it is still installed.  Kept as the
 * guard of that guarantee.)
 */
#include "harness.h"

#include <stdatomic.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_stall_swap tests runloop-only functions"
#endif

typedef struct {
    double threshold;
    atomic_int reports;
    atomic_int below;   /* reports with elapsed < threshold */
    gate_t reported;    /* posted by each report */
} watcher_t;

static watcher_t g_tiny = { 1e-9, 0, 0, GATE_INIT };
static watcher_t g_huge = { 1e308, 0, 0, GATE_INIT };

static void on_stall(RLRunLoopRef rl, const RLRunLoopStall *stall, void *info)
{
    watcher_t *w = info;
    atomic_fetch_add(&w->reports, 1);
    if (stall->elapsed < w->threshold) atomic_fetch_add(&w->below, 1);
    gate_post(&w->reported);
}

static void stalling_timer(RLRunLoopTimerRef t, void *info)
{
    struct timespec ts = { 0, 300000 };
    nanosleep(&ts, NULL);
}

/* Phase 2: one handler, one info; the threshold installed, as the
 * program believes it. */
static _Atomic double g_installed;
static atomic_int g_same_reports, g_same_late;
static gate_t g_same_reported = GATE_INIT;

static void on_stall_same(RLRunLoopRef rl, const RLRunLoopStall *stall, void *info)
{
    atomic_fetch_add(&g_same_reports, 1);
    if (stall->elapsed < atomic_load(&g_installed)) atomic_fetch_add(&g_same_late, 1);
    gate_post(&g_same_reported);
}

static RLRunLoopRef g_rl;
static atomic_int g_done;
static gate_t g_running = GATE_INIT;

static void *loop_thread(void *arg)
{
    g_rl = RLRunLoopGetCurrent();
    RLRunLoopTimerRef t = new_timer(now(), 0.0001, stalling_timer, NULL);
    RLRunLoopAddTimer(g_rl, t, MODE("stalls"));
    gate_post(&g_running);
    while (!atomic_load(&g_done)) RLRunLoopRunInMode(MODE("stalls"), 1.0, false);
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    return NULL;
}

int main(void)
{
    int swaps = getenv("RL_UNDER_VALGRIND") ? 200 : 10000;
    pthread_t thread = start_thread(loop_thread, NULL);
    gate_wait(&g_running);
    RLRunLoopRef rl = (RLRunLoopRef)RLRetain(g_rl);
    for (int i = 0; i < swaps; i++) {
        RLRunLoopSetStallHandler(rl, g_tiny.threshold, on_stall, &g_tiny);
        gate_wait(&g_tiny.reported);  /* the watchdog is at work: swap now */
        RLRunLoopSetStallHandler(rl, g_huge.threshold, on_stall, &g_huge);
    }
    for (int i = 0; i < swaps; i++) {
        atomic_store(&g_installed, 1e-9);  /* lowered before the swap */
        RLRunLoopSetStallHandler(rl, 1e-9, on_stall_same, NULL);
        gate_wait(&g_same_reported);
        RLRunLoopSetStallHandler(rl, 1e308, on_stall_same, NULL);
        atomic_store(&g_installed, 1e308);  /* raised after it returned */
    }
    RLRunLoopSetStallHandler(rl, 0, NULL, NULL);
    atomic_store(&g_done, 1);
    RLRunLoopStop(rl);
    pthread_join(thread, NULL);
    RLRelease(rl);

    int tiny = atomic_load(&g_tiny.reports), huge = atomic_load(&g_huge.reports);
    fprintf(stderr, "%d swaps: 1 ns handler %d report(s), 1e308 s handler %d report(s), "
            "%d below the 1 ns threshold\n", swaps, tiny, huge, atomic_load(&g_tiny.below));
    fprintf(stderr, "one handler: %d report(s), %d after the swap to 1e308 s returned\n",
            atomic_load(&g_same_reports), atomic_load(&g_same_late));
    CHECK(tiny > 0);
    CHECK(atomic_load(&g_same_reports) >= swaps);
    CHECK(atomic_load(&g_same_late) == 0);
    CHECK(atomic_load(&g_tiny.below) == 0);
    CHECK(huge == 0);
    CHECK(atomic_load(&g_huge.below) == 0);
    return harness_failures;
}
