/* When a secondary thread exits, its loop is torn down without ever having
 * run: each source still scheduled is cancelled on the exiting thread with
 * its mode name (a source shared with another loop only in the exiting
 * loop), and the items only that loop held release their context info. */
#include "conf.h"

typedef struct { const char *name; int retains, releases; } counter_t;
static const void *retain_cb(const void *info) { ((counter_t *)info)->retains++; return info; }
static void release_cb(const void *info) { ((counter_t *)info)->releases++; }
static void show(counter_t *c) { T("%s: retain %d release %d", c->name, c->retains, c->releases); }

static _Thread_local int t_worker;
static CFRunLoopRef g_scenario_rl;
static counter_t g_src = { "source", 0, 0 }, g_shared_c = { "shared source", 0, 0 };
static counter_t g_tim = { "timer", 0, 0 }, g_obs = { "observer", 0, 0 };
static CFRunLoopSourceRef g_shared;

static void sched(void *info, CFRunLoopRef rl, CFStringRef mode)
{
    T("%s: schedule in %s (%s loop)", ((counter_t *)info)->name, mname(mode), rl == g_scenario_rl ? "scenario" : "worker");
}
static void cancel(void *info, CFRunLoopRef rl, CFStringRef mode)
{
    T_defer("%s: cancel in %s (%s loop, on %s thread)", ((counter_t *)info)->name, mname(mode),
            rl == g_scenario_rl ? "scenario" : "worker", t_worker ? "worker" : "scenario");
}

static CFRunLoopSourceRef make_source(counter_t *c)
{
    CFRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = c; ctx.retain = retain_cb; ctx.release = release_cb;
    ctx.schedule = sched; ctx.cancel = cancel; ctx.perform = nop_perform;
    return CFRunLoopSourceCreate(NULL, 0, &ctx);
}

static void *worker(void *arg)
{
    t_worker = 1;
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef s = make_source(&g_src);
    CFRunLoopAddSource(rl, s, CFSTR("worker-mode"));
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    CFRelease(s);
    CFRunLoopTimerContext tctx = { 0, &g_tim, retain_cb, release_cb, NULL };
    CFRunLoopTimerRef t = CFRunLoopTimerCreate(NULL, now() + 100, 0, 0, 0, nop_timer, &tctx);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    CFRelease(t);
    CFRunLoopObserverContext octx = { 0, &g_obs, retain_cb, release_cb, NULL };
    CFRunLoopObserverRef o = CFRunLoopObserverCreate(NULL, kCFRunLoopAllActivities, TRUE, 0, log_activity, &octx);
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    CFRelease(o);
    CFRunLoopAddSource(rl, g_shared, CFSTR("worker-mode"));
    T("worker: exits without running its loop");
    return NULL;
}

static void scenario(void)
{
    g_scenario_rl = CFRunLoopGetCurrent();
    g_shared = make_source(&g_shared_c);
    CFRunLoopAddSource(g_scenario_rl, g_shared, kCFRunLoopDefaultMode);
    pthread_t th = start_thread(worker, NULL);
    pthread_join(th, NULL);
    T("worker joined");
    T_flush_sorted();
    show(&g_src);
    show(&g_tim);
    show(&g_obs);
    show(&g_shared_c);
    T("shared source still in the scenario loop: %s", yesno(CFRunLoopContainsSource(g_scenario_rl, g_shared, kCFRunLoopDefaultMode)));
    CFRunLoopSourceInvalidate(g_shared);
    T_flush_sorted();
    CFRelease(g_shared);
    show(&g_shared_c);
}
CONF_MAIN(scenario)
