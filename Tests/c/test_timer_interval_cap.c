/*
 * test_timer_interval_cap — a repeating timer's step is capped at
 * 504,911,232 s (about 16 years), as CF caps it: after a timer whose
 * interval is past that (DBL_MAX, 1e300, +inf, 1e12, 4e9, 504,911,233 s)
 * fires, its next fire date is the fire date + 504,911,232 s — a finite
 * date before the 4039289856.0 horizon, never +inf — and
 * RLRunLoopGetNextTimerFireDate reports the same; GetInterval still reports
 * the interval as given, and the timer still repeats.  Intervals up to the
 * cap (504,911,232 s, 1e8 s, 1 s) step by themselves.  (Chromium's timer
 * tests check the DBL_MAX case.)  Trace recorded from the real CF.
 */
#include "harness.h"

#include <float.h>
#include <math.h>

static int g_fired;
static void count_fire(RLRunLoopTimerRef t, void *info) { g_fired++; }

static void one(const char *label, RLTimeInterval interval)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLAbsoluteTime fire = now();
    RLRunLoopTimerRef t = new_timer(fire, interval, count_fire, NULL);
    RLRunLoopAddTimer(rl, t, MODE("cap"));
    g_fired = 0;
    RLRunLoopRunInMode(MODE("cap"), 0.05, false);
    RLAbsoluteTime next = RLRunLoopTimerGetNextFireDate(t);
    RLAbsoluteTime loop_next = RLRunLoopGetNextTimerFireDate(rl, MODE("cap"));
    int finite = isfinite(next) && next < 4039289856.0;
    TRACE("%s: fired %d, repeats %s, interval as given %s, next fire date finite %s, "
          "fire date + %.0f s, loop's next fire date the same %s",
          label, g_fired, yes_no(RLRunLoopTimerDoesRepeat(t)),
          yes_no(RLRunLoopTimerGetInterval(t) == interval || (isinf(interval) && isinf(RLRunLoopTimerGetInterval(t)))),
          yes_no(finite), finite ? (double)(long long)(next - fire + 0.5) : -1.0, yes_no(loop_next == next));
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
}

static void scenario(void)
{
    one("DBL_MAX", DBL_MAX);
    one("1e300", 1e300);
    one("+inf", INFINITY);
    one("1e12", 1e12);
    one("4e9", 4e9);
    one("504911233", 504911233.0);
    one("504911232", 504911232.0);
    one("1e8", 1e8);
    one("1", 1.0);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("timer_interval_cap") | harness_failures;
}
