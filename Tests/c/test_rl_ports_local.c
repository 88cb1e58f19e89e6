/*
 * test_rl_ports_local — a local port used as CF code uses it (runloop-only;
 * trace written from include/runloop/ports.h, CF's behaviour as PyObjC's
 * CFMessagePort tests expect it on Darwin):
 *   - RLMessagePortSendRequest on a local port delivers to its own
 *     callout: status 0, at once, on the sending thread (also while the
 *     port's source is in another thread's loop); with a replyMode the
 *     callout's data is the reply, without one it is released; NULL data
 *     reaches the callout as NULL;
 *   - a callout may send to its own port again (nested, in order); one
 *     that always does stops at 64 nested sends with
 *     kRLMessagePortTransportError and one kRLErrorResources report;
 *   - a callout that invalidates its port: BecameInvalid with a replyMode
 *     (its data released), success one-way; the info is released after
 *     the callout returned; an invalid port gives IsInvalid, no callout;
 *   - RLMessagePortCreateLocal with a name a port of this process has
 *     returns that port (+1, shouldFreeInfo true, the new context neither
 *     retained nor used); once that port is invalidated the name makes a
 *     new port; a renamed port is found under its new name only, an
 *     unnamed one once named;
 *   - a name held by a port of ANOTHER process still fails (NULL, an
 *     error, shouldFreeInfo true); so does, in a fork child, the name of a
 *     port the parent made (the parent's port is not the child's);
 *   - four threads creating, sending to (some sends invalidate) and
 *     releasing ports of one name at once: every send gives 0 or
 *     IsInvalid, every retained info is released once, nothing hangs.
 */
#include "harness.h"
#include "ports_testkit.h"

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_local tests runloop-only functions"
#endif

typedef struct { const char *tag; int retains, releases, calls; pthread_t thread; } counter_t;
static const void *retain_cb(const void *info) { ((counter_t *)info)->retains++; return info; }
static void release_cb(const void *info) { ((counter_t *)info)->releases++; }

static RLDataRef text(const char *s) { return RLDataCreate(NULL, (const uint8_t *)s, (RLIndex)strlen(s)); }
static const char *show(RLDataRef d, char *buf, size_t size)
{
    if (!d) return "NULL";
    snprintf(buf, size, "\"%.*s\"", (int)RLDataGetLength(d), (const char *)RLDataGetBytePtr(d));
    return buf;
}

static RLDataRef g_sent;   /* the data the scenario sends */
static int g_depth, g_deepest, g_last_status;
static pthread_t g_sender; /* the scenario's thread */

/* msgid 1: reply "pong"; 2: reply with the request's own data (retained);
 * 3: reply NULL; 13: invalidate the port, reply "late"; 20+n: send 20+n-1
 * to the port itself (down to 20); 99: send 99 to itself, always. */
static RLDataRef callout(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    counter_t *c = info;
    c->calls++;
    c->thread = pthread_self();
    char buf[64];
    if (msgid == 1 || msgid == 2 || msgid == 3)
        TRACE("%s callout: msgid %d, data %s%s, on the sender's thread %s", c->tag, msgid, show(data, buf, sizeof buf),
              data && data == g_sent ? " (the sender's handle)" : "", yes_no(pthread_equal(c->thread, g_sender)));
    if (msgid == 1) return text("pong");
    if (msgid == 2) return (RLDataRef)RLRetain(data);
    if (msgid == 3) return NULL;
    if (msgid == 13) {
        RLMessagePortInvalidate(local);
        TRACE("%s callout: invalidated its port; info released %d (not yet)", c->tag, c->releases);
        return text("late");
    }
    if (msgid > 20 && msgid < 30) {
        TRACE("%s callout %d: sending %d to itself", c->tag, msgid, msgid - 1);
        RLDataRef reply = NULL;
        int32_t rc = RLMessagePortSendRequest(local, msgid - 1, NULL, 1, 1, kRLRunLoopDefaultMode, &reply);
        TRACE("%s callout %d: status %d, reply %s", c->tag, msgid, rc, show(reply, buf, sizeof buf));
        if (reply) RLRelease(reply);
        snprintf(buf, sizeof buf, "r%d", msgid);
        return text(buf);
    }
    if (msgid == 20) return text("r20");
    if (msgid == 99) {
        if (++g_depth > g_deepest) g_deepest = g_depth;
        int32_t rc = RLMessagePortSendRequest(local, 99, NULL, 1, 1, NULL, NULL);
        if (rc != 0) g_last_status = rc;
        g_depth--;
        return NULL;
    }
    return NULL;
}

