/*
 * test_wallclock — timers across wall-clock steps,
 * checked against CoreFoundation: test_rl_wallclock's question, asked so
 * that the same program builds against CF and its trace is CF's.  The
 * test interposes clock_gettime (and gettimeofday, which CF uses): the
 * wall clock (CLOCK_REALTIME) reads shifted by an offset the scenario sets,
 * like a clock stepped by NTP or by hand, with no root needed; the
 * monotonic clock is the real one.  Times in the trace are yes/no bounds.
 *   0. the library reads the wall clock through the interposer;
 *   A. a +1 h step, then a timer for now + 0.3 s: fires after 0.3 s (not
 *      an hour late);
 *   B. a -1 h step, then now + 0.5 s: fires after 0.5 s (not at once);
 *   C. SetNextFireDate(now + 0.3 s) after a +1 h and after a -1 h step;
 *   D. a timer scheduled before a step (+1 h, then -1 h) keeps its
 *      monotonic deadline: it fires on time and reports the date it was
 *      given;
 *   E. a repeating timer (0.2 s) at fire date 0 reports 0 until it fires,
 *      fires in the first pass, then every 0.2 s from its creation, and
 *      reports those dates;
 *   F. the same at fire date -inf;
 *   G. a repeating timer whose callout steps the clock +1 h keeps its
 *      rhythm and reports its next dates in the new time;
 *   H. RunInMode's timeout is monotonic: a run of 0.5 s across a +1 h or a
 *      -1 h step times out after 0.5 s.
 * The trace was recorded from CF (Tests/c/build_against_cf.sh --record
 * test_wallclock) and runloop gives the same.
 */
#include "harness.h"

#include <dlfcn.h>
#include <math.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * The interposed clocks
 * ---------------------------------------------------------------------- */

static _Atomic long long wall_shift_ns;   /* added to CLOCK_REALTIME */
static atomic_long wall_reads;            /* CLOCK_REALTIME reads seen */

static int real_clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    return real ? real(id, ts) : (int)syscall(SYS_clock_gettime, id, ts);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    int rc = real_clock_gettime(id, ts);
    if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        atomic_fetch_add(&wall_reads, 1);
        long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + atomic_load(&wall_shift_ns);
        ts->tv_sec = (time_t)(ns / 1000000000LL);
        ts->tv_nsec = (long)(ns % 1000000000LL);
    }
    return rc;
}

int gettimeofday(struct timeval *tv, void *tz)
{
    (void)tz;
    struct timespec ts;
    int rc = clock_gettime(CLOCK_REALTIME, &ts);
    if (rc == 0) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return rc;
}

/* Sets the wall clock to real time + `seconds`. */
static void set_wall_shift(double seconds) { atomic_store(&wall_shift_ns, (long long)(seconds * 1e9)); }
static void step_wall(double seconds) { atomic_fetch_add(&wall_shift_ns, (long long)(seconds * 1e9)); }

static double mono(void)
{
    struct timespec ts;
    real_clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------
 * Scenarios
 * ---------------------------------------------------------------------- */

#define M MODE("wallclock")

static int near(double a, double b, double within) { return h_fabs(a - b) < within; }

/* A one-shot timer's callout: records when it fired (monotonic). */
static double fired_at;
static void record_cb(RLRunLoopTimerRef t, void *info) { fired_at = mono(); }

/* Runs mode M up to 2 s (real time) with `t` as its only timer: the run is
 * Finished once the one-shot fired.  Traces the result and whether it fired
 * no sooner than `after` seconds from `from` (monotonic). */
static void run_one_shot(const char *label, RLRunLoopTimerRef t, double from, double after)
{
    fired_at = 0;
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), t, M);
    RLRunLoopRunResult r = RLRunLoopRunInMode(M, 2.0, 0);
    TRACE("%s: run %s", label, result_name(r));
    TRACE("%s: fired, not before %.1f s: %s", label, after, yes_no(fired_at > 0 && fired_at - from >= after - 0.002));
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
}

