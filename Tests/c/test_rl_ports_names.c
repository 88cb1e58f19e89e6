/*
 * test_rl_ports_names — names, invalidation and contexts of message ports
 * (runloop-only; trace written from include/runloop/ports.h):
 *   - a second local port with a name this process has is the first port
 *     (as in CF: shouldFreeInfo true, its info never retained; a name of
 *     another process is test_rl_ports_local's);
 *   - a remote to a name nobody serves is NULL, without an error line;
 *     malformed names (empty, over 80 bytes) are errors;
 *   - an unnamed local port gets a name with SetName; renaming frees the
 *     old name; a taken name is refused and the port keeps its own; the
 *     old name's pointer stays readable; a remote cannot be renamed;
 *   - Invalidate: the invalidation callback runs once with the info, then
 *     the info is released once; the port's source is invalidated; the
 *     remotes of the port become invalid and run their own callback once;
 *   - a callback set on an invalid port runs at once;
 *   - a port invalidated from inside its own callout: the waiting sender
 *     gets kRLMessagePortBecameInvalidError;
 *   - the last release of a valid port invalidates it;
 *   - a remote port has no run-loop source.
 */
#include "harness.h"

#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_names tests runloop-only functions"
#endif

typedef struct { const char *tag; int retains, releases; } counter_t;
static const void *retain_cb(const void *info) { ((counter_t *)info)->retains++; return info; }
static void release_cb(const void *info)
{
    ((counter_t *)info)->releases++;
    TRACE("%s: info released", ((counter_t *)info)->tag);
}
static void on_invalid(RLMessagePortRef ms, void *info)
{
    TRACE("%s: invalidation callback", info ? ((counter_t *)info)->tag : "(remote, info NULL)");
}

static RLDataRef reply_ok(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    if (msgid == 13) {
        TRACE("callout: invalidating its own port");
        RLMessagePortInvalidate(local);
    }
    return RLDataCreate(NULL, (const uint8_t *)"ok", 2);
}

static void invalidate_task(void *port) { RLMessagePortInvalidate((RLMessagePortRef)port); }
static void nothing(void *info) {}

static char g_prefix[32];
static const char *named(char *buf, const char *base)
{
    snprintf(buf, 64, "%s-%s", g_prefix, base);
    return buf;
}
static const char *unprefixed(const char *name)
{
    size_t n = strlen(g_prefix);
    return name && strncmp(name, g_prefix, n) == 0 ? name + n + 1 : name ? name : "(none)";
}

static RLMessagePortRef make_local(const char *name, counter_t *c, RLBoolean *shouldFree)
{
    RLMessagePortContext ctx = { 0, c, retain_cb, release_cb, NULL };
    return RLMessagePortCreateLocal(NULL, name, reply_ok, &ctx, shouldFree);
}

