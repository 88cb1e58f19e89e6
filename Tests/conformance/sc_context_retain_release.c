/* Context retain/release: a source retains its info once at creation and
 * releases it once when destroyed; an observer and a timer retain at
 * creation and release when invalidated; CF retains a timer's info around
 * each callout as well.  Every count balances in the end. */
#include "conf.h"

typedef struct { const char *name; int retains, releases; } counter_t;
static const void *retain_cb(const void *info) { ((counter_t *)info)->retains++; return info; }
static void release_cb(const void *info) { ((counter_t *)info)->releases++; }
static void show(const char *when, counter_t *c) { T("%s: %s retain %d release %d", when, c->name, c->retains, c->releases); }

static counter_t g_tc = { "timer", 0, 0 };
static void fire(CFRunLoopTimerRef t, void *info) { show("in callout", &g_tc); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    counter_t sc = { "source", 0, 0 }, oc = { "observer", 0, 0 };
    CFRunLoopSourceContext sctx;
    memset(&sctx, 0, sizeof sctx);
    sctx.info = &sc; sctx.retain = retain_cb; sctx.release = release_cb; sctx.perform = nop_perform;
    CFRunLoopSourceRef s = CFRunLoopSourceCreate(NULL, 0, &sctx);
    show("created", &sc);
    CFRunLoopAddSource(rl, s, kCFRunLoopDefaultMode);
    CFRetain(s);
    CFRelease(s);
    show("added, retained and released", &sc);
    CFRunLoopSourceContext got;
    memset(&got, 0, sizeof got);
    CFRunLoopSourceGetContext(s, &got);
    T("GetContext gives the info: %s, perform: %s", yesno(got.info == &sc), yesno(got.perform == nop_perform));
    CFRunLoopSourceInvalidate(s);
    show("invalidated", &sc);
    CFRelease(s);
    show("released", &sc);

    CFRunLoopObserverContext octx = { 0, &oc, retain_cb, release_cb, NULL };
    CFRunLoopObserverRef o = CFRunLoopObserverCreate(NULL, kCFRunLoopEntry, TRUE, 0, log_activity, &octx);
    show("created", &oc);
    CFRunLoopAddObserver(rl, o, kCFRunLoopDefaultMode);
    CFRunLoopObserverInvalidate(o);
    show("invalidated", &oc);
    CFRelease(o);
    show("released", &oc);

    CFRunLoopTimerContext tctx = { 0, &g_tc, retain_cb, release_cb, NULL };
    CFRunLoopTimerRef t = CFRunLoopTimerCreate(NULL, now() + 0.02, 0, 0, 0, fire, &tctx);
    show("created", &g_tc);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    T("run: %s", run(kCFRunLoopDefaultMode, 2, FALSE));
    show("fired (one-shot)", &g_tc);
    CFRelease(t);
    show("released", &g_tc);
}
CONF_MAIN(scenario)
