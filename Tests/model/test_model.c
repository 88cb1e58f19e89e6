/*
 * test_model — randomized model-based test: random operation sequences are
 * applied both to runloop and to the model of model.h; after every
 * operation the membership (Contains* in every mode and the common modes),
 * validity and signalled state of every item must agree, and every
 * RunInMode(mode, 0, rash) must fire the same callouts in the same order
 * and return the same result.
 *
 *   test_model [--seed N] [--ops N] [--session N] [--quiet]
 *
 * Operations run in sessions of --session ops (default 2000), each on a
 * fresh thread with a fresh loop; at the end every context retain must be
 * matched by a release (items released, threads exited).  On a mismatch
 * the seed, session, operation number and the last operations are printed:
 * `test_model --seed S --ops N` replays it.
 */
#define _GNU_SOURCE 1
#include <runloop/runloop.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static const char *const MODE_NAMES[N_MODES] = {
    "kCFRunLoopDefaultMode", "model.A", "model.B", "model.C", "kCFRunLoopCommonModes"};
static const char *const KIND_NAMES[N_KINDS] = {"source", "timer", "observer", "block"};
static const char *const ACT_NAMES[N_ACTS] = {"Entry", "BeforeTimers", "BeforeSources",
                                               "BeforeWaiting", "AfterWaiting", "Exit"};

/* ---- randomness (xorshift64*) ---- */
static uint64_t rng;
static uint64_t next_rand(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}
static int pick(int n) { return (int)(next_rand() % (uint64_t)n); }

/* ---- the engine side ---- */
static model M;
static RLRunLoopRef loop;
static RLTypeRef handles[3][POOL];
static int infos[3][POOL];           /* info = &infos[kind][i]; value = kind * POOL + i */
static model_event actual[MAX_EVENTS];
static int n_actual;
static double base_date;
static atomic_long retains, releases;

static void record(int kind, int index, int act)
{
    if (n_actual < MAX_EVENTS) actual[n_actual++] = (model_event){kind, index, act};
}
static int act_index(RLRunLoopActivity a)
{
    for (int i = 0; i < N_ACTS; i++)
        if (ACT_BITS[i] == a) return i;
    return -2;
}
static void source_perform(void *info) { record(KIND_SOURCE, *(int *)info % POOL, -1); }
static void timer_fired(RLRunLoopTimerRef t, void *info) { (void)t; record(KIND_TIMER, *(int *)info % POOL, -1); }
static void observer_called(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o;
    record(KIND_OBSERVER, *(int *)info % POOL, act_index(a));
}
static void block_run(void *info) { record(KIND_BLOCK, (int)(intptr_t)info, -1); }
static const void *ctx_retain(const void *info) { atomic_fetch_add(&retains, 1); return info; }
static void ctx_release(const void *info) { (void)info; atomic_fetch_add(&releases, 1); }
static void quiet(RLErrorCode c, const char *f, const char *m, void *i) { (void)c; (void)f; (void)m; (void)i; }

