/*
 * bench.h — shared helpers of the benchmark programs in Benchmarks/:
 * clocks, percentiles, resource usage, the RESULT line format read by
 * scripts/bench.sh, the rows every program reports alike (report_pingpong,
 * report_timers, report_spread, report_fds, report_idle, report_lateness,
 * mem_report), and a seeded shuffle.
 *
 * Every program prints one line per measured value:
 *   RESULT <workload> <impl> <metric> <value> <unit>
 * and nothing else on stdout.  Diagnostics go to stderr.
 */
#ifndef RUNLOOP_BENCH_H
#define RUNLOOP_BENCH_H

#define _GNU_SOURCE 1
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define B_UNUSED __attribute__((unused))

static B_UNUSED uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Workload 4's measured phase lasts at least this long.  At the smallest
 * counts a fast loop's events take a couple of milliseconds, which one
 * interrupt or a burst of steal time on a VM skews by tens of percent. */
#define MIN_MEASURE_NS 200000000ull

/* Whether a measured phase that started at t0 and has run `done` events
 * may stop: at least `min_events` and at least MIN_MEASURE_NS.  Asked
 * once per block of events. */
static B_UNUSED int measured_enough(long done, long min_events, uint64_t t0)
{
    return done >= min_events && now_ns() - t0 >= MIN_MEASURE_NS;
}

static B_UNUSED void result(const char *workload, const char *impl, const char *metric,
                            double value, const char *unit)
{
    printf("RESULT %s %s %s %.6g %s\n", workload, impl, metric, value, unit);
    fflush(stdout);
}

/* Workload 4's driver.  event(arg, i) signals source i (or, for i < 0,
 * the source that is alone in its mode, context or loop) and runs one
 * pass over it.  With n > 1 the run alternates blocks of random events
 * among the n sources with blocks of events on the lone source (the same
 * thread, the same moment), so their ratio is measured under the same
 * conditions, not across runs whose speed drifts on a shared VM.  Prints
 * per_event (and per_event_alone and ratio_to_alone when n > 1); returns
 * how many events it ran, warm-up included. */
enum { SOURCES_BLOCK = 1024 };

static B_UNUSED uint64_t sources_block(void (*event)(void *, long), void *arg, long n, uint64_t *r, int alone)
{
    uint64_t t = now_ns();
    for (int k = 0; k < SOURCES_BLOCK; k++) {
        if (alone) {
            event(arg, -1);
        } else {
            *r = *r * 6364136223846793005u + 1442695040888963407u;
            event(arg, (long)((*r >> 33) % (uint64_t)n));
        }
    }
    return now_ns() - t;
}

static B_UNUSED long run_sources(const char *impl, long n, long min_events, void (*event)(void *, long), void *arg)
{
    uint64_t r = 12345, spent = 0, spent_alone = 0;
    int interleave = n > 1;
    long blocks = 0, warm = min_events / 10 / SOURCES_BLOCK + 1;
    for (long b = 0; b < warm; b++) {
        sources_block(event, arg, n, &r, 0);
        if (interleave) sources_block(event, arg, n, &r, 1);
    }
    uint64_t t0 = now_ns();
    while (!measured_enough(blocks * SOURCES_BLOCK, min_events, t0)) {
        spent += sources_block(event, arg, n, &r, 0);
        if (interleave) spent_alone += sources_block(event, arg, n, &r, 1);
        blocks++;
    }
    char name[32];
    snprintf(name, sizeof name, "sources%ld", n);
    double events = (double)(blocks * SOURCES_BLOCK);
    result(name, impl, "per_event", (double)spent / events, "ns");
    if (interleave) {
        result(name, impl, "per_event_alone", (double)spent_alone / events, "ns");
        result(name, impl, "ratio_to_alone", (double)spent / (double)spent_alone, "x");
    }
    return (blocks + warm) * SOURCES_BLOCK * (interleave ? 2 : 1);
}

static B_UNUSED int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The p-th percentile (0..100) of v[0..n), sorting v in place. */
static B_UNUSED double percentile(uint64_t *v, size_t n, double p)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
    return (double)v[i < n ? i : n - 1];
}

/* HOT_PER_OP(items, body): runs `body` `items` times in HOT_BLOCKS
 * blocks, each timed alone, and gives the median block's ns per run of
 * body.  For rows of a few ns per call: an interrupt or a migration
 * spoils one block, not the row.  Every implementation's hot rows use it. */