static RLMessagePortRef make_local(const char *name, counter_t *c, RLBoolean *shouldFree)
{
    RLMessagePortContext ctx = { 0, c, retain_cb, release_cb, NULL };
    return RLMessagePortCreateLocal(NULL, name, callout, &ctx, shouldFree);
}

static char g_prefix[48];
static const char *named(char *buf, const char *base)
{
    snprintf(buf, 96, "%s-%s", g_prefix, base);
    return buf;
}
static const char *unprefixed(const char *name)
{
    size_t n = strlen(g_prefix);
    return name && strncmp(name, g_prefix, n) == 0 ? name + n + 1 : name ? name : "(none)";
}

/* ---- the other process: holds a name until told ------------------------ */

static int hold(const char *name, const char *fdtext)
{
    int ctl = atoi(fdtext);
    counter_t c = { "other process", 0, 0, 0, 0 };
    RLMessagePortRef port = make_local(name, &c, NULL);
    char ok = port ? 'H' : 'F', done;
    if (write(ctl, &ok, 1) != 1 || read(ctl, &done, 1) != 1) return 3;
    if (port) RLRelease(port);
    return port ? 0 : 4;
}

/* ---- racing threads on one name ---------------------------------------- */

static int g_race_retains, g_race_releases, g_race_bad, g_race_errors;
static const void *race_retain(const void *info)
{
    __atomic_fetch_add(&g_race_retains, 1, __ATOMIC_RELAXED);
    return info;
}
static void race_release(const void *info) { __atomic_fetch_add(&g_race_releases, 1, __ATOMIC_RELAXED); }
static void race_errors(RLErrorCode code, const char *function, const char *message, void *info)
{
    (void)code, (void)function, (void)message, (void)info;
    __atomic_fetch_add(&g_race_errors, 1, __ATOMIC_RELAXED);
}
static RLDataRef race_callout(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    (void)data, (void)info;
    if (msgid == 13) RLMessagePortInvalidate(local);
    return NULL;
}

static char g_race_name[96];
static int g_race_rounds;

static void *racer(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < g_race_rounds; i++) {
        RLMessagePortContext ctx = { 0, NULL, race_retain, race_release, NULL };
        RLMessagePortRef port = RLMessagePortCreateLocal(NULL, g_race_name, race_callout, &ctx, NULL);
        if (!port) continue;  /* another thread was binding or freeing the name */
        int32_t rc = RLMessagePortSendRequest(port, (i + id) % 5 == 0 ? 13 : 1, NULL, 1, 1, NULL, NULL);
        if (rc != kRLMessagePortSuccess && rc != kRLMessagePortIsInvalid) __atomic_fetch_add(&g_race_bad, 1, __ATOMIC_RELAXED);
        RLRelease(port);
    }
    return NULL;
}

static void race(void)
{
    named(g_race_name, "kilo");
    g_race_rounds = getenv("RL_UNDER_VALGRIND") ? 40 : 2000;
    RLSetErrorHandler(race_errors, NULL);
    pthread_t threads[4];
    for (long i = 0; i < 4; i++) threads[i] = start_thread(racer, (void *)i);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    RLSetErrorHandler(NULL, NULL);
    fprintf(stderr, "racing on one name: %d infos retained, %d errors reported (names being bound or freed)\n",
            g_race_retains, g_race_errors);
    TRACE("four threads on one name: sends 0 or IsInvalid only %s, infos released as retained %s",
          yes_no(g_race_bad == 0), yes_no(g_race_retains > 0 && g_race_retains == g_race_releases));
}

/* ---- the scenario ------------------------------------------------------ */

