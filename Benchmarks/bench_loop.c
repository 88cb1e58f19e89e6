/*
 * bench_loop.c — the CFRunLoop-shaped workloads, built twice from this one
 * source: against runloop (impl "runloop") and, with -DBENCH_CF, against the
 * toolchain's CoreFoundation (impl "cf").  Every loop runs on a secondary
 * thread in the default mode (on CF's main thread the common modes also
 * serve the libdispatch main queue).
 *
 *   bench_loop pingpong  ROUNDS           cross-thread source ping-pong
 *   bench_loop perform   PRODUCERS ITEMS  perform-function + wake-up rate
 *   bench_loop performblock PRODUCERS ITEMS  the same with a capturing block
 *                                         (RLRunLoopPerformBlock; CF: the
 *                                         same as perform)
 *   bench_loop signal    PRODUCERS ITEMS  source signal + wake-up rate
 *   bench_loop signalone PRODUCERS ITEMS  the same in one call: runloop's
 *                                         RLRunLoopSourceSignalAndWakeUp
 *                                         (CF has none: its pair again)
 *                                         (the *_mem build: also malloc
 *                                         calls per item, whole process)
 *   bench_loop hotcall   ITEMS            signal + wake-up that change nothing
 *                                         (source and wake-up already
 *                                         pending): the producer's per-item
 *                                         floor in a signal flood
 *   bench_loop hotone    ITEMS            the same for signalone's call
 *   bench_loop signalfn, signalonefn, hotcallfn, hotonefn
 *                                         signal, signalone, hotcall, hotone
 *                                         with the library functions (see
 *                                         below; CF: the same as without fn)
 *   bench_loop timers    N                N one-shot timers, run until all fired
 *   bench_loop spread    N                N one-shot timers due over the next
 *                                         2 ms in shuffled order
 *   bench_loop sources   N EVENTS         N sources, signal one at a time
 *                                         (EVENTS or more: at least 200 ms;
 *                                         N > 1: interleaved with one source
 *                                         alone in another mode)
 *   bench_loop idle      TIMER(0|1)       wake-ups over 3.25 s
 *   bench_loop lateness  FIRES            timer lateness at tolerance 0
 *   bench_loop memory    N                bytes per loop / timer / source
 *                                         (the *_mem build only)
 *
 * runloop's build includes the opt-in <runloop/fastpath.h>: the producers'
 * RLRunLoopSourceSignal, RLRunLoopWakeUp and RLRunLoopSourceSignalAndWakeUp
 * check "already pending" inline in every workload but the *fn ones, which
 * call the library functions, as a program that does not include
 * fastpath.h (and any FFI caller) does.
 */
#include "bench.h"
#include <sys/eventfd.h>
#include <stdatomic.h>

#ifdef BENCH_CF
#include <CoreFoundation/CoreFoundation.h>
#define X(name) CF##name
#define K(name) kCF##name
#define IMPL "cf"
typedef Boolean XBoolean;
#else
#include <runloop/runloop.h>
#include <runloop/fastpath.h>   /* opt-in: the inline rows */
#define X(name) RL##name
#define K(name) kRL##name
#if defined(BENCH_DRIVER_GLIB)
#include "rl_glib.h"
#define IMPL "runloop_glib"
#elif defined(BENCH_DRIVER_UV)
#include "rl_uv.h"
#define IMPL "runloop_uv"
#else
#define IMPL "runloop"
#endif
typedef RLBoolean XBoolean;
#endif

/* The library function, never fastpath.h's macro: a parenthesized name is
 * not a macro call.  What a caller without fastpath.h compiles. */
#define FN(name) (X(name))

#define MODE K(RunLoopDefaultMode)
typedef X(RunLoopRef) LoopRef;
typedef X(RunLoopSourceRef) SourceRef;
typedef X(RunLoopTimerRef) TimerRef;

/* Signal + wake-up as one call where the implementation has one (runloop's
 * RLRunLoopSourceSignalAndWakeUp, like libuv's uv_async_send); CF has
 * none, so its build makes the pair of calls. */
static void signal_one_call(SourceRef src, LoopRef rl)
{
#ifdef BENCH_CF
    CFRunLoopSourceSignal(src);
    CFRunLoopWakeUp(rl);
#else
    (void)rl;
    RLRunLoopSourceSignalAndWakeUp(src);
#endif
}

/* The same through the library function (the *fn workloads). */
static void signal_one_call_fn(SourceRef src, LoopRef rl)
{
#ifdef BENCH_CF
    FN(RunLoopSourceSignal)(src);
    FN(RunLoopWakeUp)(rl);
#else
    (void)rl;
    FN(RunLoopSourceSignalAndWakeUp)(src);
#endif
}

/* Queues fn(info) on rl (CF on Linux exports no CFRunLoopPerformFunction:
 * its build uses CFRunLoopPerformBlock, what a CF user would write). */
static void post(LoopRef rl, void (*fn)(void *), void *info)
{
#ifdef BENCH_CF
    CFRunLoopPerformBlock(rl, MODE, ^{ fn(info); });
#else
    RLRunLoopPerformFunction(rl, MODE, fn, info);
#endif
}

