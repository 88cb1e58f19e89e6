/*
 * test_rl_wallclock — wall-clock steps, with no root:
 * this program defines clock_gettime, which the library's calls reach
 * first (an executable's definition interposes libc's), and shifts the
 * wall clock (CLOCK_REALTIME and its coarse variant) by g_shift seconds.
 *
 *   A  after a +1 h step, a timer for RLAbsoluteTimeGetCurrent() + 0.3
 *      fires 0.3 s later (before the fix: an hour later);
 *   B  after a -1 h step, a timer for now + 0.5 waits 0.5 s (before: at
 *      once);
 *   C  SetNextFireDate after a step means the new wall clock;
 *   D  a repeating timer scheduled before a step keeps firing on time, and
 *      its next fire date afterwards is in the new wall clock;
 *   E  repeating timers at date 0 and -inf fire at once, then every
 *      interval from creation; their next fire dates are sane (before: date
 *      0 fired at a boot-aligned phase and reported dates decades past;
 *      -inf kept reporting -inf);
 *   F  a run's timeout is monotonic: a +1 h step during a 0.3 s run does
 *      not end it early, a -1 h step does not stretch it.
 */
#include "harness.h"

#include <dlfcn.h>
#include <math.h>
#include <stdatomic.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_wallclock interposes the runloop library's clock"
#endif

static _Atomic double g_shift;   /* seconds added to the wall clock */

int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int rc = real(id, ts);
    if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        double shift = atomic_load(&g_shift);
        long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + (long long)(shift * 1e9);
        ts->tv_sec = (time_t)(ns / 1000000000LL);
        ts->tv_nsec = (long)(ns % 1000000000LL);
    }
    return rc;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const RLRunLoopMode M = MODE("wallclock");
static double g_fired_at[8];
static double g_next_date[8];
static int g_fires;
static int g_stop_after;

static void on_fire(RLRunLoopTimerRef t, void *info)
{
    if (g_fires < 8) {
        g_fired_at[g_fires] = mono();
        g_next_date[g_fires] = RLRunLoopTimerGetNextFireDate(t);
    }
    g_fires++;
    if (g_fires >= g_stop_after) RLRunLoopStop(RLRunLoopGetCurrent());
}

static RLRunLoopTimerRef timer(RLAbsoluteTime date, double interval)
{
    RLRunLoopTimerContext ctx = { 0 };
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, date, interval, 0, 0, on_fire, &ctx);
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), t, M);
    return t;
}

static void drop(RLRunLoopTimerRef t)
{
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
}

/* Runs until `fires` firings (or `limit` s); returns the seconds from
 * `start` to the first firing, -1 if none. */
static double run_until(int fires, double limit, double start)
{
    g_fires = 0;
    g_stop_after = fires;
    RLRunLoopRunInMode(M, limit, 0);
    return g_fires > 0 ? g_fired_at[0] - start : -1;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    double slack = getenv("RL_UNDER_VALGRIND") ? 1.0 : 0.15;
    /* A timer converted before any step: the library's first reading. */
    RLRunLoopTimerRef early = timer(RLAbsoluteTimeGetCurrent() + 3600, 0);

    /* A */
    atomic_store(&g_shift, 3600.0);
    double start = mono();
    RLRunLoopTimerRef a = timer(RLAbsoluteTimeGetCurrent() + 0.3, 0);
    double took = run_until(1, 2.0, start);
    printf("A: +1 h step, timer for now + 0.3 fired after %.3f s\n", took);
    CHECK(took >= 0.29 && took <= 0.3 + slack);
    drop(a);

    /* B */
    atomic_store(&g_shift, -3600.0);
    start = mono();
    RLRunLoopTimerRef b = timer(RLAbsoluteTimeGetCurrent() + 0.5, 0);
    took = run_until(1, 2.0, start);
    printf("B: -1 h step, timer for now + 0.5 fired after %.3f s\n", took);
    CHECK(took >= 0.49 && took <= 0.5 + slack);
    drop(b);

    /* C */
    RLRunLoopTimerRef c = timer(RLAbsoluteTimeGetCurrent() + 1000, 0);
    atomic_store(&g_shift, 7200.0);
    start = mono();
    RLRunLoopTimerSetNextFireDate(c, RLAbsoluteTimeGetCurrent() + 0.3);
    took = run_until(1, 2.0, start);
    printf("C: +2 h step, SetNextFireDate(now + 0.3) fired after %.3f s\n", took);
    CHECK(took >= 0.29 && took <= 0.3 + slack);
    drop(c);

    /* D */
    start = mono();
    RLRunLoopTimerRef d = timer(RLAbsoluteTimeGetCurrent() + 0.2, 0.2);
    run_until(1, 1.0, start);
    atomic_store(&g_shift, 7200.0 + 3600.0);   /* steps +1 h while the timer is scheduled */
    RLAbsoluteTime stepped_now = RLAbsoluteTimeGetCurrent();
    double stepped_at = mono() - start;
    took = run_until(2, 2.0, start);
    printf("D: step while scheduled: firings at %.3f and %.3f s (slots 0.4, 0.6), next date %+.3f s from the new now\n",
           took, g_fired_at[1] - start, g_next_date[1] - stepped_now);
    CHECK(took >= 0.39 && took <= 0.4 + slack);
    CHECK(g_fired_at[1] - start >= 0.59 && g_fired_at[1] - start <= 0.6 + slack);
    /* Inside the second callout the date is the one being fired, which the
     * first reschedule after the step computed in the new wall clock. */
    CHECK(fabs(g_next_date[1] - (stepped_now + (0.6 - stepped_at))) < 0.02 + slack);
    drop(d);

    /* E */
    for (int k = 0; k < 2; k++) {
        double date = k == 0 ? 0.0 : -INFINITY;
        start = mono();
        RLAbsoluteTime created = RLAbsoluteTimeGetCurrent();
        RLRunLoopTimerRef e = timer(date, 0.1);
        took = run_until(3, 2.0, start);
        printf("E: date %s, interval 0.1: firings at %.3f %.3f %.3f s; next dates %+.3f %+.3f from creation\n",
               k == 0 ? "0" : "-inf", took, g_fired_at[1] - start, g_fired_at[2] - start,
               g_next_date[1] - created, g_next_date[2] - created);
        CHECK(took >= 0 && took <= slack);
        CHECK(g_fired_at[1] - start >= 0.09 && g_fired_at[1] - start <= 0.1 + slack);
        CHECK(g_fired_at[2] - start >= 0.19 && g_fired_at[2] - start <= 0.2 + slack);
        CHECK(fabs(g_next_date[1] - created - 0.1) < 0.02 + slack);
        CHECK(fabs(g_next_date[2] - created - 0.2) < 0.02 + slack);
        drop(e);
    }

    /* F: steps from a timer inside the run. */
    for (int k = 0; k < 2; k++) {
        double step = k == 0 ? 3600.0 : -3600.0;
        RLRunLoopTimerRef keep = timer(RLAbsoluteTimeGetCurrent() + 100, 0);
        atomic_store(&g_shift, atomic_load(&g_shift) + step);
        start = mono();
        RLRunLoopRunResult r = RLRunLoopRunInMode(M, 0.3, 0);
        double ran = mono() - start;
        printf("F: %+.0f h step, 0.3 s run returned %d after %.3f s\n", step / 3600, (int)r, ran);
        CHECK(r == kRLRunLoopRunTimedOut);
        CHECK(ran >= 0.29 && ran <= 0.3 + slack);
        drop(keep);
    }

    drop(early);
    printf("%s\n", harness_failures ? "FAIL" : "ok");
    return harness_failures ? 1 : 0;
}
