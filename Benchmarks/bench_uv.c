/*
 * bench_uv.c — the workloads of bench_loop.c written for libuv (impl "uv"),
 * in libuv's idiom:
 *   - a version-0 source is a uv_async_t; "signal + wake" is
 *     uv_async_send() (coalescing, thread-safe);
 *   - perform-function is a mutex-guarded queue of (fn, info) drained by
 *     an async handle's callback — what libuv users write;
 *   - timers are uv_timer_t with millisecond timeouts: all N start with
 *     timeout 0 (libuv cannot express distinct sub-ms fire dates), so its
 *     heap sees keys in insertion order (ties are FIFO);
 *   - an fd source is a uv_poll_t (libuv's handle for watching a
 *     descriptor it does not own) started for UV_READABLE.
 * No lateness workload: libuv timers are millisecond-grained against a
 * cached loop time.  Same command line as bench_loop.c.
 */
#include "bench.h"
#include <sys/eventfd.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <uv.h>

#define IMPL "uv"

/* 1. ping-pong -------------------------------------------------------- */
struct pingpong {
    uv_loop_t loop[2];
    uv_async_t async[2];
    pthread_barrier_t ready;
    atomic_int done;
    long rounds, count;
    uint64_t t0, *rtt;
};

static void pp_kick(struct pingpong *p) { p->t0 = now_ns(); uv_async_send(&p->async[1]); }

static void pp_b(uv_async_t *h)
{
    struct pingpong *p = h->data;
    if (atomic_load(&p->done)) { uv_close((uv_handle_t *)h, NULL); return; }
    uv_async_send(&p->async[0]);
}

static void pp_a(uv_async_t *h)
{
    struct pingpong *p = h->data;
    uint64_t t = now_ns();
    if (p->count >= 0) p->rtt[p->count] = t - p->t0;
    if (++p->count == p->rounds) {
        atomic_store(&p->done, 1);
        uv_async_send(&p->async[1]);
        uv_close((uv_handle_t *)h, NULL);
        return;
    }
    pp_kick(p);
}