#ifndef BENCH_CF
/* A capturing block, laid out as clang -fblocks lays out ^{ fn(info); }
 * (Clang's Block ABI): this file is built by the default C compiler, which
 * may have no blocks, so the block is made by hand and passed as the
 * pointer a block argument is.  The library copies it like any block. */
#if !defined(__BLOCKS__)
void RLRunLoopPerformBlock(RLRunLoopRef rl, RLTypeRef mode, const void *block);
#endif
struct capturing_block {
    void *isa;
    int flags, reserved;
    void (*invoke)(struct capturing_block *);
    const struct block_descriptor { unsigned long reserved, size; } *descriptor;
    void (*fn)(void *);
    void *info;
};
extern void *_NSConcreteStackBlock[] __attribute__((weak));
static void capturing_block_invoke(struct capturing_block *b) { b->fn(b->info); }
static const struct block_descriptor capturing_block_descriptor = { 0, sizeof(struct capturing_block) };
#endif

/* The same as post() with a capturing block (CF: post() itself). */
static void post_block(LoopRef rl, void (*fn)(void *), void *info)
{
#ifdef BENCH_CF
    post(rl, fn, info);
#else
    struct capturing_block b = { _NSConcreteStackBlock, 0, 0, capturing_block_invoke, &capturing_block_descriptor, fn, info };
    RLRunLoopPerformBlock(rl, MODE, (void *)&b);
#endif
}

static SourceRef new_source(void *info, void (*perform)(void *))
{
    X(RunLoopSourceContext) ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = info;
    ctx.perform = perform;
    return X(RunLoopSourceCreate)(NULL, 0, &ctx);
}

static TimerRef new_timer(double fire, double interval, void *info,
                          void (*fn)(TimerRef, void *))
{
    X(RunLoopTimerContext) ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = info;
    return X(RunLoopTimerCreate)(NULL, fire, interval, 0, 0, fn, &ctx);
}

static void nothing(void *info) { (void)info; }

/* Runs the current thread's loop until *done: natively, or (built with
 * -DBENCH_DRIVER_GLIB / -DBENCH_DRIVER_UV: bench_runloop_glib/_uv) driven
 * from a GMainContext or a libuv loop through adapters/, issue 26. */
#if defined(BENCH_DRIVER_GLIB)
static void run_until(atomic_int *done)
{
    GMainContext *ctx = g_main_context_new();
    GSource *src = rl_glib_source_new(RLRunLoopGetCurrent(), MODE);
    g_source_attach(src, ctx);
    while (!atomic_load(done)) g_main_context_iteration(ctx, TRUE);
    g_source_destroy(src);
    g_source_unref(src);
    g_main_context_unref(ctx);
}
#elif defined(BENCH_DRIVER_UV)
static void run_until(atomic_int *done)
{
    uv_loop_t uv;
    uv_loop_init(&uv);
    rl_uv *adapter = rl_uv_start(&uv, RLRunLoopGetCurrent(), MODE);
    while (!atomic_load(done)) uv_run(&uv, UV_RUN_ONCE);
    rl_uv_stop(adapter);
    uv_run(&uv, UV_RUN_DEFAULT);
    uv_loop_close(&uv);
}
#else
static void run_until(atomic_int *done)
{
    while (!atomic_load(done)) X(RunLoopRunInMode)(MODE, 1e6, false);
}
#endif

/* ------------------------------------------------------------------------
 * 1. ping-pong: A signals B's source and wakes B; B's perform signals A's.
 * ---------------------------------------------------------------------- */
struct pingpong {
    LoopRef loop[2];
    SourceRef src[2];
    pthread_barrier_t ready;
    atomic_int done;
    long rounds, count, warmup;
    uint64_t t0, *rtt;
};

static void pp_kick(struct pingpong *p)
{
    p->t0 = now_ns();
    X(RunLoopSourceSignal)(p->src[1]);
    X(RunLoopWakeUp)(p->loop[1]);
}

static void pp_perform_b(void *info)
{
    struct pingpong *p = info;
    X(RunLoopSourceSignal)(p->src[0]);
    X(RunLoopWakeUp)(p->loop[0]);
}

static void pp_perform_a(void *info)
{
    struct pingpong *p = info;
    uint64_t t = now_ns();
    if (p->count >= 0) p->rtt[p->count] = t - p->t0;
    if (++p->count == p->rounds) {
        atomic_store(&p->done, 1);
        X(RunLoopStop)(p->loop[1]);
        X(RunLoopStop)(p->loop[0]);
        return;
    }
    pp_kick(p);
}

static void *pp_thread_b(void *arg)
{
    struct pingpong *p = arg;
    p->loop[1] = (LoopRef)X(Retain)(X(RunLoopGetCurrent)());
    p->src[1] = new_source(p, pp_perform_b);
    X(RunLoopAddSource)(p->loop[1], p->src[1], MODE);
    pthread_barrier_wait(&p->ready);
    run_until(&p->done);
    return NULL;
}

static void *pp_thread_a(void *arg)
{
    struct pingpong *p = arg;
    p->loop[0] = (LoopRef)X(Retain)(X(RunLoopGetCurrent)());
    p->src[0] = new_source(p, pp_perform_a);
    X(RunLoopAddSource)(p->loop[0], p->src[0], MODE);
    pthread_barrier_wait(&p->ready);
    pp_kick(p);
    run_until(&p->done);
    return NULL;
}

