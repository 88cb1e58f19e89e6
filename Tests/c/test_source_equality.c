/*
 * test_source_equality — RLEqual (CFEqual) on sources made from contexts,
 * case by case, with how often the context's equal function was called.
 * The trace was recorded from the real CF.
 *
 * CF's rule: both valid or both invalidated; the same order and version;
 * the same perform, equal and hash functions (the hash values are not
 * compared, nor retain, release, schedule, cancel or getPort); then
 * equal(info1, info2), or the same info without equal.  Before the fix
 * runloop also required equal hash values (without hash: the same info),
 * so two sources whose equal says yes but whose infos differ were unequal
 * without equal being called; it ignored validity; and it compared
 * version-1 sources by identity only.
 */
#include "harness.h"

#include <unistd.h>

static int g_calls;
static RLBoolean equal_yes(const void *a, const void *b) { g_calls++; return 1; }
static RLBoolean equal_yes_too(const void *a, const void *b) { g_calls++; return 1; }
static RLBoolean equal_no(const void *a, const void *b) { g_calls++; return 0; }
static RLHashCode hash_one(const void *info) { return 1; }
static RLHashCode hash_two(const void *info) { return 2; }
static RLHashCode hash_of_info(const void *info) { return (RLHashCode)(uintptr_t)info; }
static void perform(void *info) {}
static void perform_too(void *info) {}
static const void *retain(const void *info) { return info; }
static void release(const void *info) {}
static void schedule(void *info, RLRunLoopRef rl, RLRunLoopMode mode) {}
static int g_fd = -1;
static int get_port(void *info) { return g_fd; }

static int A, B;
typedef RLBoolean (*equal_fn)(const void *, const void *);
typedef RLHashCode (*hash_fn)(const void *);

static RLRunLoopSourceRef v0(RLIndex order, void *info, equal_fn equal, hash_fn hash, void (*perform_fn)(void *))
{
    RLRunLoopSourceContext c = { 0 };
    c.info = info;
    c.equal = equal;
    c.hash = hash;
    c.perform = perform_fn;
    return RLRunLoopSourceCreate(NULL, order, &c);
}

static RLRunLoopSourceRef v1(void *info, equal_fn equal)
{
    RLRunLoopSourceContext1 c = { 0 };
    c.version = 1;
    c.info = info;
    c.equal = equal;
    c.getPort = get_port;
    c.perform = perform;
    return RLRunLoopSourceCreate(NULL, 0, (RLRunLoopSourceContext *)&c);
}

/* Compares a with b, traces the answer and the calls of equal, releases both. */
static void compare(const char *what, RLRunLoopSourceRef a, RLRunLoopSourceRef b)
{
    g_calls = 0;
    int equal = RLEqual(a, b);
    TRACE("%s: %s, equal called %d", what, equal ? "equal" : "not equal", g_calls);
    RLRelease(a);
    RLRelease(b);
}

int main(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    g_fd = fds[0];

    TRACE("version 0, the equal function decides");
    compare("same equal (yes), no hash, other infos", v0(0, &A, equal_yes, NULL, perform), v0(0, &B, equal_yes, NULL, perform));
    compare("same equal (no), no hash, same info", v0(0, &A, equal_no, NULL, perform), v0(0, &A, equal_no, NULL, perform));
    compare("same equal and hash, other hash values", v0(0, &A, equal_yes, hash_of_info, perform),
            v0(0, &B, equal_yes, hash_of_info, perform));
    compare("same equal and hash, same hash value", v0(0, &A, equal_yes, hash_one, perform),
            v0(0, &B, equal_yes, hash_one, perform));
    compare("same equal, no perform", v0(0, &A, equal_yes, NULL, NULL), v0(0, &B, equal_yes, NULL, NULL));
    {
        RLRunLoopSourceContext c = { 0 };
        c.info = &A;
        c.equal = equal_yes;
        c.perform = perform;
        c.retain = retain;
        c.release = release;
        c.schedule = schedule;
        compare("other retain, release and schedule", RLRunLoopSourceCreate(NULL, 0, &c), v0(0, &B, equal_yes, NULL, perform));
    }

    TRACE("version 0, the callbacks differ: equal is not called");
    compare("other equal functions", v0(0, &A, equal_yes, NULL, perform), v0(0, &B, equal_yes_too, NULL, perform));
    compare("equal against none, same info", v0(0, &A, equal_yes, NULL, perform), v0(0, &A, NULL, NULL, perform));
    compare("none against equal, same info", v0(0, &A, NULL, NULL, perform), v0(0, &A, equal_yes, NULL, perform));
    compare("hash against none", v0(0, &A, equal_yes, hash_one, perform), v0(0, &B, equal_yes, NULL, perform));
    compare("other hash functions", v0(0, &A, equal_yes, hash_one, perform), v0(0, &B, equal_yes, hash_two, perform));
    compare("other orders", v0(0, &A, equal_yes, NULL, perform), v0(1, &B, equal_yes, NULL, perform));
    compare("other performs", v0(0, &A, equal_yes, NULL, perform), v0(0, &B, equal_yes, NULL, perform_too));

    TRACE("version 0, no equal function: the info decides");
    compare("no equal, same info", v0(0, &A, NULL, NULL, perform), v0(0, &A, NULL, NULL, perform));
    compare("no equal, other infos", v0(0, &A, NULL, NULL, perform), v0(0, &B, NULL, NULL, perform));
    compare("no equal, same hash and info", v0(0, &A, NULL, hash_one, perform), v0(0, &A, NULL, hash_one, perform));
    compare("no equal, same hash, other infos", v0(0, &A, NULL, hash_one, perform), v0(0, &B, NULL, hash_one, perform));

    TRACE("validity");
    {
        RLRunLoopSourceRef a = v0(0, &A, equal_yes, NULL, perform), b = v0(0, &B, equal_yes, NULL, perform);
        RLRunLoopSourceInvalidate(a);
        g_calls = 0;
        int ab = RLEqual(a, b), ba = RLEqual(b, a);
        TRACE("one invalidated: %s and %s, equal called %d", ab ? "equal" : "not equal", ba ? "equal" : "not equal", g_calls);
        RLRunLoopSourceInvalidate(b);
        compare("both invalidated", a, b);
        RLRunLoopSourceRef c = v0(0, &A, NULL, NULL, perform), d = v0(0, &A, NULL, NULL, perform);
        RLRunLoopSourceInvalidate(c);
        compare("no equal, same info, one invalidated", c, d);
    }

    TRACE("version 1");
    compare("same equal (yes), other infos", v1(&A, equal_yes), v1(&B, equal_yes));
    compare("no equal, same info", v1(&A, NULL), v1(&A, NULL));
    compare("no equal, other infos", v1(&A, NULL), v1(&B, NULL));
    compare("against version 0, same callbacks and info", v1(&A, equal_yes), v0(0, &A, equal_yes, NULL, perform));

    close(fds[0]);
    close(fds[1]);
    return trace_check("source_equality") | harness_failures;
}