#define HOT_BLOCKS 9
#define HOT_PER_OP(items, body) __extension__ ({                            \
        uint64_t hot_ns_[HOT_BLOCKS];                                     \
        long hot_n_ = (items) / HOT_BLOCKS > 0 ? (items) / HOT_BLOCKS : 1;  \
        for (int hot_b_ = 0; hot_b_ < HOT_BLOCKS; hot_b_++) {             \
            uint64_t hot_t0_ = now_ns();                                  \
            for (long hot_i_ = 0; hot_i_ < hot_n_; hot_i_++) { body; }    \
            hot_ns_[hot_b_] = now_ns() - hot_t0_;                         \
        }                                                                 \
        percentile(hot_ns_, HOT_BLOCKS, 50) / (double)hot_n_;             \
    })

/* Same for signed samples (lateness may be negative). */
static B_UNUSED int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}
static B_UNUSED double percentile_i64(int64_t *v, size_t n, double p)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_i64);
    size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
    return (double)v[i < n ? i : n - 1];
}

/* Voluntary context switches and CPU time (µs) of the calling thread. */
/* The calling thread's voluntary context switches and CPU time.  CPU time
 * from CLOCK_THREAD_CPUTIME_ID, which counts up to the moment of the call:
 * getrusage's thread times are brought up to date only at a tick or a
 * context switch, so CPU spent before a first sample (making the loop)
 * would be charged to the interval that ends with the next sleep. */
struct thread_usage { long nvcsw; double cpu_us; };
static B_UNUSED struct thread_usage thread_usage(void)
{
    struct rusage ru;
    struct timespec ts;
    getrusage(RUSAGE_THREAD, &ru);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    struct thread_usage u = { ru.ru_nvcsw, (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3 };
    return u;
}

/* Resident set size in bytes (/proc/self/statm). */
static B_UNUSED long rss_bytes(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

/* The process's peak resident memory so far (VmHWM), and a way to start
 * it again from the current RSS (writing 5 to clear_refs resets it), so
 * a workload can report the peak it caused. */
static B_UNUSED long peak_rss_bytes(void)
{
    long kb = 0;
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024;
}
static B_UNUSED void reset_peak_rss(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) { fputs("5", f); fclose(f); }
}

/* Starts a timers workload's memory measurement: restarts the peak RSS
 * and returns the RSS to count it from (for report_timers). */
static B_UNUSED long timers_rss_start(void)
{
    reset_peak_rss();
    return rss_bytes();
}

/* Reports a timers workload of n timers whose adds ran from t0 to t1 and
 * whose last firing came at t2 (now_ns): the total, the adds and the time
 * per timer; with n >= 1M also the peak RSS over `rss0` per timer. */
static B_UNUSED void report_timers(const char *impl, long n, uint64_t t0, uint64_t t1, uint64_t t2,
                                   long rss0)
{
    char name[32];
    snprintf(name, sizeof name, "timers%ld", n);
    result(name, impl, "total", (double)(t2 - t0) / 1e6, "ms");
    result(name, impl, "add", (double)(t1 - t0) / 1e6, "ms");
    result(name, impl, "per_timer", (double)(t2 - t0) / (double)n, "ns");
    if (n >= 1000000)
        result(name, impl, "peak_rss_per_timer", (double)(peak_rss_bytes() - rss0) / (double)n, "B");
}

/* The spread workload's span: fire dates over the 2 ms after the first add. */
#define SPREAD_NS 2000000

/* Reports a spread workload of n timers: wall time from the first add to
 * the last firing and the loop thread's CPU time over it. */
static B_UNUSED void report_spread(long n, const char *impl, uint64_t wall_ns, double cpu_us)
{
    char name[32];
    snprintf(name, sizeof name, "spread%ld", n);
    result(name, impl, "total", (double)wall_ns / 1e6, "ms");
    result(name, impl, "cpu", cpu_us / 1e3, "ms");
}

/* Reports the pingpong workload's n round trips (ns): median and p99. */
static B_UNUSED void report_pingpong(const char *impl, uint64_t *rtt, size_t n)
{
    result("pingpong", impl, "median", percentile(rtt, n, 50) / 1e3, "us");
    result("pingpong", impl, "p99", percentile(rtt, n, 99) / 1e3, "us");
}

/* Reports the lateness workload's n firings (ns late, may be negative). */
static B_UNUSED void report_lateness(const char *impl, int64_t *ns, size_t n)
{
    result("lateness", impl, "p50", percentile_i64(ns, n, 50) / 1e3, "us");
    result("lateness", impl, "p99", percentile_i64(ns, n, 99) / 1e3, "us");
}

/* Reports the fds workload: `total` ns and `passes` loop passes (or
 * waits) over `rounds` bursts of 1,000 ready pipes. */
static B_UNUSED void report_fds(const char *impl, uint64_t total, long passes, long rounds)
{
    result("fds1000", impl, "per_burst", (double)total / (double)rounds, "ns");
    result("fds1000", impl, "passes", (double)passes / (double)rounds, "x");
}

/* Reports an idle workload's context switches (less the one that ends
 * it) and CPU time between two thread_usage samples. */
static B_UNUSED void report_idle(const char *name, const char *impl, struct thread_usage u0,
                                 struct thread_usage u1)
{
    result(name, impl, "ctxsw", (double)(u1.nvcsw - u0.nvcsw - 1), "n");
    result(name, impl, "cpu", u1.cpu_us - u0.cpu_us, "us");
}

/* A shuffled 0..n-1 (fixed seed: every implementation gets the same). */
static B_UNUSED uint32_t *shuffled(size_t n)
{
    uint32_t *p = malloc(n * sizeof *p);
    if (!p) { perror("malloc"); exit(2); }
    for (size_t i = 0; i < n; i++) p[i] = (uint32_t)i;
    uint64_t s = 0x9E3779B97F4A7C15u;
    for (size_t i = n; i > 1; i--) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        size_t j = (size_t)((s >> 33) % i);
        uint32_t t = p[i - 1]; p[i - 1] = p[j]; p[j] = t;
    }
    return p;
}