static void send_to_self(void)
{
    char a[96], buf[64];
    counter_t ca = { "A", 0, 0, 0, 0 };
    RLMessagePortRef pa = make_local(named(a, "alpha"), &ca, NULL);
    g_sent = text("ping");

    RLDataRef reply = NULL;
    int32_t rc = RLMessagePortSendRequest(pa, 1, g_sent, 1, 1, kRLRunLoopDefaultMode, &reply);
    TRACE("A sent msgid 1 to itself with a replyMode: status %d, reply %s", rc, show(reply, buf, sizeof buf));
    if (reply) RLRelease(reply);
    rc = RLMessagePortSendRequest(pa, 1, g_sent, 1, 1, NULL, NULL);
    TRACE("one-way: status %d, callouts %d", rc, ca.calls);
    rc = RLMessagePortSendRequest(pa, 2, g_sent, 1, 1, kRLRunLoopDefaultMode, NULL);
    TRACE("reply asked, no returnData: status %d, the reply released (data retain count %ld)", rc,
          (long)RLGetRetainCount(g_sent));
    reply = g_sent;  /* must be cleared */
    rc = RLMessagePortSendRequest(pa, 3, NULL, 1, 1, kRLRunLoopDefaultMode, &reply);
    TRACE("NULL data, NULL reply: status %d, reply %s", rc, show(reply, buf, sizeof buf));

    /* The port's source in another thread's loop: a send to the port
     * itself still runs on the sender. */
    RLThreadRef server = RLThreadCreate("rl-test-local");
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, pa, 0);
    RLRunLoopAddSource(RLThreadGetRunLoop(server), src, kRLRunLoopDefaultMode);
    rc = RLMessagePortSendRequest(pa, 1, g_sent, 1, 1, kRLRunLoopDefaultMode, &reply);
    TRACE("with its source served by another thread: status %d, reply %s", rc, show(reply, buf, sizeof buf));
    if (reply) RLRelease(reply);
    RLMessagePortRef ra = RLMessagePortCreateRemote(NULL, a);
    rc = RLMessagePortSendRequest(ra, 1, g_sent, 1, 5, kRLRunLoopDefaultMode, &reply);
    TRACE("through a remote: status %d, reply %s", rc, show(reply, buf, sizeof buf));
    if (reply) RLRelease(reply);
    RLRelease(ra);

    /* Nested sends to itself. */
    rc = RLMessagePortSendRequest(pa, 23, NULL, 1, 1, kRLRunLoopDefaultMode, &reply);
    TRACE("msgid 23: status %d, reply %s", rc, show(reply, buf, sizeof buf));
    if (reply) RLRelease(reply);
    pk_quiet();
    pk_last_code = 0;
    rc = RLMessagePortSendRequest(pa, 99, NULL, 1, 1, NULL, NULL);
    RLSetErrorHandler(NULL, NULL);
    TRACE("a callout always sending to itself: status %d, nested callouts %d, the innermost send's status %d, "
          "error %d (kRLErrorResources is %d)", rc, g_deepest, g_last_status, pk_last_code, kRLErrorResources);

    RLThreadStop(server);
    RLRelease(server);
    RLRelease(src);
    RLRelease(g_sent);
    RLRelease(pa);
    TRACE("A released: info retains %d releases %d", ca.retains, ca.releases);
}

static void invalidation(void)
{
    char b[96], buf[64];
    counter_t cb = { "B", 0, 0, 0, 0 }, cc = { "C", 0, 0, 0, 0 };
    RLMessagePortRef pb = make_local(named(b, "bravo"), &cb, NULL);
    RLDataRef reply = NULL;
    int32_t rc = RLMessagePortSendRequest(pb, 13, NULL, 1, 1, kRLRunLoopDefaultMode, &reply);
    TRACE("B's callout invalidated B, reply asked: status %d (BecameInvalid is %d), reply %s; info released %d",
          rc, kRLMessagePortBecameInvalidError, show(reply, buf, sizeof buf), cb.releases);
    int calls = cb.calls;
    rc = RLMessagePortSendRequest(pb, 1, NULL, 1, 1, kRLRunLoopDefaultMode, &reply);
    TRACE("send to invalid B: status %d (IsInvalid is %d), callout ran %s", rc, kRLMessagePortIsInvalid,
          yes_no(cb.calls != calls));
    RLRelease(pb);

    RLMessagePortRef pc = make_local(NULL, &cc, NULL);
    rc = RLMessagePortSendRequest(pc, 13, NULL, 1, 1, NULL, NULL);
    TRACE("unnamed C invalidated by its callout, one-way: status %d; info released %d", rc, cc.releases);
    RLRelease(pc);
}

