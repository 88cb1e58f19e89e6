/*
 * test_context_refcount — how items call their context's retain/release
 * on info over their life (counts traced after each step):
 *   - source: retain once at creation, release once when the last reference
 *     goes (invalidation does not release info);
 *   - timer: retain at creation, release at invalidation (a one-shot
 *     timer's firing invalidates it); CF also retains/releases info around
 *     each callout;
 *   - observer: retain at creation, release at invalidation (a one-shot
 *     observer's callout invalidates it);
 *   - a timer/observer never invalidated releases info when destroyed.
 *   Retains and releases balance for every item.
 */
#include "harness.h"

typedef struct { const char *name; int retains, releases; } counter_t;

static const void *retain_cb(const void *info)
{
    ((counter_t *)info)->retains++;
    return info;
}
static void release_cb(const void *info) { ((counter_t *)info)->releases++; }

static void show(const char *step, counter_t *c)
{
    TRACE("%s %s: retain %d release %d", c->name, step, c->retains, c->releases);
}

static void perform_cb(void *info) { TRACE("source performed"); }
static void timer_cb(RLRunLoopTimerRef t, void *info) { show("in callout", (counter_t *)info); }
static void obs_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) { show("in callout", (counter_t *)info); }

static RLRunLoopTimerRef make_timer(counter_t *c, RLAbsoluteTime fire, RLTimeInterval interval)
{
    RLRunLoopTimerContext ctx = { 0, c, retain_cb, release_cb, NULL };
    return RLRunLoopTimerCreate(NULL, fire, interval, 0, 0, timer_cb, &ctx);
}

static RLRunLoopObserverRef make_observer(counter_t *c, RLOptionFlags act, RLBoolean repeats)
{
    RLRunLoopObserverContext ctx = { 0, c, retain_cb, release_cb, NULL };
    return RLRunLoopObserverCreate(NULL, act, repeats, 0, obs_cb, &ctx);
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();

    counter_t cs = { "source", 0, 0 };
    RLRunLoopSourceContext sctx;
    memset(&sctx, 0, sizeof sctx);
    sctx.info = &cs;
    sctx.retain = retain_cb;
    sctx.release = release_cb;
    sctx.perform = perform_cb;
    RLRunLoopSourceRef s = RLRunLoopSourceCreate(NULL, 0, &sctx);
    show("created", &cs);
    RLRunLoopAddSource(rl, s, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, s, MODE("m"));
    show("added to 2 modes", &cs);
    RLRunLoopSourceSignal(s);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    show("performed", &cs);
    RLRunLoopSourceContext got;
    RLRunLoopSourceGetContext(s, &got);
    show("GetContext", &cs);
    TRACE("source GetContext info is ours: %s", yes_no(got.info == &cs));
    RLRunLoopRemoveSource(rl, s, MODE("m"));
    show("removed from m", &cs);
    RLRunLoopSourceInvalidate(s);
    show("invalidated", &cs);
    RLRelease(s);
    show("released", &cs);

    counter_t ct = { "repeating timer", 0, 0 };
    RLRunLoopTimerRef t = make_timer(&ct, now() + 0.01, 100);
    show("created", &ct);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    show("added", &ct);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 0);
    show("fired once", &ct);
    RLRunLoopTimerInvalidate(t);
    show("invalidated", &ct);
    RLRelease(t);
    show("released", &ct);

    counter_t c1 = { "one-shot timer", 0, 0 };
    t = make_timer(&c1, now() + 0.01, 0);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 0);
    show("fired", &c1);
    RLRelease(t);
    show("released", &c1);

    counter_t cn = { "never-added timer", 0, 0 };
    t = make_timer(&cn, now() + 100, 0);
    show("created", &cn);
    RLRelease(t);
    show("released", &cn);

    counter_t co = { "observer", 0, 0 };
    RLRunLoopObserverRef o = make_observer(&co, kRLRunLoopEntry, 1);
    show("created", &co);
    RLRunLoopAddObserver(rl, o, kRLRunLoopDefaultMode);
    RLRunLoopTimerRef keep = new_timer(now() + 100, 0, timer_cb, NULL);
    RLRunLoopAddTimer(rl, keep, kRLRunLoopDefaultMode);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    show("called once", &co);
    RLRunLoopObserverInvalidate(o);
    show("invalidated", &co);
    RLRelease(o);
    show("released", &co);

    counter_t c2 = { "one-shot observer", 0, 0 };
    o = make_observer(&c2, kRLRunLoopEntry, 0);
    RLRunLoopAddObserver(rl, o, kRLRunLoopDefaultMode);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    show("called", &c2);
    RLRelease(o);
    show("released", &c2);

    counter_t c3 = { "released-while-scheduled observer", 0, 0 };
    o = make_observer(&c3, kRLRunLoopEntry, 1);
    RLRunLoopAddObserver(rl, o, kRLRunLoopDefaultMode);
    RLRelease(o);
    show("released by us", &c3);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    RLRunLoopRemoveObserver(rl, o, kRLRunLoopDefaultMode);
    show("removed from its mode", &c3);

    counter_t cu = { "never-added observer", 0, 0 };
    o = make_observer(&cu, kRLRunLoopEntry, 1);
    RLRelease(o);
    show("released", &cu);

    RLRunLoopTimerInvalidate(keep);
    RLRelease(keep);

    counter_t *all[] = { &cs, &ct, &c1, &cn, &co, &c2, &c3, &cu };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        CHECK(all[i]->retains == all[i]->releases);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("context_refcount") | harness_failures;
}