static B_UNUSED void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p) { perror("calloc"); exit(2); }
    return p;
}

static B_UNUSED pthread_t spawn(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg) != 0) { perror("pthread_create"); exit(2); }
    return t;
}

/* Runs fn(a, b) on a thread of its own and waits for it.  Every program
 * runs each loop workload on a spawned thread (runloop's and GLib's loops
 * are per thread; libuv and the floor run theirs this way too), so every
 * peer is measured in the same process shape: two threads.  It matters:
 * in a multi-threaded process glibc's read() and write() take their
 * cancellation path and the kernel takes a reference on the file for each
 * call, and a 1,000-pipe burst read on the main thread of a
 * single-threaded process was ~15% faster (libuv, fds 1000, medians of
 * 11: 532 against 618 us). */
struct own_thread_call { void (*fn)(long, long); long a, b; };

static void *own_thread_main(void *arg)
{
    struct own_thread_call *c = arg;
    c->fn(c->a, c->b);
    return NULL;
}

static B_UNUSED void on_own_thread(void (*fn)(long, long), long a, long b)
{
    struct own_thread_call c = { fn, a, b };
    pthread_join(spawn(own_thread_main, &c), NULL);
}

static B_UNUSED long arg_long(int argc, char **argv, int i, long dflt)
{
    return argc > i ? strtol(argv[i], NULL, 10) : dflt;
}

/* Workload 5 holds 1,000 pipes (2,000 descriptors) open at once, more than
 * the soft RLIMIT_NOFILE of many systems (1,024).  Raises the soft limit
 * to at least `need` (an unprivileged process may go up to the hard
 * limit); exits with a message when the hard limit is below it, rather
 * than failing half-way through with EMFILE. */
static B_UNUSED void need_fds(rlim_t need)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) { perror("getrlimit"); exit(2); }
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
            fprintf(stderr, "RLIMIT_NOFILE hard limit %llu < %llu descriptors needed (ulimit -Hn)\n",
                    (unsigned long long)rl.rlim_max, (unsigned long long)need);
            exit(2);
        }
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) { perror("setrlimit RLIMIT_NOFILE"); exit(2); }
    }
}

/* Malloc counters, filled by malloc_count.c when it is linked in. */
struct malloc_stats { unsigned long calls; unsigned long bytes; unsigned long heap_in_use; };
/* Weak: NULL in programs built without malloc_count.c. */
struct malloc_stats malloc_stats_now(void) __attribute__((weak));

/* Workload 8 (memory): heap bytes, malloc calls and RSS, sampled before
 * and after making n of something, reported per item. */
struct mem_sample { struct malloc_stats m; long rss; };

/* Exits unless the program was built with malloc_count.c (the *_mem ones). */
static B_UNUSED void need_malloc_counter(void)
{
    if (!malloc_stats_now) {
        fprintf(stderr, "memory: this build has no malloc counter (use the _mem program)\n");
        exit(2);
    }
}

static B_UNUSED struct mem_sample mem_now(void)
{
    struct mem_sample s = { malloc_stats_now(), rss_bytes() };
    return s;
}

static B_UNUSED void mem_report(const char *what, const char *impl, struct mem_sample a,
                                struct mem_sample b, long n)
{
    char name[32];
    snprintf(name, sizeof name, "mem_%s", what);
    result(name, impl, "heap_bytes", (double)((long)b.m.heap_in_use - (long)a.m.heap_in_use) / (double)n, "B");
    result(name, impl, "mallocs", (double)(b.m.calls - a.m.calls) / (double)n, "n");
    result(name, impl, "rss_bytes", (double)(b.rss - a.rss) / (double)n, "B");
}

#endif /* RUNLOOP_BENCH_H */