static void part0_interposer(void)
{
    long reads = atomic_load(&wall_reads);
    RLAbsoluteTime before = now();
    step_wall(10);
    RLAbsoluteTime after = now();
    set_wall_shift(0);
    TRACE("0: the library reads the shifted wall clock: %s",
          yes_no(atomic_load(&wall_reads) > reads && near(after - before, 10, 0.5)));
    /* A timer made now (an engine converting through one early reading of
     * both clocks would take it here, before any step). */
    RLRunLoopTimerRef t = new_timer(now() + 1, 0, record_cb, NULL);
    RLRelease(t);
}

static void partA_step_forward(void)
{
    set_wall_shift(3600);
    double start = mono();
    RLAbsoluteTime date = now() + 0.3;
    RLRunLoopTimerRef t = new_timer(date, 0, record_cb, NULL);
    TRACE("A: +1 h step, timer for now + 0.3 s reads back its date: %s",
          yes_no(RLRunLoopTimerGetNextFireDate(t) == date));
    run_one_shot("A", t, start, 0.3);
}

static void partB_step_back(void)
{
    set_wall_shift(-3600);
    double start = mono();
    RLRunLoopTimerRef t = new_timer(now() + 0.5, 0, record_cb, NULL);
    TRACE("B: -1 h step, timer for now + 0.5 s");
    run_one_shot("B", t, start, 0.5);
}

static void partC_set_next(double step, const char *label)
{
    set_wall_shift(0);
    RLRunLoopTimerRef t = new_timer(now() + 100, 0, record_cb, NULL);
    step_wall(step);
    double start = mono();
    RLAbsoluteTime date = now() + 0.3;
    RLRunLoopTimerSetNextFireDate(t, date);
    TRACE("%s: SetNextFireDate(now + 0.3 s) after the step reads back: %s", label,
          yes_no(RLRunLoopTimerGetNextFireDate(t) == date));
    run_one_shot(label, t, start, 0.3);
}

/* D: the step happens in a timer's callout while another timer waits. */
static RLRunLoopTimerRef d_waiting;
static RLAbsoluteTime d_date;
static void d_step_cb(RLRunLoopTimerRef t, void *info)
{
    step_wall(*(double *)info);
    TRACE("D: stepped %+.0f s; the waiting timer still reports its date: %s", *(double *)info,
          yes_no(RLRunLoopTimerGetNextFireDate(d_waiting) == d_date));
}

static void partD_scheduled_before(double step)
{
    set_wall_shift(0);
    double start = mono();
    d_date = now() + 0.4;
    d_waiting = new_timer(d_date, 0, record_cb, NULL);
    RLRunLoopTimerRef stepper = new_timer(now() + 0.1, 0, d_step_cb, &step);
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), stepper, M);
    run_one_shot("D", d_waiting, start, 0.4);
    RLRelease(stepper);
}

/* E, F: a repeating timer created with a date in the past. */
typedef struct {
    const char *label;
    double created_mono;
    RLAbsoluteTime created_wall;
    int fires;
} repeating_t;

/* Whether `date` is a 0.2 s slot after `base`, `first` slots at least
 * (a late loop may skip slots, never fire early). */
static int on_grid(RLAbsoluteTime date, RLAbsoluteTime base, int first)
{
    double slots = (date - base) / 0.2;
    return isfinite(slots) && slots > first - 0.05 && near(slots, (double)(long long)(slots + 0.5), 0.05);
}

static void repeating_cb(RLRunLoopTimerRef t, void *info)
{
    repeating_t *r = info;
    r->fires++;
    if (r->fires == 1) return;  /* in the first pass: traced by the scenario */
    RLAbsoluteTime date = RLRunLoopTimerGetNextFireDate(t);
    double slot = (date - r->created_wall) / 0.2;
    TRACE("%s: fire %d reports a date on the 0.2 s grid from creation: %s", r->label, r->fires,
          yes_no(on_grid(date, r->created_wall, r->fires - 1)));
    TRACE("%s: fire %d not before that date: %s", r->label, r->fires,
          yes_no(isfinite(slot) && mono() - r->created_mono >= slot * 0.2 - 0.002));
    if (r->fires == 3) RLRunLoopStop(RLRunLoopGetCurrent());
}

