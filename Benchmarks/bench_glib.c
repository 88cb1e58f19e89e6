/*
 * bench_glib.c — the workloads of bench_loop.c written for GLib's
 * GMainContext (impl "glib"), each in GLib's own idiom:
 *   - a version-0 source is a custom GSource driven by its ready time;
 *     "signal + wake" is g_source_set_ready_time(source, 0) (thread-safe,
 *     wakes the owning context);
 *   - perform-function is g_main_context_invoke() from another thread;
 *   - timers are custom GSources with microsecond ready times (GLib's
 *     g_timeout_* are millisecond based).  GLib does not fire due sources
 *     in deadline order: the timers row measures its cost, not CF's order;
 *   - an fd source is a GUnixFDSource (g_unix_fd_source_new, what
 *     g_unix_fd_add builds) attached to the thread's own context.
 * Same command line as bench_loop.c.
 */
#include "bench.h"
#include <fcntl.h>
#include <glib.h>
#include <glib-unix.h>
#include <stdatomic.h>

#define IMPL "glib"

typedef struct {
    GSource base;
    void (*fn)(GSource *, void *);
    void *info;
    gboolean once;
} FnSource;

static gboolean fn_dispatch(GSource *s, GSourceFunc cb, gpointer ud)
{
    (void)cb; (void)ud;
    FnSource *f = (FnSource *)s;
    if (!f->once) g_source_set_ready_time(s, -1);
    f->fn(s, f->info);
    return f->once ? G_SOURCE_REMOVE : G_SOURCE_CONTINUE;
}

static GSourceFuncs fn_funcs = { NULL, NULL, fn_dispatch, NULL, NULL, NULL };

/* A source of ctx calling fn when its ready time passes; caller unrefs. */
static GSource *fn_source(GMainContext *ctx, void (*fn)(GSource *, void *), void *info,
                          gint64 ready, gboolean once)
{
    GSource *s = g_source_new(&fn_funcs, sizeof(FnSource));
    FnSource *f = (FnSource *)s;
    f->fn = fn;
    f->info = info;
    f->once = once;
    g_source_set_ready_time(s, ready);
    g_source_attach(s, ctx);
    return s;
}

static GMainContext *thread_context(void)
{
    GMainContext *ctx = g_main_context_new();
    g_main_context_push_thread_default(ctx);
    return ctx;
}

static void run_until(GMainContext *ctx, atomic_int *done)
{
    while (!atomic_load(done)) g_main_context_iteration(ctx, TRUE);
}

/* 1. ping-pong -------------------------------------------------------- */
struct pingpong {
    GMainContext *ctx[2];
    GSource *src[2];
    pthread_barrier_t ready;
    atomic_int done;
    long rounds, count;
    uint64_t t0, *rtt;
};

static void pp_kick(struct pingpong *p) { p->t0 = now_ns(); g_source_set_ready_time(p->src[1], 0); }

static void pp_b(GSource *s, void *info)
{
    (void)s;
    struct pingpong *p = info;
    g_source_set_ready_time(p->src[0], 0);
}

static void pp_a(GSource *s, void *info)
{
    (void)s;
    struct pingpong *p = info;
    uint64_t t = now_ns();
    if (p->count >= 0) p->rtt[p->count] = t - p->t0;
    if (++p->count == p->rounds) {
        atomic_store(&p->done, 1);
        g_main_context_wakeup(p->ctx[1]);
        return;
    }
    pp_kick(p);
}

static void *pp_thread(void *arg)
{
    struct pingpong *p = ((void **)arg)[0];
    int me = (int)(intptr_t)((void **)arg)[1];
    p->ctx[me] = thread_context();
    p->src[me] = fn_source(p->ctx[me], me ? pp_b : pp_a, p, -1, FALSE);
    pthread_barrier_wait(&p->ready);
    if (me == 0) pp_kick(p);
    run_until(p->ctx[me], &p->done);
    return NULL;
}

