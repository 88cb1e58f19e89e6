/*
 * test_rl_equal_sources — balanced code with sources CF considers equal
 * gets no error.
 *
 * Two sources made from equal contexts (same perform, same info, no equal
 * callback: compared by info) are the same item to a loop: adding the
 * second to a mode holding the first does nothing, removing it removes the
 * first.  Here two threads each own one such source and, with balanced
 * code, add it to one loop's mode, remove it, release it and make a new
 * one, 20,000 times each (three threads).  Before the fix the equal source was looked up with the loop's
 * lock taken and dropped, and the add or remove done under a second hold:
 * another thread could remove and release that source in between, so it
 * was added back dead and released again later — kRLErrorOverRelease
 * reports from balanced code.  Now: no error of any kind, and every
 * context is released exactly as often as it was retained.
 */
#include "harness.h"

#include <stdatomic.h>

static atomic_int g_errors, g_over_releases;
static atomic_int g_retains, g_releases;
static RLRunLoopRef g_loop;
static const RLRunLoopMode M = MODE("equal");
static int g_shared_info;   /* the one info both contexts name */

static void on_error(RLErrorCode code, const char *function, const char *message, void *info)
{
    if (atomic_fetch_add(&g_errors, 1) < 5) fprintf(stderr, "  error %d in %s: %s\n", (int)code, function, message);
    if (code == kRLErrorOverRelease) atomic_fetch_add(&g_over_releases, 1);
}

static const void *ctx_retain(const void *info) { atomic_fetch_add(&g_retains, 1); return info; }
static void ctx_release(const void *info) { atomic_fetch_add(&g_releases, 1); }
static void perform(void *info) {}
/* Equal infos are equal; the dawdling widens the window between the loop's
 * lookup of the equal source (this runs then, with no lock held) and the
 * add or remove that uses it. */
static RLBoolean equal(const void *a, const void *b)
{
    static _Thread_local unsigned seed = 1;
    seed = seed * 1103515245u + 12345u;
    for (volatile unsigned k = 0; k < (seed >> 20) % 2000; k++) {}
    return a == b;
}

static RLRunLoopSourceRef make_source(void)
{
    RLRunLoopSourceContext ctx = { 0 };
    ctx.info = &g_shared_info;
    ctx.retain = ctx_retain;
    ctx.release = ctx_release;
    ctx.perform = perform;
    ctx.equal = equal;
    return RLRunLoopSourceCreate(NULL, 0, &ctx);
}

static void *churn(void *arg)
{
    int n = *(int *)arg;
    RLRunLoopSourceRef s = make_source();
    for (int i = 0; i < n; i++) {
        RLRunLoopAddSource(g_loop, s, M);
        RLRunLoopContainsSource(g_loop, s, M);
        RLRunLoopRemoveSource(g_loop, s, M);
        /* its last reference goes while the other threads may be resolving
         * their sources to it */
        RLRelease(s);
        s = make_source();
    }
    RLRelease(s);
    return NULL;
}

int main(void)
{
    RLSetErrorHandler(on_error, NULL);
    g_loop = RLRunLoopGetCurrent();
    int n = getenv("RL_UNDER_VALGRIND") ? 500 : 20000;
    pthread_t t[3];
    for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, churn, &n);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);

    /* The mode holds nothing now: a fresh equal source is not contained. */
    RLRunLoopSourceRef probe = make_source();
    int contained = RLRunLoopContainsSource(g_loop, probe, M);
    RLRelease(probe);
    printf("errors %d (over-releases %d), context retains %d releases %d, left in the mode: %d\n",
           atomic_load(&g_errors), atomic_load(&g_over_releases), atomic_load(&g_retains),
           atomic_load(&g_releases), contained);
    CHECK(atomic_load(&g_errors) == 0);
    CHECK(atomic_load(&g_retains) == atomic_load(&g_releases));
    CHECK(!contained);
    printf("%s\n", harness_failures ? "FAIL" : "ok");
    return harness_failures ? 1 : 0;
}