static void repeating_from(const char *label, RLAbsoluteTime date)
{
    set_wall_shift(0);
    repeating_t r = {label, mono(), now(), 0};
    RLRunLoopTimerContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = &r;
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, date, 0.2, 0, 0, repeating_cb, &ctx);
    RLAbsoluteTime reported = RLRunLoopTimerGetNextFireDate(t);
    TRACE("%s: before it fires, reports the date given: %s", label,
          yes_no(reported == date || (isnan(reported) && isnan(date))));
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), t, M);
    RLRunLoopRunInMode(M, 0, 0);
    TRACE("%s: fired in the first pass: %s", label, yes_no(r.fires == 1));
    RLAbsoluteTime next = RLRunLoopTimerGetNextFireDate(t);
    TRACE("%s: then reports creation + 0.2 s: %s", label, yes_no(near(next, r.created_wall + 0.2, 0.02)));
    TRACE("%s: run %s", label, result_name(RLRunLoopRunInMode(M, 5.0, 0)));
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
}

/* G: a repeating timer that steps the clock in its first callout. */
static double g_created;
static int g_fires;
static void g_cb(RLRunLoopTimerRef t, void *info)
{
    g_fires++;
    if (g_fires == 1) {
        step_wall(3600);
        TRACE("G: fire 1 steps the wall clock +1 h");
        return;
    }
    double late = now() - RLRunLoopTimerGetNextFireDate(t);
    TRACE("G: fire %d reports its date in the new time: %s", g_fires, yes_no(late >= -0.002 && late < 0.15));
    TRACE("G: fire %d keeps the 0.2 s rhythm: %s", g_fires, yes_no(mono() - g_created >= 0.2 * g_fires - 0.002));
    if (g_fires == 3) RLRunLoopStop(RLRunLoopGetCurrent());
}

static void partG_repeating_across_step(void)
{
    set_wall_shift(0);
    g_fires = 0;
    g_created = mono();
    RLRunLoopTimerRef t = new_timer(now() + 0.2, 0.2, g_cb, NULL);
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), t, M);
    TRACE("G: run %s", result_name(RLRunLoopRunInMode(M, 5.0, 0)));
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
}

/* H: the run's own timeout across a step made by a timer's callout. */
static void h_step_cb(RLRunLoopTimerRef t, void *info) { step_wall(*(double *)info); }
static void h_guard_cb(RLRunLoopTimerRef t, void *info) { RLRunLoopStop(RLRunLoopGetCurrent()); }
static void noop_perform(void *info) {}

static void partH_run_timeout(double step, const char *label)
{
    set_wall_shift(0);
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceRef keep = new_source(0, NULL, noop_perform);  /* never signalled */
    RLRunLoopTimerRef stepper = new_timer(now() + 0.1, 0, h_step_cb, &step);
    RLRunLoopTimerRef guard = new_timer(now() + 1.5, 0, h_guard_cb, NULL);  /* ends a run that forgot its timeout */
    RLRunLoopAddSource(rl, keep, M);
    RLRunLoopAddTimer(rl, stepper, M);
    RLRunLoopAddTimer(rl, guard, M);
    double start = mono();
    RLRunLoopRunResult r = RLRunLoopRunInMode(M, 0.5, 0);
    TRACE("%s: run of 0.5 s across the step: %s, not before 0.5 s: %s", label, result_name(r),
          yes_no(mono() - start >= 0.5 - 0.002));
    RLRunLoopTimerInvalidate(guard);
    RLRunLoopSourceInvalidate(keep);
    RLRelease(stepper);
    RLRelease(guard);
    RLRelease(keep);
}

static void scenario(void)
{
    part0_interposer();
    partA_step_forward();
    partB_step_back();
    partC_set_next(3600, "C +1 h");
    partC_set_next(-3600, "C -1 h");
    partD_scheduled_before(3600);
    partD_scheduled_before(-3600);
    repeating_from("E date 0", 0);
    repeating_from("F date -inf", -INFINITY);
    partG_repeating_across_step();
    partH_run_timeout(3600, "H +1 h");
    partH_run_timeout(-3600, "H -1 h");
    set_wall_shift(0);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("wallclock") | harness_failures;
}