static void bench_pingpong(long rounds)
{
    struct pingpong p;
    memset(&p, 0, sizeof p);
    p.warmup = rounds / 10 + 100;
    p.rounds = rounds;
    p.count = -p.warmup;
    p.rtt = xcalloc((size_t)rounds, sizeof *p.rtt);
    pthread_barrier_init(&p.ready, NULL, 2);
    pthread_t b = spawn(pp_thread_b, &p), a = spawn(pp_thread_a, &p);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    report_pingpong(IMPL, p.rtt, (size_t)rounds);
    for (int i = 0; i < 2; i++) {
        X(RunLoopSourceInvalidate)(p.src[i]);
        X(Release)(p.src[i]);
        X(Release)(p.loop[i]);
    }
    free(p.rtt);
}

/* ------------------------------------------------------------------------
 * 2. producer -> loop throughput (perform-function or source signal).
 * ---------------------------------------------------------------------- */
struct flood {
    LoopRef loop;
    SourceRef src;
    pthread_barrier_t ready, go;
    atomic_int done, producers_done;
    /* use_signal: 0 perform-function + wake-up (block: a capturing block),
     * 1 signal + wake-up, 2 signal_one_call */
    int producers, use_signal, fn, block;
    long items, consumed, performs;
    uint64_t t_end;
    /* malloc calls of the whole process, at the start and the stop (the
     * *_mem build only) */
    unsigned long mallocs_start, mallocs_end;
};

static void flood_stop(struct flood *f)
{
    f->t_end = now_ns();
    if (malloc_stats_now) f->mallocs_end = malloc_stats_now().calls;
    atomic_store(&f->done, 1);
    X(RunLoopStop)(f->loop);
}

static void flood_item(void *info)
{
    struct flood *f = info;
    if (++f->consumed == f->items * f->producers) flood_stop(f);
}

static void flood_perform(void *info)
{
    struct flood *f = info;
    f->performs++;
    if (atomic_load(&f->producers_done) == f->producers && !atomic_load(&f->done)) flood_stop(f);
}

static void *flood_consumer(void *arg)
{
    struct flood *f = arg;
    f->loop = (LoopRef)X(Retain)(X(RunLoopGetCurrent)());
    f->src = new_source(f, flood_perform);
    X(RunLoopAddSource)(f->loop, f->src, MODE);
    pthread_barrier_wait(&f->ready);
    run_until(&f->done);
    return NULL;
}

static void *flood_producer(void *arg)
{
    struct flood *f = arg;
    pthread_barrier_wait(&f->go);
    if (f->use_signal == 2 && f->fn) {
        for (long i = 0; i < f->items; i++) signal_one_call_fn(f->src, f->loop);
    } else if (f->use_signal == 2) {
        for (long i = 0; i < f->items; i++) signal_one_call(f->src, f->loop);
    } else if (f->use_signal == 1 && f->fn) {
        for (long i = 0; i < f->items; i++) {
            FN(RunLoopSourceSignal)(f->src);
            FN(RunLoopWakeUp)(f->loop);
        }
    } else {
        for (long i = 0; i < f->items; i++) {
            if (f->use_signal) X(RunLoopSourceSignal)(f->src);
            else if (f->block) post_block(f->loop, flood_item, f);
            else post(f->loop, flood_item, f);
            X(RunLoopWakeUp)(f->loop);
        }
    }
    if (f->use_signal && atomic_fetch_add(&f->producers_done, 1) + 1 == f->producers) {
        /* a last signal after producers_done is complete: its perform stops */
        X(RunLoopSourceSignal)(f->src);
        X(RunLoopWakeUp)(f->loop);
    }
    return NULL;
}

static void bench_flood(int use_signal, int fn, int block, int producers, long items)
{
    struct flood f;
    memset(&f, 0, sizeof f);
    f.use_signal = use_signal;
    f.fn = fn;
    f.block = block;
    f.producers = producers;
    f.items = items;
    pthread_barrier_init(&f.ready, NULL, 2);
    pthread_barrier_init(&f.go, NULL, (unsigned)producers + 1);
    pthread_t c = spawn(flood_consumer, &f);
    pthread_barrier_wait(&f.ready);
    pthread_t p[2];
    for (int i = 0; i < producers; i++) p[i] = spawn(flood_producer, &f);
    if (malloc_stats_now) f.mallocs_start = malloc_stats_now().calls;
    uint64_t t0 = now_ns();
    pthread_barrier_wait(&f.go);
    for (int i = 0; i < producers; i++) pthread_join(p[i], NULL);
    pthread_join(c, NULL);
    char name[32];
    static const char *const names[] = { "perform", "signal", "signalone" };
    snprintf(name, sizeof name, "%s%s%s%d", names[use_signal], block ? "block" : "", fn ? "fn" : "", producers);
    result(name, IMPL, "rate", (double)(items * producers) / ((double)(f.t_end - t0) / 1e9), "ops/s");
    if (use_signal) result(name, IMPL, "ops_per_callout", (double)(items * producers) / (double)f.performs, "x");
    if (malloc_stats_now)  /* producers and loop together */
        result(name, IMPL, "mallocs_per_op", (double)(f.mallocs_end - f.mallocs_start) / (double)(items * producers), "n");
    X(RunLoopSourceInvalidate)(f.src);
    X(Release)(f.src);
    X(Release)(f.loop);
}

