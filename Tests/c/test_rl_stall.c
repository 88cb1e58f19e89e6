/*
 * test_rl_stall — the stall monitor (runloop-only, include/runloop/insight.h):
 *   - a timer callout that blocks 200 ms with a 50 ms threshold is reported
 *     once, from another thread, with phase Timers, callout "timer", the
 *     timer as item, the mode, and at least 50 ms elapsed;
 *   - an observer that blocks in BeforeWaiting is reported as such;
 *   - a healthy loop (a 5 ms repeating timer, short callouts, sleeping in
 *     between) is never reported, however long it runs;
 *   - after turning the monitor off, a blocking callout is not reported.
 */
#include "harness.h"

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_stall tests runloop-only functions"
#endif

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_reports;
static RLRunLoopStall g_last;
static RLRunLoopRef g_last_rl;
static pthread_t g_loop_thread;
static int g_on_loop_thread;

static void on_stall(RLRunLoopRef rl, const RLRunLoopStall *stall, void *info)
{
    pthread_mutex_lock(&g_lock);
    g_reports++;
    g_last = *stall;
    g_last_rl = rl;
    if (pthread_equal(pthread_self(), g_loop_thread)) g_on_loop_thread++;
    pthread_mutex_unlock(&g_lock);
}

static int reports(void)
{
    pthread_mutex_lock(&g_lock);
    int n = g_reports;
    g_reports = 0;
    pthread_mutex_unlock(&g_lock);
    return n;
}

static void block_ms(int ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

static void blocking_timer(RLRunLoopTimerRef t, void *info) { block_ms(200); }
static void quick_timer(RLRunLoopTimerRef t, void *info) {}

static void blocking_observer(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) { block_ms(120); }

static void trace_report(const char *label)
{
    int n = reports();
    TRACE("%s: %d report(s); phase %s, callout %s, mode %s, on another thread: %s, elapsed >= threshold: %s",
          label, n, RLRunLoopPhaseGetName(g_last.phase), RLRunLoopCalloutKindGetName(g_last.callout),
          g_last.mode ? g_last.mode : "(none)", yes_no(!g_on_loop_thread), yes_no(g_last.elapsed >= 0.05));
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    g_loop_thread = pthread_self();
    RLRunLoopSetStallHandler(rl, 0.05, on_stall, NULL);

    /* 1. a timer callout that blocks */
    RLRunLoopTimerRef t = new_timer(now(), 0, blocking_timer, NULL);
    RLRunLoopAddTimer(rl, t, MODE("stall"));
    RLRunLoopRunInMode(MODE("stall"), 1.0, false);
    trace_report("blocking timer");
    TRACE("the item is the timer: %s; the loop is the loop: %s",
          yes_no(g_last.item == (RLTypeRef)t), yes_no(g_last_rl == rl));
    RLRelease(t);

    /* 2. an observer that blocks before waiting */
    RLRunLoopObserverRef o = new_observer(kRLRunLoopBeforeWaiting, false, 0, blocking_observer, NULL);
    RLRunLoopAddObserver(rl, o, MODE("stall2"));
    RLRunLoopTimerRef later = new_timer(now() + 0.01, 0, quick_timer, NULL);
    RLRunLoopAddTimer(rl, later, MODE("stall2"));
    RLRunLoopRunInMode(MODE("stall2"), 1.0, false);
    trace_report("blocking observer");
    RLRelease(o);
    RLRelease(later);

    /* 3. a healthy loop: 60 ticks of 5 ms, sleeping in between */
    RLRunLoopTimerRef tick = new_timer(now() + 0.005, 0.005, quick_timer, NULL);
    RLRunLoopAddTimer(rl, tick, MODE("healthy"));
    RLRunLoopRunInMode(MODE("healthy"), 0.3, false);
    TRACE("healthy loop: %d report(s)", reports());
    RLRunLoopTimerInvalidate(tick);
    RLRelease(tick);

    /* 4. off */
    RLRunLoopSetStallHandler(rl, 0, NULL, NULL);
    RLRunLoopTimerRef t2 = new_timer(now(), 0, blocking_timer, NULL);
    RLRunLoopAddTimer(rl, t2, MODE("stall"));
    RLRunLoopRunInMode(MODE("stall"), 1.0, false);
    TRACE("monitor off, blocking timer: %d report(s)", reports());
    RLRelease(t2);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_stall") | harness_failures;
}
