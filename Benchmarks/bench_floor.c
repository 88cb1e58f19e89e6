/*
 * bench_floor.c — the raw Linux floor (impl "floor"): what the workloads
 * cost with nothing but eventfd + epoll (+ timerfd), no library.
 *
 *   bench_floor pingpong ROUNDS           two threads, an eventfd each: A
 *                                         writes B's, B's epoll_wait returns,
 *                                         B reads and writes A's
 *   bench_floor signal PRODUCERS ITEMS    one eventfd write per op; the
 *                                         consumer epoll_waits and reads
 *   bench_floor lateness FIRES            absolute CLOCK_MONOTONIC timerfd
 *                                         every 2 ms, lateness of each read
 * Other workloads print nothing (no meaningful floor).
 */
#include "bench.h"
#include <stdatomic.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#define IMPL "floor"

static int waiter(int fd)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    return ep;
}

/* Waits for fd's epoll and reads the eventfd; returns the count read. */
static uint64_t wait_read(int ep, int fd)
{
    struct epoll_event ev;
    uint64_t v = 0;
    while (epoll_wait(ep, &ev, 1, -1) != 1) {}
    if (read(fd, &v, sizeof v) != sizeof v) return 0;
    return v;
}

static void poke(int fd)
{
    uint64_t one = 1;
    if (write(fd, &one, sizeof one) != sizeof one) perror("write");
}

struct pingpong { int fd[2], ep[2]; long rounds; uint64_t *rtt; };

static void *pp_b(void *arg)
{
    struct pingpong *p = arg;
    for (long i = 0; i < p->rounds; i++) {
        wait_read(p->ep[1], p->fd[1]);
        poke(p->fd[0]);
    }
    return NULL;
}

static void *pp_a(void *arg)
{
    struct pingpong *p = arg;
    long warm = p->rounds / 10 + 100;
    for (long i = -warm; i < p->rounds - warm; i++) {
        uint64_t t0 = now_ns();
        poke(p->fd[1]);
        wait_read(p->ep[0], p->fd[0]);
        if (i >= 0) p->rtt[i] = now_ns() - t0;
    }
    return NULL;
}

static void bench_pingpong(long rounds)
{
    struct pingpong p;
    p.rounds = rounds;
    long n = rounds - (rounds / 10 + 100);
    p.rtt = xcalloc((size_t)rounds, sizeof *p.rtt);
    for (int i = 0; i < 2; i++) {
        p.fd[i] = eventfd(0, EFD_CLOEXEC);
        p.ep[i] = waiter(p.fd[i]);
    }
    pthread_t b = spawn(pp_b, &p), a = spawn(pp_a, &p);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    report_pingpong(IMPL, p.rtt, (size_t)n);
}

struct flood { int fd, ep, producers; long items; pthread_barrier_t go; };

static void *flood_producer(void *arg)
{
    struct flood *f = arg;
    pthread_barrier_wait(&f->go);
    for (long i = 0; i < f->items; i++) poke(f->fd);
    return NULL;
}

static void bench_signal(int producers, long items)
{
    struct flood f = { eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), -1, producers, items, {{0}} };
    f.ep = waiter(f.fd);
    pthread_barrier_init(&f.go, NULL, (unsigned)producers + 1);
    pthread_t p[2];
    for (int i = 0; i < producers; i++) p[i] = spawn(flood_producer, &f);
    uint64_t t0 = now_ns();
    pthread_barrier_wait(&f.go);
    uint64_t got = 0, wakes = 0;
    while (got < (uint64_t)(items * producers)) {
        got += wait_read(f.ep, f.fd);
        wakes++;
    }
    uint64_t t1 = now_ns();
    for (int i = 0; i < producers; i++) pthread_join(p[i], NULL);
    char name[32];
    snprintf(name, sizeof name, "signal%d", producers);
    result(name, IMPL, "rate", (double)(items * producers) / ((double)(t1 - t0) / 1e9), "ops/s");
    result(name, IMPL, "ops_per_callout", (double)got / (double)wakes, "x");
}

static void bench_lateness(long fires)
{
    int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    int ep = waiter(fd);
    int64_t *ns = xcalloc((size_t)fires, sizeof *ns);
    uint64_t due = now_ns();
    for (long i = 0; i < fires; i++) {
        due += 2000000;
        struct itimerspec its = { { 0, 0 }, { (time_t)(due / 1000000000u), (long)(due % 1000000000u) } };
        timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
        wait_read(ep, fd);
        ns[i] = (int64_t)(now_ns() - due);
    }
    report_lateness(IMPL, ns, (size_t)fires);
}