/* ---- the log of recent operations (printed on failure) ---- */
enum { LOG = 400 };
static char oplog[LOG][96];
static long op_number;
static void logop(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logop(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(oplog[op_number % LOG], sizeof oplog[0], fmt, ap);
    va_end(ap);
}

static uint64_t seed;
static long session;
static int failed;

static void print_events(const char *label, const model_event *e, int n)
{
    printf("  %s (%d):", label, n);
    for (int i = 0; i < n; i++) {
        if (e[i].kind == KIND_OBSERVER) printf(" O%d:%s", e[i].index, e[i].act >= 0 ? ACT_NAMES[e[i].act] : "?");
        else printf(" %c%d", "STOB"[e[i].kind], e[i].index);
    }
    printf("\n");
}

static void fail(const char *what)
{
    printf("MISMATCH (seed %" PRIu64 ", session %ld, op %ld): %s\n", seed, session, op_number, what);
    printf("last operations:\n");
    long first = op_number >= LOG - 1 ? op_number - (LOG - 1) : 0;
    for (long k = first; k <= op_number; k++) printf("  #%ld %s\n", k, oplog[k % LOG]);
    failed = 1;
}

/* ---- creating items ---- */
static void create_item(int kind, int i)
{
    long order = pick(3);
    int repeats = kind == KIND_OBSERVER ? pick(4) != 0 : pick(2);
    unsigned long mask = 0;
    if (kind == KIND_OBSERVER) {
        while (!mask)
            for (int a = 0; a < N_ACTS; a++)
                if (pick(3) == 0) mask |= ACT_BITS[a];
    }
    if (handles[kind][i]) RLRelease(handles[kind][i]);
    void *info = &infos[kind][i];
    switch (kind) {
    case KIND_SOURCE: {
        RLRunLoopSourceContext c = {0, info, ctx_retain, ctx_release, NULL, NULL, NULL, NULL, NULL, source_perform};
        handles[kind][i] = RLRunLoopSourceCreate(NULL, order, &c);
        break;
    }
    case KIND_TIMER: {
        RLRunLoopTimerContext c = {0, info, ctx_retain, ctx_release, NULL};
        handles[kind][i] = RLRunLoopTimerCreate(NULL, base_date + 1e6, repeats ? 1e7 : 0, 0, order, timer_fired, &c);
        break;
    }
    default: {
        RLRunLoopObserverContext c = {0, info, ctx_retain, ctx_release, NULL};
        handles[kind][i] = RLRunLoopObserverCreate(NULL, mask, (RLBoolean)repeats, order, observer_called, &c);
        break;
    }
    }
    if (!handles[kind][i]) fail("create returned NULL");
    model_create(&M, kind, i, order, repeats, mask);
    logop("create %s%d order %ld repeats %d mask %#lx", KIND_NAMES[kind], i, order, repeats, mask);
}

/* ---- engine calls by kind ---- */
static void rl_add(int k, int i, const char *m)
{
    if (k == KIND_SOURCE) RLRunLoopAddSource(loop, (RLRunLoopSourceRef)handles[k][i], m);
    else if (k == KIND_TIMER) RLRunLoopAddTimer(loop, (RLRunLoopTimerRef)handles[k][i], m);
    else RLRunLoopAddObserver(loop, (RLRunLoopObserverRef)handles[k][i], m);
}
static void rl_remove(int k, int i, const char *m)
{
    if (k == KIND_SOURCE) RLRunLoopRemoveSource(loop, (RLRunLoopSourceRef)handles[k][i], m);
    else if (k == KIND_TIMER) RLRunLoopRemoveTimer(loop, (RLRunLoopTimerRef)handles[k][i], m);
    else RLRunLoopRemoveObserver(loop, (RLRunLoopObserverRef)handles[k][i], m);
}
static int rl_contains(int k, int i, const char *m)
{
    if (k == KIND_SOURCE) return RLRunLoopContainsSource(loop, (RLRunLoopSourceRef)handles[k][i], m);
    if (k == KIND_TIMER) return RLRunLoopContainsTimer(loop, (RLRunLoopTimerRef)handles[k][i], m);
    return RLRunLoopContainsObserver(loop, (RLRunLoopObserverRef)handles[k][i], m);
}
static void rl_invalidate(int k, int i)
{
    if (k == KIND_SOURCE) RLRunLoopSourceInvalidate((RLRunLoopSourceRef)handles[k][i]);
    else if (k == KIND_TIMER) RLRunLoopTimerInvalidate((RLRunLoopTimerRef)handles[k][i]);
    else RLRunLoopObserverInvalidate((RLRunLoopObserverRef)handles[k][i]);
}
static int rl_valid(int k, int i)
{
    if (k == KIND_SOURCE) return RLRunLoopSourceIsValid((RLRunLoopSourceRef)handles[k][i]);
    if (k == KIND_TIMER) return RLRunLoopTimerIsValid((RLRunLoopTimerRef)handles[k][i]);
    return RLRunLoopObserverIsValid((RLRunLoopObserverRef)handles[k][i]);
}

/* Every item's membership, validity and signal agree with the model. */
static void compare_state(void)
{
    char what[128];
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < POOL; i++) {
            if (rl_valid(k, i) != M.items[k][i].valid) {
                snprintf(what, sizeof what, "%s%d valid: runloop %d, model %d", KIND_NAMES[k], i,
                         rl_valid(k, i), M.items[k][i].valid);
                fail(what);
                return;
            }
            for (int m = 0; m < N_MODES; m++) {
                int got = rl_contains(k, i, MODE_NAMES[m]), want = model_contains(&M, k, i, m);
                if (got != want) {
                    snprintf(what, sizeof what, "Contains(%s%d, %s): runloop %d, model %d", KIND_NAMES[k], i,
                             MODE_NAMES[m], got, want);
                    fail(what);
                    return;
                }
            }
        }
    for (int i = 0; i < POOL; i++) {
        int got = RLRunLoopSourceIsSignalled((RLRunLoopSourceRef)handles[KIND_SOURCE][i]);
        if (M.items[KIND_SOURCE][i].valid && got != M.items[KIND_SOURCE][i].signalled) {
            snprintf(what, sizeof what, "source%d signalled: runloop %d, model %d", i, got,
                     M.items[KIND_SOURCE][i].signalled);
            fail(what);
            return;
        }
    }
}

static int next_block_id;