static void scenario(void)
{
    char a[64], b[64], x[64];
    snprintf(g_prefix, sizeof g_prefix, "rl-test-names-%d", (int)getpid());
    counter_t ca = { "port A", 0, 0 }, cb = { "port B", 0, 0 }, cx = { "clash", 0, 0 };
    RLBoolean shouldFree = 0;

    RLMessagePortRef pa = make_local(named(a, "alpha"), &ca, &shouldFree);
    TRACE("A created as %s: retains %d, shouldFreeInfo %s", unprefixed(RLMessagePortGetName(pa)), ca.retains, yes_no(shouldFree));
    fprintf(stderr, "(error lines about malformed names, a NULL callout and a remote's source are expected)\n");
    RLMessagePortRef clash = make_local(named(x, "alpha"), &cx, &shouldFree);
    TRACE("second local port named alpha: %s, shouldFreeInfo %s, info retained %d",
          clash == pa ? "port A" : clash ? "another port" : "NULL", yes_no(shouldFree), cx.retains);
    if (clash) RLRelease(clash);
    TRACE("remote to a name nobody serves: %s", RLMessagePortCreateRemote(NULL, named(x, "nobody")) ? "created" : "NULL");
    char longname[100];
    memset(longname, 'n', 81);
    longname[81] = 0;
    TRACE("81-byte name: %s; empty name: %s", make_local(longname, &cx, NULL) ? "created" : "NULL",
          make_local("", &cx, NULL) ? "created" : "NULL");
    RLMessagePortContext ctx0 = { 0, NULL, NULL, NULL, NULL };
    TRACE("NULL callout: %s", RLMessagePortCreateLocal(NULL, named(x, "cb"), NULL, &ctx0, NULL) ? "created" : "NULL");

    RLMessagePortRef pb = make_local(NULL, &cb, NULL);
    TRACE("unnamed B: name %s", unprefixed(RLMessagePortGetName(pb)));
    RLBoolean renamed = RLMessagePortSetName(pb, named(x, "alpha"));
    TRACE("B renamed to alpha (taken): %s; name %s", yes_no(renamed), unprefixed(RLMessagePortGetName(pb)));
    renamed = RLMessagePortSetName(pb, named(b, "beta"));
    TRACE("B renamed to beta: %s; name %s", yes_no(renamed), unprefixed(RLMessagePortGetName(pb)));
    const char *old = RLMessagePortGetName(pb);
    renamed = RLMessagePortSetName(pb, named(x, "gamma"));
    TRACE("B renamed to gamma: %s; name %s; old name pointer still reads %s",
          yes_no(renamed), unprefixed(RLMessagePortGetName(pb)), unprefixed(old));
    TRACE("beta is free again: remote to beta %s", RLMessagePortCreateRemote(NULL, named(b, "beta")) ? "created" : "NULL");

    RLThreadRef server = RLThreadCreate("rl-test-names");
    RLRunLoopSourceRef srcA = RLMessagePortCreateRunLoopSource(NULL, pa, 0);
    RLRunLoopAddSource(RLThreadGetRunLoop(server), srcA, kRLRunLoopDefaultMode);
    RLMessagePortRef ra = RLMessagePortCreateRemote(NULL, named(a, "alpha"));
    TRACE("remote to A: valid %s, remote %s", yes_no(RLMessagePortIsValid(ra)), yes_no(RLMessagePortIsRemote(ra)));
    TRACE("remote renamed: %s", yes_no(RLMessagePortSetName(ra, named(x, "delta"))));
    TRACE("remote's source: %s", RLMessagePortCreateRunLoopSource(NULL, ra, 0) ? "created" : "NULL");
    RLMessagePortSetInvalidationCallBack(ra, on_invalid);
    RLMessagePortSetInvalidationCallBack(pa, on_invalid);
    TRACE("callback read back: %s", yes_no(RLMessagePortGetInvalidationCallBack(pa) == on_invalid));
    TRACE("request to A: status %d", RLMessagePortSendRequest(ra, 1, NULL, 1, 5, kRLRunLoopDefaultMode, NULL));

    RLThreadPerform(server, invalidate_task, pa, 1);
    TRACE("A invalidated (on the server): valid %s, its source valid %s, retains %d releases %d",
          yes_no(RLMessagePortIsValid(pa)), yes_no(RLRunLoopSourceIsValid(srcA)), ca.retains, ca.releases);
    RLMessagePortInvalidate(pa);
    TRACE("second Invalidate: releases %d", ca.releases);
    TRACE("A's source after invalidation: %s", RLMessagePortCreateRunLoopSource(NULL, pa, 0) ? "created" : "NULL");
    RLBoolean remote_valid = RLMessagePortIsValid(ra);
    TRACE("remote to A valid: %s", yes_no(remote_valid));
    TRACE("remote to A valid again (no second callback): %s", yes_no(RLMessagePortIsValid(ra)));
    TRACE("setting a callback on an invalid port:");
    RLMessagePortSetInvalidationCallBack(pa, on_invalid);

    RLRunLoopSourceRef srcB = RLMessagePortCreateRunLoopSource(NULL, pb, 0);
    RLRunLoopAddSource(RLThreadGetRunLoop(server), srcB, kRLRunLoopDefaultMode);
    RLMessagePortRef rb = RLMessagePortCreateRemote(NULL, named(x, "gamma"));
    RLMessagePortSetInvalidationCallBack(pb, on_invalid);
    int32_t rc = RLMessagePortSendRequest(rb, 13, NULL, 1, 5, kRLRunLoopDefaultMode, NULL);
    RLThreadPerform(server, nothing, NULL, 1);  /* the callout has returned */
    TRACE("request that made B invalidate itself: status %d (BecameInvalidError is %d)", rc, kRLMessagePortBecameInvalidError);
    RLRelease(rb);

    RLThreadStop(server);
    RLRelease(server);
    RLRelease(srcA);
    RLRelease(srcB);
    RLRelease(ra);
    RLRelease(pa);
    RLRelease(pb);
    counter_t cc = { "port C", 0, 0 };
    RLMessagePortRef pc = make_local(named(x, "charlie"), &cc, NULL);
    RLMessagePortSetInvalidationCallBack(pc, on_invalid);
    TRACE("releasing valid port C");
    RLRelease(pc);
    TRACE("charlie is free: %s", RLMessagePortCreateRemote(NULL, named(x, "charlie")) ? "no" : "yes");
    TRACE("done");
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_ports_names") | harness_failures;
}