/* 1,000 pipes in one epoll set: write a byte to each, then epoll_wait
 * (256 at a time) and read until all 1,000 were drained. */
static void bench_fds(long rounds, B_UNUSED long unused)
{
    enum { FDS = 1000 };
    need_fds(2 * FDS + 64);
    int (*p)[2] = calloc(FDS, sizeof *p);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < FDS; i++) {
        if (pipe2(p[i], O_CLOEXEC | O_NONBLOCK) != 0) { perror("pipe2"); exit(2); }
        struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
        epoll_ctl(ep, EPOLL_CTL_ADD, p[i][0], &ev);
    }
    uint64_t total = 0;
    long waits = 0;
    for (long r = -1; r < rounds; r++) {
        for (int i = 0; i < FDS; i++)
            if (write(p[i][1], "x", 1) != 1) { perror("write"); exit(2); }
        uint64_t t0 = now_ns();
        int drained = 0;
        long w = 0;
        while (drained < FDS) {
            struct epoll_event evs[256];
            int n = epoll_wait(ep, evs, 256, -1);
            w++;
            for (int k = 0; k < n; k++) {
                char c;
                if (read(p[evs[k].data.u32][0], &c, 1) == 1) drained++;
            }
        }
        uint64_t t1 = now_ns();
        if (r >= 0) { total += t1 - t0; waits += w; }
    }
    report_fds(IMPL, total, waits, rounds);
    for (int i = 0; i < FDS; i++) { close(p[i][0]); close(p[i][1]); }
    close(ep);
    free(p);
}

/* One ready descriptor among N in one epoll set: per round, write a byte
 * to one pipe, epoll_wait, read it. */
/* row: "fdone" or "fdcf" (5c, the same round for a loop with no one-shot
 * callbacks to re-enable: the descriptor stays watched). */
static const char *fdone_row = "fdone";

static void bench_fdone(long n, long rounds)
{
    need_fds((rlim_t)n + 64);
    int *p = calloc((size_t)n, sizeof *p);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    for (long i = 0; i < n; i++) {
        if ((p[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) { perror("eventfd"); exit(2); }
        struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)i };
        epoll_ctl(ep, EPOLL_CTL_ADD, p[i], &ev);
    }
    uint64_t t0 = now_ns();
    for (long r = 0; r < rounds; r++) {
        long k = (r * 7919) % n;
        if (eventfd_write(p[k], 1) != 0) { perror("write"); exit(2); }
        int drained = 0;
        while (!drained) {
            struct epoll_event evs[16];
            int got = epoll_wait(ep, evs, 16, -1);
            for (int i = 0; i < got; i++) {
                eventfd_t v;
                if (eventfd_read(p[evs[i].data.u32], &v) == 0) drained = 1;
            }
        }
    }
    uint64_t t1 = now_ns();
    char name[32];
    snprintf(name, sizeof name, "%s%ld", fdone_row, n);
    result(name, IMPL, "per_ready", (double)(t1 - t0) / (double)rounds, "ns");
    for (long i = 0; i < n; i++) close(p[i]);
    close(ep);
    free(p);
}

int main(int argc, char **argv)
{
    const char *w = argc > 1 ? argv[1] : "";
    if (!strcmp(w, "pingpong")) bench_pingpong(arg_long(argc, argv, 2, 100000));
    else if (!strcmp(w, "signal")) bench_signal((int)arg_long(argc, argv, 2, 1), arg_long(argc, argv, 3, 1000000));
    else if (!strcmp(w, "lateness")) bench_lateness(arg_long(argc, argv, 2, 500));
    else if (!strcmp(w, "fds")) on_own_thread(bench_fds, arg_long(argc, argv, 2, 20), 0);
    else if (!strcmp(w, "fdone") || !strcmp(w, "fdcf")) {
        fdone_row = w;
        on_own_thread(bench_fdone, arg_long(argc, argv, 2, 10000), arg_long(argc, argv, 3, 20000));
    } else if (!strcmp(w, "perform") || !strcmp(w, "timers") || !strcmp(w, "sources") ||
             !strcmp(w, "idle") || !strcmp(w, "memory")) return 0;
    else { fprintf(stderr, "usage: %s pingpong|signal|lateness|fds|fdone|fdcf [args]\n", argv[0]); return 2; }
    return 0;
}