static void same_name(void)
{
    char d[96], e[96], x[96];
    counter_t c1 = { "first", 0, 0, 0, 0 }, c2 = { "second", 0, 0, 0, 0 }, c3 = { "third", 0, 0, 0, 0 };
    RLBoolean shouldFree = 1;

    RLMessagePortRef first = make_local(named(d, "delta"), &c1, &shouldFree);
    TRACE("first delta: created %s, shouldFreeInfo %s, info retained %d", yes_no(first != NULL), yes_no(shouldFree),
          c1.retains);
    shouldFree = 0;
    RLMessagePortRef again = make_local(d, &c2, &shouldFree);
    TRACE("second delta in this process: the first port %s, retain count %ld, shouldFreeInfo %s, "
          "its info retained %d", yes_no(again == first), (long)RLGetRetainCount(first), yes_no(shouldFree), c2.retains);
    int32_t rc = RLMessagePortSendRequest(again, 1, NULL, 1, 1, NULL, NULL);
    TRACE("a send to it: status %d, calls: first %d, second %d", rc, c1.calls, c2.calls);
    if (again) RLRelease(again);
    TRACE("released once: delta still valid %s, name %s", yes_no(RLMessagePortIsValid(first)),
          unprefixed(RLMessagePortGetName(first)));

    RLMessagePortInvalidate(first);
    RLMessagePortRef fresh = make_local(d, &c3, &shouldFree);
    TRACE("after invalidating it, delta again: a new port %s, shouldFreeInfo %s, info retained %d",
          yes_no(fresh != NULL && fresh != first), yes_no(shouldFree), c3.retains);
    RLRelease(first);

    RLBoolean renamed = RLMessagePortSetName(fresh, named(e, "echo"));
    RLMessagePortRef by_new = make_local(e, &c2, &shouldFree);
    TRACE("renamed to echo %s: echo gives it %s (shouldFreeInfo %s)", yes_no(renamed), yes_no(by_new == fresh),
          yes_no(shouldFree));
    if (by_new) RLRelease(by_new);
    RLMessagePortRef by_old = make_local(d, &c2, &shouldFree);
    TRACE("delta now: a new port %s (shouldFreeInfo %s)", yes_no(by_old != NULL && by_old != fresh), yes_no(shouldFree));
    TRACE("delta's port renamed to echo (taken in this process): %s", yes_no(RLMessagePortSetName(by_old, e)));
    if (by_old) RLRelease(by_old);

    RLMessagePortRef unnamed = make_local(NULL, &c2, NULL);
    RLMessagePortSetName(unnamed, named(x, "foxtrot"));
    RLMessagePortRef by_set = make_local(x, &c3, &shouldFree);
    TRACE("an unnamed port named foxtrot: foxtrot gives it %s", yes_no(by_set == unnamed));
    if (by_set) RLRelease(by_set);
    RLRelease(unnamed);
    RLRelease(fresh);
    TRACE("infos: first retained %d released %d; second retained %d released %d; third retained %d released %d",
          c1.retains, c1.releases, c2.retains, c2.releases, c3.retains, c3.releases);
}

static void other_process(void)
{
    char g[96], fdtext[16];
    named(g, "golf");
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0) { perror("socketpair"); exit(2); }
    snprintf(fdtext, sizeof fdtext, "%d", sp[1]);
    pid_t child = pk_spawn("hold", g, fdtext, NULL);
    close(sp[1]);
    char c = 0;
    TRACE("another process holds golf: %s", yes_no(read(sp[0], &c, 1) == 1 && c == 'H'));
    counter_t cg = { "golf", 0, 0, 0, 0 };
    RLBoolean shouldFree = 0;
    pk_quiet();
    pk_last_code = 0;
    RLMessagePortRef port = make_local(g, &cg, &shouldFree);
    RLSetErrorHandler(NULL, NULL);
    TRACE("golf here: %s, shouldFreeInfo %s, info retained %d, error %d (kRLErrorInvalidArgument is %d)",
          port ? "created" : "NULL", yes_no(shouldFree), cg.retains, pk_last_code, kRLErrorInvalidArgument);
    if (port) RLRelease(port);
    if (write(sp[0], "x", 1) != 1) exit(2);
    TRACE("the other process exits %d", pk_status(child));
    close(sp[0]);

    char h[96];
    counter_t ch = { "hotel", 0, 0, 0, 0 };
    RLMessagePortRef mine = make_local(named(h, "hotel"), &ch, NULL);
    pid_t forked = fork();
    if (forked == 0) {
        pk_quiet();
        RLBoolean free_it = 0;
        RLMessagePortRef got = make_local(h, &ch, &free_it);
        _exit(got == NULL && free_it && pk_last_code == kRLErrorInvalidArgument ? 0 : 1);
    }
    TRACE("a fork child asking for hotel, its parent's: refused %s", yes_no(pk_status(forked) == 0));
    TRACE("hotel still served here: %s", yes_no(RLMessagePortSendRequest(mine, 3, NULL, 1, 1, NULL, NULL) == 0));
    RLRelease(mine);
}

static void scenario(void)
{
    snprintf(g_prefix, sizeof g_prefix, "rl-test-local-%d", (int)getpid());
    g_sender = pthread_self();
    send_to_self();
    invalidation();
    same_name();
    other_process();
    race();
    TRACE("done");
}

int main(int argc, char **argv)
{
    pk_init(argc, argv);
    if (argc == 4 && strcmp(argv[1], "hold") == 0) return hold(argv[2], argv[3]);
    run_on_thread(scenario);
    return trace_check("rl_ports_local") | harness_failures;
}