/* ------------------------------------------------------------------------
 * 2b. the producer's floor in a signal flood: signal + wake-up on a loop
 *     whose source and wake-up are already pending, so the calls change
 *     nothing.  Timed inside a callout of the running loop (the state a
 *     flood's producer mostly sees), on one thread (no cache-line transfers).
 * ---------------------------------------------------------------------- */
struct hotcall { LoopRef loop; SourceRef src; long items; int one_call, fn; const char *name; };

static void hotcall_run(void *info)
{
    struct hotcall *h = info;
    X(RunLoopSourceSignal)(h->src);  /* from here both are pending */
    X(RunLoopWakeUp)(h->loop);
    double per_op;
    if (h->one_call) {
        signal_one_call(h->src, h->loop);  /* pending and woken */
        if (h->fn) {
            per_op = HOT_PER_OP(h->items, signal_one_call_fn(h->src, h->loop));
        } else {
            per_op = HOT_PER_OP(h->items, signal_one_call(h->src, h->loop));
        }
    } else if (h->fn) {
        per_op = HOT_PER_OP(h->items, FN(RunLoopSourceSignal)(h->src); FN(RunLoopWakeUp)(h->loop));
    } else {
        per_op = HOT_PER_OP(h->items, X(RunLoopSourceSignal)(h->src); X(RunLoopWakeUp)(h->loop));
    }
    result(h->name, IMPL, "per_op", per_op, "ns");
    X(RunLoopSourceInvalidate)(h->src);
    X(RunLoopStop)(h->loop);
}

static void *hotcall_thread(void *arg)
{
    struct hotcall *h = arg;
    h->loop = X(RunLoopGetCurrent)();
    h->src = new_source(h, nothing);
    X(RunLoopAddSource)(h->loop, h->src, MODE);
    post(h->loop, hotcall_run, h);
    X(RunLoopRunInMode)(MODE, 60, false);
    X(Release)(h->src);
    return NULL;
}

/* ------------------------------------------------------------------------
 * 3. N one-shot timers, distinct fire dates added in shuffled order, all
 *    due by the time the loop runs: measures scheduling + firing.
 * ---------------------------------------------------------------------- */
struct timers { long n, fired; atomic_int done; };

static void timer_fired(TimerRef t, void *info)
{
    (void)t;
    struct timers *s = info;
    if (++s->fired == s->n) {
        atomic_store(&s->done, 1);
        X(RunLoopStop)(X(RunLoopGetCurrent)());
    }
}

static void *timers_thread(void *arg)
{
    struct timers *s = arg;
    LoopRef rl = X(RunLoopGetCurrent)();
    uint32_t *perm = shuffled((size_t)s->n);
    /* 2.5e-7 s apart: two ulps of an absolute time near 2025, so distinct */
    double base = X(AbsoluteTimeGetCurrent)() - 1.0 - (double)s->n * 2.5e-7;
    long rss0 = timers_rss_start();
    uint64_t t0 = now_ns();
    for (long i = 0; i < s->n; i++) {
        TimerRef t = new_timer(base + perm[i] * 2.5e-7, 0, s, timer_fired);
        X(RunLoopAddTimer)(rl, t, MODE);
        X(Release)(t);
    }
    uint64_t t1 = now_ns();
    run_until(&s->done);
    uint64_t t2 = now_ns();
    report_timers(IMPL, s->n, t0, t1, t2, rss0);
    free(perm);
    return NULL;
}

/* ------------------------------------------------------------------------
 * 3b. N one-shot timers with shuffled distinct fire dates spread over the
 *     SPREAD_NS after the first add (issue 25's "random deadlines"): the
 *     loop sleeps until the earliest, fires what is due, sleeps again.
 *     Reports the wall time from the first add to the last firing (at
 *     least the 2 ms span) and the loop thread's CPU time over it.
 * ---------------------------------------------------------------------- */
static void *spread_thread(void *arg)
{
    struct timers *s = arg;
    LoopRef rl = X(RunLoopGetCurrent)();
    uint32_t *perm = shuffled((size_t)s->n);
    struct thread_usage u0 = thread_usage();
    uint64_t t0 = now_ns();
    double base = X(AbsoluteTimeGetCurrent)();
    for (long i = 0; i < s->n; i++) {
        double offset = (double)SPREAD_NS * 1e-9 * (double)(perm[i] + 1) / (double)s->n;
        TimerRef t = new_timer(base + offset, 0, s, timer_fired);
        X(RunLoopAddTimer)(rl, t, MODE);
        X(Release)(t);
    }
    run_until(&s->done);
    uint64_t t1 = now_ns();
    struct thread_usage u1 = thread_usage();
    report_spread(s->n, IMPL, t1 - t0, u1.cpu_us - u0.cpu_us);
    free(perm);
    return NULL;
}

