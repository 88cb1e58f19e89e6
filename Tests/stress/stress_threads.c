/*
 * stress_threads — many threads add, remove, signal, wake, stop, perform
 * and invalidate against loops that are running, for a bounded time; then
 * the invariants are checked:
 *   - every function queued with RLRunLoopPerformFunction ran exactly once;
 *   - no source performed more often than it was signalled, no one-shot
 *     timer fired more than once;
 *   - after a final signal + wake-up, every source still scheduled performs;
 *   - once every thread has exited and every handle is released, every
 *     context retain is matched by one release (nothing leaked, nothing
 *     released twice) and the loops' handles had exactly the references
 *     the test held.
 * Built normally for ctest and with -fsanitize=thread against a TSan build
 * of the library (Tests/stress/sanitizers.sh): zero reports required.
 *
 *   stress_threads [seconds]     (default 2; STRESS_SECONDS also works)
 */
#define _GNU_SOURCE 1
#include <runloop/runloop.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { LOOPS = 3, HAMMERS = 4, SRC_PER_HAMMER = 8 };
static const char *const MODES[] = {"kCFRunLoopDefaultMode", "stress.other", "kCFRunLoopCommonModes"};

static atomic_int stop_all;                  /* workers: leave the loop */
static atomic_int hammering;                 /* hammers: keep going */
static RLRunLoopRef loops[LOOPS];            /* retained by the test */
static pthread_mutex_t ready_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_c = PTHREAD_COND_INITIALIZER;
static int ready;

static atomic_long ctx_retains, ctx_releases;
static atomic_long queued, performed;
static atomic_long observer_calls, timer_fires;
static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

typedef struct {
    atomic_long signals;     /* signals sent while it was valid */
    atomic_long performs;
    atomic_int fired;        /* one-shot timers */
} counter;

static const void *c_retain(const void *info) { atomic_fetch_add(&ctx_retains, 1); return info; }
static void c_release(const void *info) { (void)info; atomic_fetch_add(&ctx_releases, 1); }
static void src_perform(void *info) { atomic_fetch_add(&((counter *)info)->performs, 1); }
static void keep_alive_perform(void *info) { (void)info; }
static void timer_cb(RLRunLoopTimerRef t, void *info)
{
    (void)t;
    atomic_fetch_add(&((counter *)info)->fired, 1);
    atomic_fetch_add(&timer_fires, 1);
}
static void observer_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o; (void)a; (void)info;
    atomic_fetch_add(&observer_calls, 1);
}
static void performed_fn(void *info) { (void)info; atomic_fetch_add(&performed, 1); }
static void quiet(RLErrorCode c, const char *f, const char *m, void *i) { (void)c; (void)f; (void)m; (void)i; }

