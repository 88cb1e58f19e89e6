/*
 * test_timer_burst_order — 1,200 one-shot timers added in shuffled order
 * with distinct fire dates in the near future, then all due at once: one
 * pass fires them in fire-date order, whatever order they were added in
 * (the engine sorts a burst's due list: MallocList.sort, an introsort, for
 * a list this long).  The earliest timer's callout invalidates one later
 * timer and moves another past the burst: each is checked again at its
 * turn, so neither fires (CF's __CFRunLoopDoTimer does the same).
 */
#include "harness.h"

#include <stdint.h>

enum { N = 1200, INVALIDATED = 600, MOVED = 900 };

static RLRunLoopTimerRef timers[N];   /* timers[k]: the k-th fire date */
static int fired_order[N];
static int fired;

static void fire_cb(RLRunLoopTimerRef t, void *info)
{
    int k = (int)(intptr_t)info;
    if (fired < N) fired_order[fired] = k;
    fired++;
    if (k == 0) {
        RLRunLoopTimerInvalidate(timers[INVALIDATED]);
        RLRunLoopTimerSetNextFireDate(timers[MOVED], now() + 1000);
    }
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopMode mode = kRLRunLoopDefaultMode;
    int perm[N];
    for (int i = 0; i < N; i++) perm[i] = i;
    uint64_t s = 0x9E3779B97F4A7C15u;
    for (int i = N; i > 1; i--) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        int j = (int)((s >> 33) % (uint64_t)i);
        int tmp = perm[i - 1]; perm[i - 1] = perm[j]; perm[j] = tmp;
    }
    /* 100 µs apart, the first 0.3 s ahead: all in the future when added. */
    double base = now() + 0.3;
    for (int i = 0; i < N; i++) {
        int k = perm[i];
        timers[k] = new_timer(base + k * 1e-4, 0, fire_cb, (void *)(intptr_t)k);
        RLRunLoopAddTimer(rl, timers[k], mode);
    }
    double all_due = base + N * 1e-4 + 0.05;
    while (now() < all_due) sleep_s(all_due - now());
    TRACE("run 0 s: %s", result_name(RLRunLoopRunInMode(mode, 0, 0)));
    int in_order = 1, skipped_right = 1;
    for (int i = 1; i < fired && i < N; i++) in_order &= fired_order[i] > fired_order[i - 1];
    for (int i = 0; i < fired && i < N; i++) skipped_right &= fired_order[i] != INVALIDATED && fired_order[i] != MOVED;
    TRACE("fired %d of %d, in fire-date order: %s", fired, N, yes_no(in_order));
    TRACE("the invalidated and the moved timer skipped: %s", yes_no(skipped_right));
    TRACE("moved timer valid: %s, the rest invalid: %s", yes_no(RLRunLoopTimerIsValid(timers[MOVED])),
          yes_no(!RLRunLoopTimerIsValid(timers[0]) && !RLRunLoopTimerIsValid(timers[N - 1])));
    RLRunLoopTimerInvalidate(timers[MOVED]);
    for (int k = 0; k < N; k++) RLRelease(timers[k]);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("timer_burst_order") | harness_failures;
}
