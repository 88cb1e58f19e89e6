/*
 * test_timer_skip — a repeating timer keeps its original schedule
 * (first + k * interval).  Its first callout overruns by 2.5 intervals: the
 * missed slots are skipped, not fired in a burst; the next firing happens
 * on the next slot of the original grid (not "callout end + interval"),
 * and the fire date after that is on the grid too.  Inside a callout,
 * GetNextFireDate is still the date being fired (CF reschedules after the
 * callout returns).  Only counts and
 * booleans are traced; timing checks are lower bounds.
 */
#include "harness.h"

#define INTERVAL 0.05
static RLAbsoluteTime g_first;
static int g_fires;
static RLAbsoluteTime g_second_at;

static int on_grid(RLAbsoluteTime d, long *slot)
{
    double k = (d - g_first) / INTERVAL;
    long r = (long)(k + 0.5);
    if (slot) *slot = r;
    return h_fabs(k - (double)r) < 0.02; /* within 1 ms */
}

static void timer_cb(RLRunLoopTimerRef t, void *info)
{
    g_fires++;
    RLAbsoluteTime next = RLRunLoopTimerGetNextFireDate(t);
    long slot = -1;
    int grid = on_grid(next, &slot);
    TRACE("firing %d: next fire date inside callout is on grid: %s", g_fires, yes_no(grid));
    if (g_fires == 1) {
        /* CF reschedules after the callout: inside it, the date is the one being fired */
        TRACE("firing 1: next fire date inside callout is slot 0: %s", yes_no(grid && slot == 0));
        TRACE("firing 1: overrun 2.5 intervals");
        sleep_s(2.5 * INTERVAL);
    } else {
        g_second_at = now();
        RLRunLoopStop(RLRunLoopGetCurrent());
    }
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    g_first = now() + INTERVAL;
    RLRunLoopTimerRef t = new_timer(g_first, INTERVAL, timer_cb, NULL);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    TRACE("result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 2.0, 0)));
    TRACE("firings: %d", g_fires);
    TRACE("second firing not before slot 3 (no burst): %s",
          yes_no(g_second_at >= g_first + 3 * INTERVAL - 0.001));
    long slot = 0;
    RLAbsoluteTime next = RLRunLoopTimerGetNextFireDate(t);
    int grid = on_grid(next, &slot);
    TRACE("next fire date on the original grid: %s", yes_no(grid));
    TRACE("next fire date in the future of the second firing: %s", yes_no(next > g_second_at));
    TRACE("next fire date slot >= 4: %s", yes_no(slot >= 4));
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("timer_skip") | harness_failures;
}