static void *pp_thread(void *arg)
{
    struct pingpong *p = ((void **)arg)[0];
    int me = (int)(intptr_t)((void **)arg)[1];
    uv_loop_init(&p->loop[me]);
    uv_async_init(&p->loop[me], &p->async[me], me ? pp_b : pp_a);
    p->async[me].data = p;
    pthread_barrier_wait(&p->ready);
    if (me == 0) pp_kick(p);
    uv_run(&p->loop[me], UV_RUN_DEFAULT);
    uv_loop_close(&p->loop[me]);
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
struct item { void (*fn)(void *); void *info; };

struct flood {
    uv_loop_t loop;
    uv_async_t async;
    pthread_mutex_t lock;
    struct item *queue;
    size_t queued, capacity;
    pthread_barrier_t ready, go;
    atomic_int producers_done;
    int producers, use_signal, done;
    long items, consumed, performs;
    uint64_t t_end;
};

static void flood_stop(struct flood *f)
{
    f->t_end = now_ns();
    f->done = 1;
    uv_close((uv_handle_t *)&f->async, NULL);
}

static void flood_item(void *info)
{
    struct flood *f = info;
    if (++f->consumed == f->items * f->producers) flood_stop(f);
}

static void flood_cb(uv_async_t *h)
{
    struct flood *f = h->data;
    if (f->done) return;
    if (f->use_signal) {
        f->performs++;
        if (atomic_load(&f->producers_done) == f->producers) flood_stop(f);
        return;
    }
    pthread_mutex_lock(&f->lock);
    struct item *q = f->queue;
    size_t n = f->queued;
    f->queue = NULL;
    f->queued = f->capacity = 0;
    pthread_mutex_unlock(&f->lock);
    for (size_t i = 0; i < n && !f->done; i++) q[i].fn(q[i].info);
    free(q);
}

static void *flood_consumer(void *arg)
{
    struct flood *f = arg;
    uv_loop_init(&f->loop);
    uv_async_init(&f->loop, &f->async, flood_cb);
    f->async.data = f;
    pthread_barrier_wait(&f->ready);
    uv_run(&f->loop, UV_RUN_DEFAULT);
    uv_loop_close(&f->loop);
    return NULL;
}

static void *flood_producer(void *arg)
{
    struct flood *f = arg;
    pthread_barrier_wait(&f->go);
    for (long i = 0; i < f->items; i++) {
        if (!f->use_signal) {
            pthread_mutex_lock(&f->lock);
            if (f->queued == f->capacity) {
                f->capacity = f->capacity ? f->capacity * 2 : 64;
                f->queue = realloc(f->queue, f->capacity * sizeof *f->queue);
            }
            f->queue[f->queued].fn = flood_item;
            f->queue[f->queued++].info = f;
            pthread_mutex_unlock(&f->lock);
        }
        uv_async_send(&f->async);
    }
    if (f->use_signal && atomic_fetch_add(&f->producers_done, 1) + 1 == f->producers)
        uv_async_send(&f->async);
    return NULL;
}

/* The signal rows' name: "signalone" (and "signalfn", "signalonefn")
 * repeat the same run under the name of runloop's one-call (function-call)
 * workloads (bench_loop.c), in the same interleaved round. */
static const char *signal_name = "signal";

static void bench_flood(int use_signal, int producers, long items)
{
    struct flood f;
    memset(&f, 0, sizeof f);
    pthread_mutex_init(&f.lock, NULL);
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
    free(f.queue);
}

/* 2b. the producer's floor in a signal flood: uv_async_send on a handle
 * already pending (one call: libuv's send is signal and wake-up in one),
 * timed inside a callback of the running loop, on one thread. */
static const char *hot_name = "hotcall";
struct hotcall { uv_loop_t loop; uv_async_t async; uv_timer_t timer; long items; };

static void hotcall_async(uv_async_t *h) { (void)h; }

static void hotcall_run(uv_timer_t *t)
{
    struct hotcall *h = t->data;
    uv_async_send(&h->async);  /* from here it is pending */
    double per_op = HOT_PER_OP(h->items, uv_async_send(&h->async));
    result(hot_name, IMPL, "per_op", per_op, "ns");
    uv_close((uv_handle_t *)&h->async, NULL);
    uv_close((uv_handle_t *)&h->timer, NULL);
}

static void bench_hotcall(long items, B_UNUSED long unused)
{
    struct hotcall h;
    memset(&h, 0, sizeof h);
    h.items = items;
    uv_loop_init(&h.loop);
    uv_async_init(&h.loop, &h.async, hotcall_async);
    uv_timer_init(&h.loop, &h.timer);
    h.timer.data = &h;
    uv_timer_start(&h.timer, hotcall_run, 0, 0);
    uv_run(&h.loop, UV_RUN_DEFAULT);
    uv_loop_close(&h.loop);
}

/* 3. timers ----------------------------------------------------------- */
static long g_fired, g_n;
static void timer_fired(uv_timer_t *t) { (void)t; g_fired++; }

static void bench_timers(long n, B_UNUSED long unused)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    long rss0 = timers_rss_start();
    uv_timer_t *t = xcalloc((size_t)n, sizeof *t);
    g_n = n;
    uint64_t t0 = now_ns();
    for (long i = 0; i < n; i++) {
        uv_timer_init(&loop, &t[i]);
        uv_timer_start(&t[i], timer_fired, 0, 0);
    }
    uint64_t t1 = now_ns();
    while (g_fired < n) uv_run(&loop, UV_RUN_ONCE);
    uint64_t t2 = now_ns();
    report_timers(IMPL, n, t0, t1, t2, rss0);
}

/* 3b. spread: the 2 ms span in libuv's milliseconds (timeouts 0, 1 and 2,
 * shuffled; ties FIFO), from the loop's cached time as libuv users add. */