static void one_op(void)
{
    snprintf(oplog[op_number % LOG], sizeof oplog[0], "(no-op)");
    int k = pick(3), i = pick(POOL), m = pick(N_MODES);
    int r = pick(100);
    if (r < 22) {
        logop("add %s%d to %s", KIND_NAMES[k], i, MODE_NAMES[m]);
        rl_add(k, i, MODE_NAMES[m]);
        model_add(&M, k, i, m);
    } else if (r < 32) {
        logop("remove %s%d from %s", KIND_NAMES[k], i, MODE_NAMES[m]);
        rl_remove(k, i, MODE_NAMES[m]);
        model_remove(&M, k, i, m);
    } else if (r < 44) {
        /* the one-call form marks it the same way (its wake-up changes
         * nothing in this single-threaded model) */
        int and_wake = pick(2);
        logop("signal%s source%d", and_wake ? " and wake up" : "", i);
        if (and_wake) RLRunLoopSourceSignalAndWakeUp((RLRunLoopSourceRef)handles[KIND_SOURCE][i]);
        else RLRunLoopSourceSignal((RLRunLoopSourceRef)handles[KIND_SOURCE][i]);
        model_signal(&M, i);
    } else if (r < 47) {
        logop("invalidate %s%d", KIND_NAMES[k], i);
        rl_invalidate(k, i);
        model_invalidate(&M, k, i);
    } else if (r < 53) {
        if (M.items[k][i].valid) return;
        create_item(k, i);
    } else if (r < 60) {
        int id = next_block_id++;
        if (!model_perform(&M, id, m)) return;
        logop("perform block%d in %s", id, MODE_NAMES[m]);
        RLRunLoopPerformFunction(loop, MODE_NAMES[m], block_run, (void *)(intptr_t)id);
    } else if (r < 72) {
        int rank = pick(4) - 1;  /* -1: far future; 0..2: past, equal ranks equal dates */
        double date = rank < 0 ? base_date + 1e6 : base_date - 1.0 + rank * 0.001;
        logop("set fire date of timer%d: %s %d", i, rank < 0 ? "future" : "past rank", rank);
        RLRunLoopTimerSetNextFireDate((RLRunLoopTimerRef)handles[KIND_TIMER][i], date);
        model_set_fire_date(&M, i, rank);
    } else if (r < 74) {
        int cm = 1 + pick(3);
        logop("AddCommonMode %s", MODE_NAMES[cm]);
        RLRunLoopAddCommonMode(loop, MODE_NAMES[cm]);
        model_add_common_mode(&M, cm);
    } else {
        int rash = pick(2);
        logop("RunInMode(%s, 0, %d)", MODE_NAMES[m], rash);
        n_actual = 0;
        int got = RLRunLoopRunInMode(MODE_NAMES[m], 0, (RLBoolean)rash);
        int want = model_run(&M, m, rash);
        int same = got == want && n_actual == M.n_events;
        for (int e = 0; same && e < n_actual; e++)
            same = actual[e].kind == M.events[e].kind && actual[e].index == M.events[e].index &&
                   actual[e].act == M.events[e].act;
        if (!same) {
            char what[96];
            snprintf(what, sizeof what, "RunInMode: runloop returned %d, model %d (callouts below)", got, want);
            fail(what);
            print_events("runloop", actual, n_actual);
            print_events("model  ", M.events, M.n_events);
        }
    }
}

static long session_ops;
static void *session_main(void *arg)
{
    (void)arg;
    RLSetErrorHandler(quiet, NULL);
    loop = RLRunLoopGetCurrent();
    base_date = RLAbsoluteTimeGetCurrent();
    model_init(&M);
    memset(handles, 0, sizeof handles);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < POOL; i++) {
            infos[k][i] = k * POOL + i;
            create_item(k, i);
        }
    for (long n = 0; n < session_ops && !failed; n++, op_number++) {
        one_op();
        if (!failed) compare_state();
    }
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < POOL; i++) RLRelease(handles[k][i]);
    return NULL;
}

int main(int argc, char **argv)
{
    long ops = 100000, per = 2000;
    int quiet_mode = 0;
    seed = 0x5EED2024ULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--seed") && a + 1 < argc) seed = strtoull(argv[++a], NULL, 0);
        else if (!strcmp(argv[a], "--ops") && a + 1 < argc) ops = strtol(argv[++a], NULL, 0);
        else if (!strcmp(argv[a], "--session") && a + 1 < argc) per = strtol(argv[++a], NULL, 0);
        else if (!strcmp(argv[a], "--quiet")) quiet_mode = 1;
        else {
            fprintf(stderr, "usage: %s [--seed N] [--ops N] [--session N] [--quiet]\n", argv[0]);
            return 2;
        }
    }
    if (per < 1) per = 1;
    rng = seed ? seed : 1;
    printf("test_model: seed %" PRIu64 ", %ld operations, sessions of %ld\n", seed, ops, per);
    for (session = 0; op_number < ops && !failed; session++) {
        session_ops = ops - op_number < per ? ops - op_number : per;
        pthread_t t;
        if (pthread_create(&t, NULL, session_main, NULL) != 0) { perror("pthread_create"); return 2; }
        pthread_join(t, NULL);
        if (!quiet_mode && session % 10 == 9) printf("  %ld operations\n", op_number);
    }
    long r = atomic_load(&retains), l = atomic_load(&releases);
    if (!failed && r != l) {
        printf("FAIL (seed %" PRIu64 "): context retains %ld != releases %ld\n", seed, r, l);
        failed = 1;
    }
    if (failed) {
        printf("FAIL test_model: replay with --seed %" PRIu64 " --ops %ld\n", seed, ops);
        return 1;
    }
    printf("ok test_model: %ld operations, %ld sessions, context retains = releases = %ld\n", op_number, session, r);
    return 0;
}