/* ------------------------------------------------------------------------
 * 4. N version-0 sources in the mode; signal one at a time and run one
 *    pass.  With N > 1 the loop also has a mode holding one source alone,
 *    signalled in alternate blocks (run_sources in bench.h).
 * ---------------------------------------------------------------------- */
struct sources { long n, events, performed; SourceRef *src, solo; };

/* info is &slot[i], slot[i] == the shared struct: CF treats sources with
 * equal contexts as the same source, so every context must differ. */
static void source_performed(void *info) { (*(struct sources **)info)->performed++; }

#ifdef BENCH_CF
#define SOLO_MODE CFSTR("bench.solo")
#else
#define SOLO_MODE "bench.solo"
#endif

static void sources_event(void *arg, long i)
{
    struct sources *s = arg;
    if (i < 0) {
        X(RunLoopSourceSignal)(s->solo);
        X(RunLoopRunInMode)(SOLO_MODE, 0, true);
    } else {
        X(RunLoopSourceSignal)(s->src[i]);
        X(RunLoopRunInMode)(MODE, 0, true);
    }
}

static void *sources_thread(void *arg)
{
    struct sources *s = arg;
    LoopRef rl = X(RunLoopGetCurrent)();
    s->src = xcalloc((size_t)s->n, sizeof *s->src);
    struct sources **slot = xcalloc((size_t)s->n + 1, sizeof *slot);
    for (long i = 0; i <= s->n; i++) slot[i] = s;
    for (long i = 0; i < s->n; i++) {
        s->src[i] = new_source(&slot[i], source_performed);
        X(RunLoopAddSource)(rl, s->src[i], MODE);
    }
    if (s->n > 1) {
        s->solo = new_source(&slot[s->n], source_performed);
        X(RunLoopAddSource)(rl, s->solo, SOLO_MODE);
    }
    long runs = run_sources(IMPL, s->n, s->events, sources_event, s);
    if (s->performed != runs)
        fprintf(stderr, "sources: %ld performs for %ld events\n", s->performed, runs);
    if (s->solo) {
        X(RunLoopSourceInvalidate)(s->solo);
        X(Release)(s->solo);
    }
    for (long i = 0; i < s->n; i++) {
        X(RunLoopSourceInvalidate)(s->src[i]);
        X(Release)(s->src[i]);
    }
    free(s->src);
    free(slot);
    return NULL;
}

/* ------------------------------------------------------------------------
 * 5. 1,000 descriptors ready at once (runloop only: CF on Linux has no
 *    fd sources): 1,000 pipes, each a version-1 source; write one byte to
 *    every pipe, then run until all 1,000 were performed.  Reports the time
 *    for the whole burst and the passes it took.
 * ---------------------------------------------------------------------- */
#ifndef BENCH_CF
#include <fcntl.h>
#include <unistd.h>

enum { FDS = 1000 };
static long g_fd_performed;

static int fd_port(void *info) { return ((int *)info)[0]; }
static void fd_perform(void *info)
{
    char c;
    if (read(((int *)info)[0], &c, 1) == 1) g_fd_performed++;
}

static long g_fd_passes;
static void fd_count_pass(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o; (void)a; (void)info;
    g_fd_passes++;
}

static void *fds_thread(void *arg)
{
    long rounds = *(long *)arg;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int (*p)[2] = xcalloc(FDS, sizeof *p);
    RLRunLoopSourceRef *src = xcalloc(FDS, sizeof *src);
    for (int i = 0; i < FDS; i++) {
        if (pipe2(p[i], O_CLOEXEC | O_NONBLOCK) != 0) { perror("pipe2"); exit(2); }
        RLRunLoopSourceContext1 ctx = {0};
        ctx.version = 1;
        ctx.info = p[i];
        ctx.getPort = fd_port;
        ctx.perform = fd_perform;
        src[i] = RLRunLoopSourceCreate(NULL, 0, (RLRunLoopSourceContext *)&ctx);
        RLRunLoopAddSource(rl, src[i], MODE);
    }
    RLRunLoopObserverRef obs = RLRunLoopObserverCreate(NULL, kRLRunLoopBeforeTimers, 1, 0, fd_count_pass, NULL);
    RLRunLoopAddObserver(rl, obs, MODE);
    uint64_t total = 0;
    long passes = 0;
    for (long r = -1; r < rounds; r++) {  /* round -1 warms up */
        for (int i = 0; i < FDS; i++)
            if (write(p[i][1], "x", 1) != 1) { perror("write"); exit(2); }
        g_fd_performed = 0;
        g_fd_passes = 0;
        uint64_t t0 = now_ns();
        while (g_fd_performed < FDS) RLRunLoopRunInMode(MODE, 1.0, true);
        uint64_t t1 = now_ns();
        if (r >= 0) { total += t1 - t0; passes += g_fd_passes; }
    }
    report_fds(IMPL, total, passes, rounds);
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
    for (int i = 0; i < FDS; i++) {
        RLRunLoopSourceInvalidate(src[i]);
        RLRelease(src[i]);
        close(p[i][0]);
        close(p[i][1]);
    }
    free(src);
    free(p);
    return NULL;
}