static void bench_spread(long n, B_UNUSED long unused)
{
    uv_loop_t loop;
    uv_loop_init(&loop);
    uint32_t *perm = shuffled((size_t)n);
    uv_timer_t *t = xcalloc((size_t)n, sizeof *t);
    g_n = n;
    g_fired = 0;
    struct thread_usage u0 = thread_usage();
    uint64_t t0 = now_ns();
    uv_update_time(&loop);
    for (long i = 0; i < n; i++) {
        uv_timer_init(&loop, &t[i]);
        uv_timer_start(&t[i], timer_fired, (uint64_t)perm[i] * (SPREAD_NS / 1000000 + 1) / (uint64_t)n, 0);
    }
    while (g_fired < n) uv_run(&loop, UV_RUN_ONCE);
    uint64_t t1 = now_ns();
    struct thread_usage u1 = thread_usage();
    report_spread(n, IMPL, t1 - t0, u1.cpu_us - u0.cpu_us);
    free(perm);  /* the handles stay: the loop still lists them (as bench_timers) */
}

/* 4. sources ---------------------------------------------------------- */
/* With N > 1 a second loop on the same thread holds one handle alone,
 * signalled in alternate blocks (run_sources in bench.h). */
static long g_performed;
static void source_performed(uv_async_t *h) { (void)h; g_performed++; }

struct sources { uv_loop_t loop, solo_loop; uv_async_t *a, solo; };

static void sources_event(void *arg, long i)
{
    struct sources *s = arg;
    if (i < 0) {
        uv_async_send(&s->solo);
        uv_run(&s->solo_loop, UV_RUN_NOWAIT);
    } else {
        uv_async_send(&s->a[i]);
        uv_run(&s->loop, UV_RUN_NOWAIT);
    }
}

static void bench_sources(long n, long events)
{
    static struct sources s;
    uv_loop_init(&s.loop);
    uv_loop_init(&s.solo_loop);
    s.a = xcalloc((size_t)n, sizeof *s.a);
    for (long i = 0; i < n; i++) uv_async_init(&s.loop, &s.a[i], source_performed);
    uv_async_init(&s.solo_loop, &s.solo, source_performed);
    long runs = run_sources(IMPL, n, events, sources_event, &s);
    if (g_performed != runs)
        fprintf(stderr, "sources: %ld performs for %ld events\n", g_performed, runs);
}

/* 5. 1,000 fds ready at once ------------------------------------------ */
/* 1,000 pipes, one uv_poll_t on each read end; write one byte to every
 * pipe, then run the loop until every poll callback has read its byte.
 * Reports the time for the whole burst and the loop iterations it took
 * (the same RESULT lines as bench_loop.c and bench_floor.c).  The handles
 * stay active between rounds, so UV_RUN_DEFAULT would never return:
 * UV_RUN_ONCE until drained, as in the timers workload. */
enum { FDS = 1000 };
static long g_drained;

static void fd_ready(uv_poll_t *h, int status, int events)
{
    (void)events;
    uv_os_fd_t fd;
    char c;
    if (status < 0) { fprintf(stderr, "fds: %s\n", uv_strerror(status)); exit(2); }
    if (uv_fileno((uv_handle_t *)h, &fd) == 0 && read(fd, &c, 1) == 1) g_drained++;
}

