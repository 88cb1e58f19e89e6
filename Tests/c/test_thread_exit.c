/*
 * test_thread_exit — a secondary thread's loop is torn down when the thread
 * exits, without the thread ever running it:
 *   - a source still scheduled there gets its cancel callback, on the
 *     exiting thread, with the mode name;
 *   - items the loop held only (the thread released its own references)
 *     release their context info: retains and releases balance;
 *   - a source may be in two loops at once (scheduled once per loop); the
 *     exit of one thread cancels it in that loop only;
 *   - a timer already in one loop is not added to another.
 */
#include "harness.h"

typedef struct { const char *name; int retains, releases; } counter_t;

static const void *retain_cb(const void *info) { ((counter_t *)info)->retains++; return info; }
static void release_cb(const void *info) { ((counter_t *)info)->releases++; }
static void show(counter_t *c) { TRACE("%s: retain %d release %d", c->name, c->retains, c->releases); }

static _Thread_local int t_is_worker;
static RLRunLoopRef g_scenario_rl;
static RLRunLoopSourceRef g_shared;

static const char *where(RLRunLoopRef rl)
{
    int worker = t_is_worker;
    if (rl == g_scenario_rl) return worker ? "scenario loop, on worker thread" : "scenario loop, on scenario thread";
    return worker ? "worker loop, on worker thread" : "worker loop, on scenario thread";
}

static void schedule_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode)
{
    TRACE("%s: schedule in %s (%s)", ((counter_t *)info)->name, mode_name(mode), where(rl));
}
static void cancel_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode)
{
    /* sources of one mode are cancelled in an unspecified order: sorted */
    trace_defer("%s: cancel in %s (%s)", ((counter_t *)info)->name, mode_name(mode), where(rl));
}
static void perform_cb(void *info) {}
static void timer_cb(RLRunLoopTimerRef t, void *info) {}
static void obs_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) {}

static counter_t g_src = { "source", 0, 0 };
static counter_t g_shared_c = { "shared source", 0, 0 };
static counter_t g_tim = { "timer", 0, 0 };
static counter_t g_obs = { "observer", 0, 0 };
static RLRunLoopTimerRef g_scenario_timer;

static RLRunLoopSourceRef make_source(counter_t *c)
{
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = c;
    ctx.retain = retain_cb;
    ctx.release = release_cb;
    ctx.schedule = schedule_cb;
    ctx.cancel = cancel_cb;
    ctx.perform = perform_cb;
    return RLRunLoopSourceCreate(NULL, 0, &ctx);
}

static void *worker(void *arg)
{
    t_is_worker = 1;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceRef s = make_source(&g_src);
    RLRunLoopAddSource(rl, s, MODE("worker-mode"));
    RLRelease(s);
    RLRunLoopTimerContext tctx = { 0, &g_tim, retain_cb, release_cb, NULL };
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, now() + 100, 0, 0, 0, timer_cb, &tctx);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    RLRelease(t);
    RLRunLoopObserverContext octx = { 0, &g_obs, retain_cb, release_cb, NULL };
    RLRunLoopObserverRef o = RLRunLoopObserverCreate(NULL, kRLRunLoopAllActivities, 1, 0, obs_cb, &octx);
    RLRunLoopAddObserver(rl, o, kRLRunLoopDefaultMode);
    RLRelease(o);
    RLRunLoopAddSource(rl, g_shared, MODE("worker-mode"));
    RLRunLoopAddTimer(rl, g_scenario_timer, kRLRunLoopDefaultMode);
    TRACE("worker: scenario's timer added to worker loop: %s",
          yes_no(RLRunLoopContainsTimer(rl, g_scenario_timer, kRLRunLoopDefaultMode)));
    TRACE("worker: exiting");
    return NULL;
}

static void scenario(void)
{
    RLRunLoopRef rl = g_scenario_rl = RLRunLoopGetCurrent();
    g_shared = make_source(&g_shared_c);
    RLRunLoopAddSource(rl, g_shared, kRLRunLoopDefaultMode);
    g_scenario_timer = new_timer(now() + 100, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, g_scenario_timer, kRLRunLoopDefaultMode);

    pthread_t th = start_thread(worker, NULL);
    pthread_join(th, NULL);
    trace_flush_sorted();
    TRACE("scenario: worker joined");
    show(&g_src);
    show(&g_tim);
    show(&g_obs);
    show(&g_shared_c);
    TRACE("scenario: shared source still in scenario loop: %s",
          yes_no(RLRunLoopContainsSource(rl, g_shared, kRLRunLoopDefaultMode)));
    RLRunLoopSourceInvalidate(g_shared);
    trace_flush_sorted();
    RLRelease(g_shared);
    show(&g_shared_c);
    RLRunLoopTimerInvalidate(g_scenario_timer);
    RLRelease(g_scenario_timer);
    CHECK(g_src.retains == g_src.releases);
    CHECK(g_tim.retains == g_tim.releases);
    CHECK(g_obs.retains == g_obs.releases);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("thread_exit") | harness_failures;
}
