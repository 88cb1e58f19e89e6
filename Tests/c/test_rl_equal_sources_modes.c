/*
 * test_rl_equal_sources_modes — sources the library considers the same item
 * (made from C contexts with the same order, perform, equal and hash and
 * equal info: CF's rule, see Source.ContextIdentity), added and removed by
 * two threads at once, with balanced code (runloop-only; hand-written
 * trace).  test_rl_equal_sources covers one mode with a slow equal; this
 * one the other ways an equal source is found.  Each thread creates its own source, adds it to the shared loop,
 * removes it and releases it, 100,000 times (2,000 under valgrind, to stay
 * well inside the memcheck limit: it took over 300 s at 100,000):
 *   A. both in the same mode;
 *   B. each in a mode of its own (the other thread's equal source, found
 *      in one mode, is what the add puts in the other);
 *   C. both in the common modes;
 *   D. each on its own loop.
 * No error may be reported (before b1954d8: 124 to 4,658
 * kRLErrorOverRelease in A and up to 5,573 in B, 6 of 6 runs: the equal
 * source found for an add or a remove had been removed and released by
 * the other thread by the time the loop acted on it), the contexts'
 * retains and releases balance (every source is freed), and the loop
 * holds no equal source afterwards.
 */
#include "harness.h"

#include <stdatomic.h>

enum { ROUNDS = 100000, VALGRIND_ROUNDS = 2000 };

static atomic_int over_releases, other_errors, info_refs;

static void handler(RLErrorCode code, const char *function, const char *message, void *info)
{
    if (code == kRLErrorOverRelease) atomic_fetch_add(&over_releases, 1);
    else atomic_fetch_add(&other_errors, 1);
}

/* Every source shares one info; retain/release count the sources' hold on it. */
static int shared_info;
static const void *info_retain(const void *info) { atomic_fetch_add(&info_refs, 1); return info; }
static void info_release(const void *info) { atomic_fetch_sub(&info_refs, 1); }
static void perform(void *info) {}

static RLRunLoopSourceRef equal_source(void)
{
    RLRunLoopSourceContext c;
    memset(&c, 0, sizeof c);
    c.info = &shared_info;
    c.retain = info_retain;
    c.release = info_release;
    c.perform = perform;
    return RLRunLoopSourceCreate(NULL, 0, &c);
}

typedef struct {
    RLRunLoopRef loop;  /* NULL: the thread's own */
    RLRunLoopMode mode;
} job_t;

static void *churn(void *arg)
{
    const job_t *job = arg;
    RLRunLoopRef rl = job->loop ? job->loop : RLRunLoopGetCurrent();
    int rounds = getenv("RL_UNDER_VALGRIND") ? VALGRIND_ROUNDS : ROUNDS;
    for (int i = 0; i < rounds; i++) {
        RLRunLoopSourceRef s = equal_source();
        RLRunLoopAddSource(rl, s, job->mode);
        RLRunLoopRemoveSource(rl, s, job->mode);
        RLRelease(s);
    }
    return NULL;
}

static void two_threads(const char *label, job_t a, job_t b)
{
    atomic_store(&over_releases, 0);
    atomic_store(&other_errors, 0);
    pthread_t ta = start_thread(churn, &a), tb = start_thread(churn, &b);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    int over = atomic_load(&over_releases), other = atomic_load(&other_errors);
    if (over || other) fprintf(stderr, "%s: %d over-releases, %d other errors\n", label, over, other);
    TRACE("%s: over-releases reported: %s", label, yes_no(over != 0));
    TRACE("%s: other errors reported: %s", label, yes_no(other != 0));
    TRACE("%s: every context retain released: %s", label, yes_no(atomic_load(&info_refs) == 0));
    if (a.loop) {
        RLRunLoopSourceRef probe = equal_source();
        TRACE("%s: loop holds an equal source afterwards: %s", label,
              yes_no(RLRunLoopContainsSource(a.loop, probe, a.mode) || RLRunLoopContainsSource(a.loop, probe, b.mode)));
        RLRelease(probe);
    }
}

static void scenario(void)
{
    RLSetErrorHandler(handler, NULL);
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopAddCommonMode(rl, MODE("c1"));
    RLRunLoopAddCommonMode(rl, MODE("c2"));

    two_threads("A same mode", (job_t){rl, MODE("m")}, (job_t){rl, MODE("m")});
    two_threads("B own modes", (job_t){rl, MODE("m1")}, (job_t){rl, MODE("m2")});
    two_threads("C common modes", (job_t){rl, kRLRunLoopCommonModes}, (job_t){rl, kRLRunLoopCommonModes});
    two_threads("D own loops", (job_t){NULL, MODE("m")}, (job_t){NULL, MODE("m")});
    RLSetErrorHandler(NULL, NULL);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_equal_sources_modes") | harness_failures;
}