static void bench_fds(long rounds, B_UNUSED long unused)
{
    need_fds(2 * FDS + 64);
    uv_loop_t loop;
    uv_loop_init(&loop);
    int (*p)[2] = xcalloc(FDS, sizeof *p);
    uv_poll_t *h = xcalloc(FDS, sizeof *h);
    for (int i = 0; i < FDS; i++) {
        if (pipe2(p[i], O_CLOEXEC | O_NONBLOCK) != 0) { perror("pipe2"); exit(2); }
        uv_poll_init(&loop, &h[i], p[i][0]);
        uv_poll_start(&h[i], UV_READABLE, fd_ready);
    }
    uint64_t total = 0;
    long passes = 0;
    for (long r = -1; r < rounds; r++) {  /* round -1 warms up (and does the epoll_ctl ADDs) */
        for (int i = 0; i < FDS; i++)
            if (write(p[i][1], "x", 1) != 1) { perror("write"); exit(2); }
        g_drained = 0;
        long iterations = 0;
        uint64_t t0 = now_ns();
        while (g_drained < FDS) {
            uv_run(&loop, UV_RUN_ONCE);
            iterations++;
        }
        uint64_t t1 = now_ns();
        if (r >= 0) { total += t1 - t0; passes += iterations; }
    }
    report_fds(IMPL, total, passes, rounds);
    /* uv_close does not close a poll handle's descriptor: the pipes are ours */
    for (int i = 0; i < FDS; i++) uv_close((uv_handle_t *)&h[i], NULL);
    uv_run(&loop, UV_RUN_DEFAULT);  /* runs the close callbacks, then returns */
    uv_loop_close(&loop);
    for (int i = 0; i < FDS; i++) { close(p[i][0]); close(p[i][1]); }
    free(h);
    free(p);
}

/* 5b. one ready descriptor among N registered ---------------------------- */
static void fdone_ready(uv_poll_t *h, int status, int events)
{
    (void)events;
    uv_os_fd_t fd;
    eventfd_t v;
    if (status < 0) { fprintf(stderr, "fdone: %s\n", uv_strerror(status)); exit(2); }
    if (uv_fileno((uv_handle_t *)h, &fd) == 0 && eventfd_read(fd, &v) == 0) g_drained++;
}

/* row: "fdone" or "fdcf" (5c, the same round for a loop with no one-shot
 * callbacks to re-enable: the descriptor stays watched). */
static const char *fdone_row = "fdone";