static void bench_pingpong(long rounds)
{
    struct pingpong p;
    memset(&p, 0, sizeof p);
    p.rounds = rounds;
    p.count = -(rounds / 10 + 100);
    p.rtt = xcalloc((size_t)rounds, sizeof *p.rtt);
    pthread_barrier_init(&p.ready, NULL, 2);
    void *a0[2] = { &p, (void *)0 }, *a1[2] = { &p, (void *)1 };
    pthread_t b = spawn(pp_thread, a1), a = spawn(pp_thread, a0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    report_pingpong(IMPL, p.rtt, (size_t)rounds);
}

/* 2. throughput ------------------------------------------------------- */
struct flood {
    GMainContext *ctx;
    GSource *src;
    pthread_barrier_t ready, go;
    atomic_int done, producers_done;
    int producers, use_signal;
    long items, consumed, performs;
    uint64_t t_end;
};

static void flood_stop(struct flood *f) { f->t_end = now_ns(); atomic_store(&f->done, 1); }

static gboolean flood_item(gpointer info)
{
    struct flood *f = info;
    if (++f->consumed == f->items * f->producers) flood_stop(f);
    return G_SOURCE_REMOVE;
}

static void flood_perform(GSource *s, void *info)
{
    (void)s;
    struct flood *f = info;
    f->performs++;
    if (atomic_load(&f->producers_done) == f->producers && !atomic_load(&f->done)) flood_stop(f);
}

static void *flood_consumer(void *arg)
{
    struct flood *f = arg;
    f->ctx = thread_context();
    f->src = fn_source(f->ctx, flood_perform, f, -1, FALSE);
    pthread_barrier_wait(&f->ready);
    run_until(f->ctx, &f->done);
    return NULL;
}

static void *flood_producer(void *arg)
{
    struct flood *f = arg;
    pthread_barrier_wait(&f->go);
    for (long i = 0; i < f->items; i++) {
        if (f->use_signal) g_source_set_ready_time(f->src, 0);
        else g_main_context_invoke(f->ctx, flood_item, f);
    }
    if (f->use_signal && atomic_fetch_add(&f->producers_done, 1) + 1 == f->producers)
        g_source_set_ready_time(f->src, 0);
    return NULL;
}

/* The signal rows' name: "signalone" repeats the same run under the name of
 * runloop's one-call workload (bench_loop.c), in the same interleaved round. */
static const char *signal_name = "signal";

static void bench_flood(int use_signal, int producers, long items)
{
    struct flood f;
    memset(&f, 0, sizeof f);
    f.use_signal = use_signal;
    f.producers = producers;
    f.items = items;
    pthread_barrier_init(&f.ready, NULL, 2);
    pthread_barrier_init(&f.go, NULL, (unsigned)producers + 1);
    pthread_t c = spawn(flood_consumer, &f);
    pthread_barrier_wait(&f.ready);
    pthread_t p[2];
    for (int i = 0; i < producers; i++) p[i] = spawn(flood_producer, &f);
    uint64_t t0 = now_ns();
    pthread_barrier_wait(&f.go);
    for (int i = 0; i < producers; i++) pthread_join(p[i], NULL);
    pthread_join(c, NULL);
    char name[32];
    snprintf(name, sizeof name, "%s%d", use_signal ? signal_name : "perform", producers);
    result(name, IMPL, "rate", (double)(items * producers) / ((double)(f.t_end - t0) / 1e9), "ops/s");
    if (use_signal) result(name, IMPL, "ops_per_callout", (double)(items * producers) / (double)f.performs, "x");
}

/* 3. timers ----------------------------------------------------------- */
struct timers { long n, fired; atomic_int done; };

static void timer_fired(GSource *s, void *info)
{
    (void)s;
    struct timers *t = info;
    if (++t->fired == t->n) atomic_store(&t->done, 1);
}

static void *timers_thread(void *arg)
{
    struct timers *t = arg;
    GMainContext *ctx = thread_context();
    uint32_t *perm = shuffled((size_t)t->n);
    gint64 base = g_get_monotonic_time() - 1000000 - t->n;
    long rss0 = timers_rss_start();
    uint64_t t0 = now_ns();
    for (long i = 0; i < t->n; i++) g_source_unref(fn_source(ctx, timer_fired, t, base + perm[i], TRUE));
    uint64_t t1 = now_ns();
    run_until(ctx, &t->done);
    uint64_t t2 = now_ns();
    report_timers(IMPL, t->n, t0, t1, t2, rss0);
    free(perm);
    return NULL;
}

/* 3b. spread: fire dates over the 2 ms after the first add, shuffled (µs
 * ready times: distinct up to 2,000 timers, FIFO-free ties beyond). */
static void *spread_thread(void *arg)
{
    struct timers *t = arg;
    GMainContext *ctx = thread_context();
    uint32_t *perm = shuffled((size_t)t->n);
    struct thread_usage u0 = thread_usage();
    uint64_t t0 = now_ns();
    gint64 base = g_get_monotonic_time();
    for (long i = 0; i < t->n; i++) {
        gint64 offset = (gint64)((SPREAD_NS / 1000) * ((uint64_t)perm[i] + 1) / (uint64_t)t->n);
        g_source_unref(fn_source(ctx, timer_fired, t, base + offset, TRUE));
    }
    run_until(ctx, &t->done);
    uint64_t t1 = now_ns();
    struct thread_usage u1 = thread_usage();
    report_spread(t->n, IMPL, t1 - t0, u1.cpu_us - u0.cpu_us);
    free(perm);
    return NULL;
}

/* 4. sources ---------------------------------------------------------- */
/* With N > 1 a second context on the same thread holds one source alone,
 * signalled in alternate blocks (run_sources in bench.h). */
struct sources { long n, events, performed; GMainContext *ctx, *solo_ctx; GSource **src, *solo; };

static void source_performed(GSource *s, void *info) { (void)s; ((struct sources *)info)->performed++; }

static void sources_event(void *arg, long i)
{
    struct sources *s = arg;
    if (i < 0) {
        g_source_set_ready_time(s->solo, 0);
        g_main_context_iteration(s->solo_ctx, FALSE);
    } else {
        g_source_set_ready_time(s->src[i], 0);
        g_main_context_iteration(s->ctx, FALSE);
    }
}

static void *sources_thread(void *arg)
{
    struct sources *s = arg;
    s->ctx = thread_context();
    s->src = xcalloc((size_t)s->n, sizeof *s->src);
    for (long i = 0; i < s->n; i++) s->src[i] = fn_source(s->ctx, source_performed, s, -1, FALSE);
    s->solo_ctx = g_main_context_new();
    g_main_context_acquire(s->solo_ctx);
    s->solo = fn_source(s->solo_ctx, source_performed, s, -1, FALSE);
    long runs = run_sources(IMPL, s->n, s->events, sources_event, s);
    if (s->performed != runs)
        fprintf(stderr, "sources: %ld performs for %ld events\n", s->performed, runs);
    return NULL;
}

/* 5. 1,000 fds ready at once ------------------------------------------ */
/* 1,000 pipes, one GUnixFDSource watching each read end for G_IO_IN; write
 * one byte to every pipe, then iterate the context until every callback
 * has read its byte.  Reports the time for the whole burst and the
 * iterations it took (the same RESULT lines as bench_loop.c and
 * bench_floor.c).  GMainContext keeps no epoll set: every iteration
 * prepares and checks every source and hands all 1,000 GPollFDs to poll(2),
 * ready or not. */
enum { FDS = 1000 };

static gboolean fd_ready(gint fd, GIOCondition cond, gpointer info)
{
    (void)cond;
    char c;
    if (read(fd, &c, 1) == 1) (*(long *)info)++;
    return G_SOURCE_CONTINUE; /* keep watching: the next round reuses it */
}

static void *fds_thread(void *arg)
{
    long rounds = *(long *)arg;
    GMainContext *ctx = thread_context();
    int (*p)[2] = xcalloc(FDS, sizeof *p);
    GSource **src = xcalloc(FDS, sizeof *src);
    long drained = 0;
    for (int i = 0; i < FDS; i++) {
        if (pipe2(p[i], O_CLOEXEC | O_NONBLOCK) != 0) { perror("pipe2"); exit(2); }
        /* not g_unix_fd_add(): that attaches to the global default context */
        src[i] = g_unix_fd_source_new(p[i][0], G_IO_IN);
        g_source_set_callback(src[i], G_SOURCE_FUNC(fd_ready), &drained, NULL);
        g_source_attach(src[i], ctx);
    }
    uint64_t total = 0;
    long passes = 0;
    for (long r = -1; r < rounds; r++) {  /* round -1 warms up */
        for (int i = 0; i < FDS; i++)
            if (write(p[i][1], "x", 1) != 1) { perror("write"); exit(2); }
        drained = 0;
        long iterations = 0;
        uint64_t t0 = now_ns();
        while (drained < FDS) {
            g_main_context_iteration(ctx, TRUE);
            iterations++;
        }
        uint64_t t1 = now_ns();
        if (r >= 0) { total += t1 - t0; passes += iterations; }
    }
    report_fds(IMPL, total, passes, rounds);
    for (int i = 0; i < FDS; i++) {
        g_source_destroy(src[i]);
        g_source_unref(src[i]);
        close(p[i][0]);
        close(p[i][1]);
    }
    free(src);
    free(p);
    return NULL;
}

/* 6. idle ------------------------------------------------------------- */
static gboolean tick(gpointer p) { (void)p; return G_SOURCE_CONTINUE; }
static gboolean quit(gpointer p) { atomic_store((atomic_int *)p, 1); return G_SOURCE_REMOVE; }

static void *idle_thread(void *arg)
{
    int with_timer = *(int *)arg;
    GMainContext *ctx = thread_context();
    atomic_int done = 0;
    GSource *q = g_timeout_source_new(3250);
    g_source_set_callback(q, quit, &done, NULL);
    g_source_attach(q, ctx);
    if (with_timer) {
        GSource *t = g_timeout_source_new(1000);
        g_source_set_callback(t, tick, NULL, NULL);
        g_source_attach(t, ctx);
    }
    struct thread_usage u0 = thread_usage();
    run_until(ctx, &done);
    struct thread_usage u1 = thread_usage();
    const char *name = with_timer ? "idle_timer" : "idle";
    report_idle(name, IMPL, u0, u1);
    return NULL;
}

/* 7. lateness --------------------------------------------------------- */
struct late { long fires, count; int64_t *ns; atomic_int done; };

/* A source that re-arms itself 2 ms after the due time it served. */
typedef struct { GSource base; struct late *l; gint64 due; } LateSource;

static gboolean late_dispatch(GSource *s, GSourceFunc cb, gpointer ud)
{
    (void)cb; (void)ud;
    LateSource *ls = (LateSource *)s;
    struct late *l = ls->l;
    gint64 now = g_get_monotonic_time();
    if (l->count < l->fires) l->ns[l->count++] = (now - ls->due) * 1000;
    if (l->count == l->fires) { atomic_store(&l->done, 1); return G_SOURCE_REMOVE; }
    ls->due += 2000;
    g_source_set_ready_time(s, ls->due);
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs late_funcs = { NULL, NULL, late_dispatch, NULL, NULL, NULL };

static void *late_thread(void *arg)
{
    struct late *l = arg;
    GMainContext *ctx = thread_context();
    GSource *s = g_source_new(&late_funcs, sizeof(LateSource));
    ((LateSource *)s)->l = l;
    ((LateSource *)s)->due = g_get_monotonic_time() + 2000;
    g_source_set_ready_time(s, ((LateSource *)s)->due);
    g_source_attach(s, ctx);
    run_until(ctx, &l->done);
    report_lateness(IMPL, l->ns, (size_t)l->fires);
    return NULL;
}

/* 8. memory ----------------------------------------------------------- */
static void bench_memory(long n)
{
    need_malloc_counter();
    enum { LOOPS = 64 };
    GMainContext *loops[LOOPS];
    struct mem_sample a = mem_now();
    for (int i = 0; i < LOOPS; i++) loops[i] = g_main_context_new();
    struct mem_sample b = mem_now();
    mem_report("loop", IMPL, a, b, LOOPS);
    GMainContext *ctx = loops[0];
    a = mem_now();
    for (long i = 0; i < n; i++) {
        GSource *t = g_timeout_source_new(1000000000u);
        g_source_set_callback(t, tick, NULL, NULL);
        g_source_attach(t, ctx);
        g_source_unref(t);
    }
    b = mem_now();
    for (long i = 0; i < n; i++) g_source_unref(fn_source(ctx, source_performed, NULL, -1, FALSE));
    struct mem_sample c = mem_now();
    mem_report("timer", IMPL, a, b, n);
    mem_report("source", IMPL, b, c, n);
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "";
    if (!strcmp(w, "pingpong")) {
        bench_pingpong(arg_long(argc, argv, 2, 100000));
    } else if (!strcmp(w, "perform") || !strcmp(w, "signal") || !strcmp(w, "signalone")) {
        if (!strcmp(w, "signalone")) signal_name = "signalone";  /* its signal is one call already */
        bench_flood(!!strcmp(w, "perform"), (int)arg_long(argc, argv, 2, 1), arg_long(argc, argv, 3, 1000000));
    } else if (!strcmp(w, "timers")) {
        struct timers t = { arg_long(argc, argv, 2, 1000), 0, 0 };
        pthread_join(spawn(timers_thread, &t), NULL);
    } else if (!strcmp(w, "spread")) {
        struct timers t = { arg_long(argc, argv, 2, 1000), 0, 0 };
        pthread_join(spawn(spread_thread, &t), NULL);
    } else if (!strcmp(w, "sources")) {
        struct sources s = { .n = arg_long(argc, argv, 2, 1), .events = arg_long(argc, argv, 3, 100000) };
        pthread_join(spawn(sources_thread, &s), NULL);
    } else if (!strcmp(w, "fds")) {
        long rounds = arg_long(argc, argv, 2, 20);
        need_fds(2 * FDS + 64);
        pthread_join(spawn(fds_thread, &rounds), NULL);
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
        fprintf(stderr, "usage: %s pingpong|perform|signal|timers|spread|sources|fds|idle|lateness|memory [args]\n", argv[0]);
        return 2;
    }
    return 0;
}