/* ------------------------------------------------------------------------
 * 5b. one ready descriptor among N registered: N eventfds (one
 *     descriptor each, so 10,000 fit the usual limit), each a version-1
 *     source; per round one of them (a different one each round) is
 *     signalled and the loop runs until it was performed.  Reports the
 *     time per round: what a pass costs with N descriptors watched.
 * ---------------------------------------------------------------------- */
struct fdone { long n, rounds; };

static void efd_perform(void *info)
{
    eventfd_t v;
    if (eventfd_read(*(int *)info, &v) == 0) g_fd_performed++;
}

static void *fdone_thread(void *arg)
{
    struct fdone *f = arg;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int *p = xcalloc((size_t)f->n, sizeof *p);
    RLRunLoopSourceRef *src = xcalloc((size_t)f->n, sizeof *src);
    for (long i = 0; i < f->n; i++) {
        if ((p[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) { perror("eventfd"); exit(2); }
        RLRunLoopSourceContext1 ctx = {0};
        ctx.version = 1;
        ctx.info = &p[i];
        ctx.getPort = fd_port;
        ctx.perform = efd_perform;
        src[i] = RLRunLoopSourceCreate(NULL, 0, (RLRunLoopSourceContext *)&ctx);
        RLRunLoopAddSource(rl, src[i], MODE);
    }
    RLRunLoopRunInMode(MODE, 0, false);  /* the wait set is made before timing */
    g_fd_performed = 0;
    uint64_t t0 = now_ns();
    for (long r = 0; r < f->rounds; r++) {
        long k = (r * 7919) % f->n;
        if (eventfd_write(p[k], 1) != 0) { perror("write"); exit(2); }
        while (g_fd_performed <= r) RLRunLoopRunInMode(MODE, 1.0, true);
    }
    uint64_t t1 = now_ns();
    char name[32];
    snprintf(name, sizeof name, "fdone%ld", f->n);
    result(name, IMPL, "per_ready", (double)(t1 - t0) / (double)f->rounds, "ns");
    for (long i = 0; i < f->n; i++) {
        RLRunLoopSourceInvalidate(src[i]);
        RLRelease(src[i]);
        close(p[i]);
    }
    free(src);
    free(p);
    return NULL;
}
/* ------------------------------------------------------------------------
 * 5c. the same round as a ported CF program writes it: N eventfds, each
 *     an RLFileDescriptor with read callbacks enabled and its own run
 *     loop source; per round one of them is written, and
 *     RLRunLoopRunInMode(default, 1.0, true) runs until its callout has
 *     read it and re-enabled read callbacks (they are one-shot, CF's
 *     model).  Reports the time per round.
 * ---------------------------------------------------------------------- */
static void fdcf_callout(RLFileDescriptorRef f, RLOptionFlags types, void *info)
{
    (void)types;
    eventfd_t v;
    if (eventfd_read(*(int *)info, &v) == 0) g_fd_performed++;
    RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
}

static void *fdcf_thread(void *arg)
{
    struct fdone *f = arg;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int *p = xcalloc((size_t)f->n, sizeof *p);
    RLFileDescriptorRef *fds = xcalloc((size_t)f->n, sizeof *fds);
    for (long i = 0; i < f->n; i++) {
        if ((p[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) { perror("eventfd"); exit(2); }
        RLFileDescriptorContext ctx = { 0, &p[i], NULL, NULL, NULL };
        fds[i] = RLFileDescriptorCreate(NULL, p[i], false, fdcf_callout, &ctx);
        RLFileDescriptorEnableCallBacks(fds[i], kRLFileDescriptorReadCallBack);
        RLRunLoopSourceRef s = RLFileDescriptorCreateRunLoopSource(NULL, fds[i], 0);
        RLRunLoopAddSource(rl, s, kRLRunLoopDefaultMode);
        RLRelease(s);
    }
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, false);  /* the wait set is made before timing */
    g_fd_performed = 0;
    uint64_t t0 = now_ns();
    for (long r = 0; r < f->rounds; r++) {
        long k = (r * 7919) % f->n;
        if (eventfd_write(p[k], 1) != 0) { perror("write"); exit(2); }
        while (g_fd_performed <= r) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, true);
    }
    uint64_t t1 = now_ns();
    char name[32];
    snprintf(name, sizeof name, "fdcf%ld", f->n);
    result(name, IMPL, "per_ready", (double)(t1 - t0) / (double)f->rounds, "ns");
    for (long i = 0; i < f->n; i++) {
        RLFileDescriptorInvalidate(fds[i]);
        RLRelease(fds[i]);
        close(p[i]);
    }
    free(fds);
    free(p);
    return NULL;
}
#endif

/* ------------------------------------------------------------------------
 * 6. idle: 3.25 s with only a never-signalled source (and optionally a 1 s
 *    repeating timer firing at 1, 2, 3 s).  Wake-ups = AfterWaiting
 *    observer calls and voluntary context switches, minus the final one.
 * ---------------------------------------------------------------------- */
static long g_after_waiting;

static void count_wakeup(X(RunLoopObserverRef) o, X(RunLoopActivity) a, void *info)
{
    (void)o; (void)a; (void)info;
    g_after_waiting++;
}

static void tick(TimerRef t, void *info) { (void)t; (void)info; }

static void *idle_thread(void *arg)
{
    int with_timer = *(int *)arg;
    LoopRef rl = X(RunLoopGetCurrent)();
    SourceRef s = new_source(NULL, nothing);
    X(RunLoopAddSource)(rl, s, MODE);
    X(RunLoopObserverRef) o = X(RunLoopObserverCreate)(NULL, K(RunLoopAfterWaiting), true, 0, count_wakeup, NULL);
    X(RunLoopAddObserver)(rl, o, MODE);
    TimerRef t = NULL;
    if (with_timer) {
        t = new_timer(X(AbsoluteTimeGetCurrent)() + 1.0, 1.0, NULL, tick);
        X(RunLoopAddTimer)(rl, t, MODE);
    }
    /* One pass that only polls (no AfterWaiting) first: what a loop sets up
     * at its first run is not idle time (runloop makes its descriptors
     * there; GLib and libuv make theirs with the loop, before their u0). */
    X(RunLoopRunInMode)(MODE, 0, false);
    struct thread_usage u0 = thread_usage();
    X(RunLoopRunInMode)(MODE, 3.25, false);
    struct thread_usage u1 = thread_usage();
    const char *name = with_timer ? "idle_timer" : "idle";
    result(name, IMPL, "wakeups", (double)(g_after_waiting - 1), "n");
    report_idle(name, IMPL, u0, u1);
    if (t) { X(RunLoopTimerInvalidate)(t); X(Release)(t); }
    X(RunLoopObserverInvalidate)(o); X(Release)(o);
    X(RunLoopSourceInvalidate)(s); X(Release)(s);
    return NULL;
}

/* ------------------------------------------------------------------------
 * 7. lateness: a 2 ms repeating timer at tolerance 0; each callout records
 *    now - the fire date being served.
 * ---------------------------------------------------------------------- */
struct late { long fires, count; int64_t *ns; atomic_int done; };

static void late_fired(TimerRef t, void *info)
{
    struct late *l = info;
    double now = X(AbsoluteTimeGetCurrent)();
    if (l->count < l->fires)
        l->ns[l->count++] = (int64_t)((now - X(RunLoopTimerGetNextFireDate)(t)) * 1e9);
    if (l->count == l->fires) {
        atomic_store(&l->done, 1);
        X(RunLoopStop)(X(RunLoopGetCurrent)());
    }
}

static void *late_thread(void *arg)
{
    struct late *l = arg;
    LoopRef rl = X(RunLoopGetCurrent)();
    TimerRef t = new_timer(X(AbsoluteTimeGetCurrent)() + 0.002, 0.002, l, late_fired);
    X(RunLoopTimerSetTolerance)(t, 0);
    X(RunLoopAddTimer)(rl, t, MODE);
    run_until(&l->done);
    report_lateness(IMPL, l->ns, (size_t)l->fires);
    X(RunLoopTimerInvalidate)(t);
    X(Release)(t);
    return NULL;
}

/* ------------------------------------------------------------------------
 * 8. memory: heap bytes, malloc calls and RSS per loop / timer / source.
 * ---------------------------------------------------------------------- */
struct mem_loops { pthread_barrier_t before, go, after, exit; };

static void *mem_loop_thread(void *arg)
{
    struct mem_loops *m = arg;
    /* The thread's own malloc state (its tcache and its share of an arena,
     * ~1.2 KB together) is set up by its first allocation: make that happen
     * before the measurement, so the delta is the loop's cost only (GLib
     * and libuv make their loops on one thread).  The block stays allocated
     * until the end: a freed one would wait in the tcache, counted as in
     * use, for the loop to reuse uncounted.  (volatile: a compiler drops a
     * malloc whose block is never used, and did drop the earlier
     * free(malloc(n)) warm-up, so every loop row counted that ~1.2 KB.) */
    void *volatile first = malloc(16);
    pthread_barrier_wait(&m->before);
    pthread_barrier_wait(&m->go);  /* after the main thread's first sample */
    X(RunLoopGetCurrent)();
    pthread_barrier_wait(&m->after);
    pthread_barrier_wait(&m->exit);
    free(first);
    return NULL;
}

static void *mem_items_thread(void *arg)
{
    long n = *(long *)arg;
    LoopRef rl = X(RunLoopGetCurrent)();
    double never = X(AbsoluteTimeGetCurrent)() + 1e7;
    TimerRef *t = xcalloc((size_t)n, sizeof *t);
    SourceRef *s = xcalloc((size_t)n, sizeof *s);
    struct mem_sample a = mem_now();
    for (long i = 0; i < n; i++) {
        t[i] = new_timer(never + (double)i, 0, NULL, tick);
        X(RunLoopAddTimer)(rl, t[i], MODE);
    }
    struct mem_sample b = mem_now();
    for (long i = 0; i < n; i++) {
        s[i] = new_source(&s[i], nothing); /* distinct contexts (CF) */
        X(RunLoopAddSource)(rl, s[i], MODE);
    }
    struct mem_sample c = mem_now();
    mem_report("timer", IMPL, a, b, n);
    mem_report("source", IMPL, b, c, n);
    for (long i = 0; i < n; i++) {
        X(RunLoopTimerInvalidate)(t[i]); X(Release)(t[i]);
        X(RunLoopSourceInvalidate)(s[i]); X(Release)(s[i]);
    }
    free(t); free(s);
    return NULL;
}

static void bench_memory(long n)
{
    need_malloc_counter();
    enum { LOOPS = 64 };
    /* One-time, process-wide set-up (runloop's handle table, CF's class
     * registrations) happens with the first loop: make it here, so the
     * measured loops are what each further loop costs. */
    X(RunLoopGetCurrent)();
    struct mem_loops m;
    pthread_barrier_init(&m.before, NULL, LOOPS + 1);
    pthread_barrier_init(&m.go, NULL, LOOPS + 1);
    pthread_barrier_init(&m.after, NULL, LOOPS + 1);
    pthread_barrier_init(&m.exit, NULL, LOOPS + 1);
    pthread_t th[LOOPS];
    for (int i = 0; i < LOOPS; i++) th[i] = spawn(mem_loop_thread, &m);
    pthread_barrier_wait(&m.before);
    /* every thread is parked: the delta is the loops' own cost (the
     * threads make their loops only once this sample is taken) */
    struct mem_sample a = mem_now();
    pthread_barrier_wait(&m.go);
    pthread_barrier_wait(&m.after);
    struct mem_sample b = mem_now();
    mem_report("loop", IMPL, a, b, LOOPS);
    pthread_barrier_wait(&m.exit);
    for (int i = 0; i < LOOPS; i++) pthread_join(th[i], NULL);
    pthread_join(spawn(mem_items_thread, &n), NULL);
}

/* Whether workload `w` is a *fn one (the library functions). */
static int is_fn(const char *w)
{
    size_t n = strlen(w);
    return n > 2 && !strcmp(w + n - 2, "fn");
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "";
    if (!strcmp(w, "pingpong")) {
        bench_pingpong(arg_long(argc, argv, 2, 100000));
    } else if (!strncmp(w, "perform", 7) || !strcmp(w, "signal") || !strcmp(w, "signalone") ||
               !strcmp(w, "signalfn") || !strcmp(w, "signalonefn")) {
        int kind = !strncmp(w, "perform", 7) ? 0 : !strncmp(w, "signalone", 9) ? 2 : 1;
        bench_flood(kind, is_fn(w), !strcmp(w, "performblock"), (int)arg_long(argc, argv, 2, 1),
                    arg_long(argc, argv, 3, 1000000));
    } else if (!strcmp(w, "hotcall") || !strcmp(w, "hotone") || !strcmp(w, "hotcallfn") || !strcmp(w, "hotonefn")) {
        struct hotcall h = { NULL, NULL, arg_long(argc, argv, 2, 10000000), !strncmp(w, "hotone", 6),
                             is_fn(w), w };
        pthread_join(spawn(hotcall_thread, &h), NULL);
    } else if (!strcmp(w, "timers")) {
        struct timers s = { arg_long(argc, argv, 2, 1000), 0, 0 };
        pthread_join(spawn(timers_thread, &s), NULL);
    } else if (!strcmp(w, "spread")) {
        struct timers s = { arg_long(argc, argv, 2, 1000), 0, 0 };
        pthread_join(spawn(spread_thread, &s), NULL);
    } else if (!strcmp(w, "sources")) {
        struct sources s = { .n = arg_long(argc, argv, 2, 1), .events = arg_long(argc, argv, 3, 100000) };
        pthread_join(spawn(sources_thread, &s), NULL);
    } else if (!strcmp(w, "fds")) {
#ifndef BENCH_CF
        long rounds = arg_long(argc, argv, 2, 20);
        need_fds(2 * FDS + 64);
        pthread_join(spawn(fds_thread, &rounds), NULL);
#endif
    } else if (!strcmp(w, "fdone")) {
#ifndef BENCH_CF
        struct fdone f = { arg_long(argc, argv, 2, 10000), arg_long(argc, argv, 3, 20000) };
        need_fds((rlim_t)f.n + 64);
        pthread_join(spawn(fdone_thread, &f), NULL);
#endif
    } else if (!strcmp(w, "fdcf")) {
#ifndef BENCH_CF
        struct fdone f = { arg_long(argc, argv, 2, 10000), arg_long(argc, argv, 3, 20000) };
        need_fds((rlim_t)f.n + 64);
        pthread_join(spawn(fdcf_thread, &f), NULL);
#endif
    } else if (!strcmp(w, "idle")) {
        int with_timer = (int)arg_long(argc, argv, 2, 0);
        pthread_join(spawn(idle_thread, &with_timer), NULL);
    } else if (!strcmp(w, "lateness")) {
        struct late l = { arg_long(argc, argv, 2, 500), 0, NULL, 0 };
        l.ns = xcalloc((size_t)l.fires, sizeof *l.ns);
        pthread_join(spawn(late_thread, &l), NULL);
        free(l.ns);
    } else if (!strcmp(w, "memory")) {
        bench_memory(arg_long(argc, argv, 2, 100000));
    } else {
        fprintf(stderr, "usage: %s pingpong|perform|performblock|signal|signalone|hotcall|hotone|signalfn|signalonefn|hotcallfn|"
                "hotonefn|timers|spread|sources|fds|fdone|fdcf|idle|lateness|memory [args]\n", argv[0]);
        return 2;
    }
    return 0;
}