static void bench_fdone(long n, long rounds)
{
    need_fds((rlim_t)n + 64);
    uv_loop_t loop;
    uv_loop_init(&loop);
    int *p = xcalloc((size_t)n, sizeof *p);
    uv_poll_t *h = xcalloc((size_t)n, sizeof *h);
    for (long i = 0; i < n; i++) {
        if ((p[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) { perror("eventfd"); exit(2); }
        uv_poll_init(&loop, &h[i], p[i]);
        uv_poll_start(&h[i], UV_READABLE, fdone_ready);
    }
    uv_run(&loop, UV_RUN_NOWAIT);  /* the epoll_ctl ADDs happen before timing */
    g_drained = 0;
    uint64_t t0 = now_ns();
    for (long r = 0; r < rounds; r++) {
        long k = (r * 7919) % n;
        if (eventfd_write(p[k], 1) != 0) { perror("write"); exit(2); }
        while (g_drained <= r) uv_run(&loop, UV_RUN_ONCE);
    }
    uint64_t t1 = now_ns();
    char name[32];
    snprintf(name, sizeof name, "%s%ld", fdone_row, n);
    result(name, IMPL, "per_ready", (double)(t1 - t0) / (double)rounds, "ns");
    for (long i = 0; i < n; i++) uv_close((uv_handle_t *)&h[i], NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    for (long i = 0; i < n; i++) close(p[i]);
    free(h);
    free(p);
}

/* 6. idle ------------------------------------------------------------- */
static void tick(uv_timer_t *t) { (void)t; }
static void quit(uv_timer_t *t) { uv_stop(t->loop); }

static void *idle_thread(void *arg)
{
    int with_timer = *(int *)arg;
    uv_loop_t loop;
    uv_loop_init(&loop);
    uv_timer_t q, t;
    uv_timer_init(&loop, &q);
    uv_timer_start(&q, quit, 3250, 0);
    if (with_timer) {
        uv_timer_init(&loop, &t);
        uv_timer_start(&t, tick, 1000, 1000);
    }
    struct thread_usage u0 = thread_usage();
    uv_run(&loop, UV_RUN_DEFAULT);
    struct thread_usage u1 = thread_usage();
    const char *name = with_timer ? "idle_timer" : "idle";
    report_idle(name, IMPL, u0, u1);
    return NULL;
}

/* 8. memory ----------------------------------------------------------- */
/* The handles are malloc()ed one by one, as a user of a library that hides
 * its structs would: the rows are comparable with runloop's and CF's. */
static void bench_memory(long n)
{
    need_malloc_counter();
    enum { LOOPS = 64 };
    struct mem_sample a = mem_now();
    uv_loop_t *loops[LOOPS];
    for (int i = 0; i < LOOPS; i++) {
        loops[i] = malloc(sizeof(uv_loop_t));
        uv_loop_init(loops[i]);
    }
    struct mem_sample b = mem_now();
    mem_report("loop", IMPL, a, b, LOOPS);
    a = mem_now();
    for (long i = 0; i < n; i++) {
        uv_timer_t *t = malloc(sizeof *t);
        uv_timer_init(loops[0], t);
        uv_timer_start(t, tick, 1000000000u + (uint64_t)i, 0);
    }
    b = mem_now();
    for (long i = 0; i < n; i++) {
        uv_async_t *h = malloc(sizeof *h);
        uv_async_init(loops[0], h, source_performed);
    }
    struct mem_sample c = mem_now();
    mem_report("timer", IMPL, a, b, n);
    mem_report("source", IMPL, b, c, n);
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "";
    if (!strcmp(w, "pingpong")) {
        bench_pingpong(arg_long(argc, argv, 2, 100000));
    } else if (!strcmp(w, "perform") || !strcmp(w, "signal") || !strcmp(w, "signalone") ||
               !strcmp(w, "signalfn") || !strcmp(w, "signalonefn")) {
        if (strcmp(w, "perform")) signal_name = w;  /* its signal is one call already */
        bench_flood(!!strcmp(w, "perform"), (int)arg_long(argc, argv, 2, 1), arg_long(argc, argv, 3, 1000000));
    } else if (!strcmp(w, "hotcall") || !strcmp(w, "hotone") || !strcmp(w, "hotcallfn") || !strcmp(w, "hotonefn")) {
        hot_name = w;  /* uv_async_send is one call: the same run under both names */
        on_own_thread(bench_hotcall, arg_long(argc, argv, 2, 10000000), 0);
    } else if (!strcmp(w, "timers")) {
        on_own_thread(bench_timers, arg_long(argc, argv, 2, 1000), 0);
    } else if (!strcmp(w, "spread")) {
        on_own_thread(bench_spread, arg_long(argc, argv, 2, 1000), 0);
    } else if (!strcmp(w, "sources")) {
        on_own_thread(bench_sources, arg_long(argc, argv, 2, 1), arg_long(argc, argv, 3, 100000));
    } else if (!strcmp(w, "fds")) {
        on_own_thread(bench_fds, arg_long(argc, argv, 2, 20), 0);
    } else if (!strcmp(w, "fdone") || !strcmp(w, "fdcf")) {
        fdone_row = w;
        on_own_thread(bench_fdone, arg_long(argc, argv, 2, 10000), arg_long(argc, argv, 3, 20000));
    } else if (!strcmp(w, "idle")) {
        int with_timer = (int)arg_long(argc, argv, 2, 0);
        pthread_join(spawn(idle_thread, &with_timer), NULL);
    } else if (!strcmp(w, "memory")) {
        bench_memory(arg_long(argc, argv, 2, 100000));
    } else if (!strcmp(w, "lateness")) {
        return 0; /* not measured: see the header comment */
    } else {
        fprintf(stderr, "usage: %s pingpong|perform|signal|signalone|signalfn|signalonefn|hotcall|hotone|hotcallfn|hotonefn|"
                "timers|sources|fds|fdone|fdcf|idle|memory [args]\n", argv[0]);
        return 2;
    }
    return 0;
}