static uint64_t xs(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

static void *worker(void *arg)
{
    int index = (int)(intptr_t)arg;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceContext ctx = {0};
    ctx.perform = keep_alive_perform;
    RLRunLoopSourceRef keep = RLRunLoopSourceCreate(NULL, 0, &ctx);
    RLRunLoopAddSource(rl, keep, kRLRunLoopCommonModes);
    RLRelease(keep);
    pthread_mutex_lock(&ready_m);
    loops[index] = (RLRunLoopRef)RLRetain(rl);
    ready++;
    pthread_cond_broadcast(&ready_c);
    pthread_mutex_unlock(&ready_m);
    uint64_t s = 0x9E3779B97F4A7C15ULL * (uint64_t)(index + 1);
    while (!atomic_load(&stop_all)) {
        /* mostly the default mode; sometimes the other mode, sometimes a poll */
        int r = (int)(xs(&s) % 8);
        RLRunLoopRunInMode(r == 0 ? MODES[1] : MODES[0], r == 1 ? 0 : 0.05, 0);
    }
    return NULL;   /* the loop is torn down here; its scheduled items with it */
}

typedef struct {
    int id;
    RLRunLoopSourceRef src[SRC_PER_HAMMER];
    counter counts[SRC_PER_HAMMER];
    int loop_of[SRC_PER_HAMMER];
} hammer_state;

static RLRunLoopSourceRef new_source(counter *c)
{
    RLRunLoopSourceContext ctx = {0, c, c_retain, c_release, NULL, NULL, NULL, NULL, NULL, src_perform};
    return RLRunLoopSourceCreate(NULL, 0, &ctx);
}

static void *hammer(void *arg)
{
    hammer_state *h = arg;
    uint64_t s = 0xD1B54A32D192ED03ULL * (uint64_t)(h->id + 7);
    for (int i = 0; i < SRC_PER_HAMMER; i++) {
        h->src[i] = new_source(&h->counts[i]);
        h->loop_of[i] = i % LOOPS;
        RLRunLoopAddSource(loops[h->loop_of[i]], h->src[i], MODES[i % 3]);
    }
    counter tcounts[64];
    memset(tcounts, 0, sizeof tcounts);
    int tnext = 0;
    while (atomic_load(&hammering)) {
        uint64_t r = xs(&s);
        int i = (int)(r % SRC_PER_HAMMER);
        RLRunLoopRef rl = loops[(r >> 8) % LOOPS];
        const char *mode = MODES[(r >> 16) % 3];
        switch ((r >> 24) % 12) {
        case 0: case 1:   /* signal + wake: the classic cross-thread hand-off */
            if (RLRunLoopSourceIsValid(h->src[i])) atomic_fetch_add(&h->counts[i].signals, 1);
            RLRunLoopSourceSignal(h->src[i]);
            RLRunLoopWakeUp(loops[h->loop_of[i]]);
            break;
        case 2:
            RLRunLoopAddSource(loops[h->loop_of[i]], h->src[i], mode);
            break;
        case 3:
            RLRunLoopRemoveSource(loops[h->loop_of[i]], h->src[i], mode);
            break;
        case 4:           /* invalidate and replace (old handle released) */
            if ((r >> 32) % 4 == 0) {
                RLRunLoopSourceInvalidate(h->src[i]);
                RLRelease(h->src[i]);
                h->src[i] = new_source(&h->counts[i]);
                RLRunLoopAddSource(loops[h->loop_of[i]], h->src[i], MODES[0]);
            }
            break;
        case 5: case 6:   /* perform + wake */
            atomic_fetch_add(&queued, 1);
            RLRunLoopPerformFunction(rl, (r >> 40) % 2 ? MODES[0] : MODES[2], performed_fn, NULL);
            RLRunLoopWakeUp(rl);
            break;
        case 7:
            RLRunLoopStop(rl);
            break;
        case 8:
            if (tnext < 64) {     /* a one-shot timer, due now or soon; maybe cancelled */
                counter *c = &tcounts[tnext++];
                RLRunLoopTimerContext tc = {0, c, c_retain, c_release, NULL};
                RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + (double)((r >> 32) % 3) * 0.001,
                                                           0, 0, 0, timer_cb, &tc);
                RLRunLoopAddTimer(rl, t, mode);
                if ((r >> 36) % 2) RLRunLoopTimerInvalidate(t);
                RLRelease(t);
            }
            break;
        case 9: {         /* an observer that joins and leaves */
            RLRunLoopObserverContext oc = {0, NULL, c_retain, c_release, NULL};
            RLRunLoopObserverRef o = RLRunLoopObserverCreate(NULL, kRLRunLoopAllActivities, (r >> 32) % 2, 0, observer_cb, &oc);
            RLRunLoopAddObserver(rl, o, mode);
            if ((r >> 33) % 2) RLRunLoopRemoveObserver(rl, o, mode);
            else RLRunLoopObserverInvalidate(o);
            RLRelease(o);
            break;
        }
        case 10: {
            RLRunLoopMode m = RLRunLoopCopyCurrentMode(rl);
            if (m) RLRelease(m);
            (void)RLRunLoopIsWaiting(rl);
            (void)RLRunLoopContainsSource(loops[h->loop_of[i]], h->src[i], mode);
            break;
        }
        default:
            RLRunLoopWakeUp(rl);
            break;
        }
    }
    for (int t = 0; t < tnext; t++) CHECK(atomic_load(&tcounts[t].fired) <= 1);
    return NULL;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits (bounded) until *value reaches target, waking the loops meanwhile. */
static int wait_for(atomic_long *value, long target, double limit)
{
    double end = mono() + limit;
    while (atomic_load(value) < target) {
        if (mono() > end) return 0;
        for (int l = 0; l < LOOPS; l++) RLRunLoopWakeUp(loops[l]);
        sched_yield();
    }
    return 1;
}

int main(int argc, char **argv)
{
    double seconds = 2;
    const char *env = getenv("STRESS_SECONDS");
    if (argc > 1) seconds = atof(argv[1]);
    else if (env) seconds = atof(env);
    RLSetErrorHandler(quiet, NULL);   /* stale/over-release errors are expected here */

    pthread_t workers[LOOPS], hammers[HAMMERS];
    static hammer_state hs[HAMMERS];
    for (int l = 0; l < LOOPS; l++) pthread_create(&workers[l], NULL, worker, (void *)(intptr_t)l);
    pthread_mutex_lock(&ready_m);
    while (ready < LOOPS) pthread_cond_wait(&ready_c, &ready_m);
    pthread_mutex_unlock(&ready_m);

    atomic_store(&hammering, 1);
    for (int t = 0; t < HAMMERS; t++) {
        hs[t].id = t;
        pthread_create(&hammers[t], NULL, hammer, &hs[t]);
    }
    struct timespec d = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&d, NULL);   /* the test's duration, not synchronisation */
    atomic_store(&hammering, 0);
    for (int t = 0; t < HAMMERS; t++) pthread_join(hammers[t], NULL);

    /* every queued function runs exactly once */
    CHECK(wait_for(&performed, atomic_load(&queued), 10));
    /* a final signal reaches every source still scheduled on a running loop */
    long final_targets = 0;
    atomic_long final_performs = 0;
    long sig_total = 0, perf_total = 0;
    for (int t = 0; t < HAMMERS; t++)
        for (int i = 0; i < SRC_PER_HAMMER; i++) {
            hammer_state *h = &hs[t];
            RLRunLoopAddSource(loops[h->loop_of[i]], h->src[i], MODES[0]);   /* the mode the workers run most */
            if (!RLRunLoopSourceIsValid(h->src[i])) continue;
            atomic_fetch_add(&h->counts[i].signals, 1);
            RLRunLoopSourceSignal(h->src[i]);
            RLRunLoopWakeUp(loops[h->loop_of[i]]);
            final_targets++;
        }
    for (int t = 0; t < HAMMERS; t++)
        for (int i = 0; i < SRC_PER_HAMMER; i++) {
            hammer_state *h = &hs[t];
            if (!RLRunLoopSourceIsValid(h->src[i])) continue;
            double end = mono() + 10;
            while (RLRunLoopSourceIsSignalled(h->src[i]) && mono() < end) {
                RLRunLoopWakeUp(loops[h->loop_of[i]]);
                sched_yield();
            }
            CHECK(!RLRunLoopSourceIsSignalled(h->src[i]));
            atomic_fetch_add(&final_performs, 1);
        }
    CHECK(atomic_load(&final_performs) == final_targets);

    atomic_store(&stop_all, 1);
    for (int l = 0; l < LOOPS; l++) {
        RLRunLoopStop(loops[l]);
        RLRunLoopWakeUp(loops[l]);
    }
    for (int l = 0; l < LOOPS; l++) pthread_join(workers[l], NULL);
    for (int t = 0; t < HAMMERS; t++)
        for (int i = 0; i < SRC_PER_HAMMER; i++) {
            counter *c = &hs[t].counts[i];
            sig_total += atomic_load(&c->signals);
            perf_total += atomic_load(&c->performs);
            CHECK(atomic_load(&c->performs) <= atomic_load(&c->signals));
            RLRelease(hs[t].src[i]);
        }
    for (int l = 0; l < LOOPS; l++) {
        CHECK(RLGetRetainCount(loops[l]) == 1);   /* only the test's reference is left */
        RLRelease(loops[l]);
    }
    CHECK(atomic_load(&ctx_retains) == atomic_load(&ctx_releases));
    printf("%s stress_threads: %.1f s, %d loops, %d threads; %ld performs queued = run; "
           "%ld signals -> %ld source performs; %ld timer fires; %ld observer calls; "
           "context retains %ld = releases %ld\n",
           failures ? "FAIL" : "ok", seconds, LOOPS, HAMMERS, atomic_load(&queued), sig_total, perf_total,
           atomic_load(&timer_fires), atomic_load(&observer_calls), atomic_load(&ctx_retains),
           atomic_load(&ctx_releases));
    return failures ? 1 : 0;
}
