/*
 * harness.h — a tiny header-only harness for runloop's C behaviour tests.
 *
 * Each test program runs one scenario, records what happens as lines of
 * text with TRACE(), and compares the lines with a recorded trace file:
 *
 *     return trace_check("name") | harness_failures;
 *
 * The expected traces (Tests/traces/<name>.trace) were recorded from Apple's
 * real CoreFoundation: build with -DRL_TEST_AGAINST_CF (see
 * build_against_cf.sh) and run with RL_TRACE_WRITE=1 to (re)record.
 *
 * Build against runloop:
 *   cc -std=gnu11 -I include -I Tests/c -DRL_TRACE_DIR='"<repo>/Tests/traces"' \
 *      Tests/c/test_x.c -L<builddir> -lrunloop -lpthread
 *
 * Build with -DRL_TEST_INLINE_FAST_PATHS to include the opt-in
 * <runloop/fastpath.h> (the ctest *_inline variants): the same scenario,
 * with RLRunLoopSourceSignal, RLRunLoopWakeUp and
 * RLRunLoopSourceSignalAndWakeUp checked inline before they call the
 * library.  Without it, tests call the library functions, as every program
 * that does not opt in does.
 *
 * Environment:
 *   RL_TRACE_WRITE=1  write the actual trace to the trace file instead of
 *                     comparing (used to record CF's behaviour);
 *   RL_TRACE_ECHO=1   also print every trace line to stderr as it happens.
 *
 * Rules for scenarios: never trace addresses or times; make the order of
 * lines deterministic (threads hand over with gate_t, never with sleeps);
 * sleep only to let time pass for timers; timing checks are lower bounds.
 * Include this header first (it defines _GNU_SOURCE).
 */
#ifndef RL_TEST_HARNESS_H
#define RL_TEST_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef RL_TEST_AGAINST_CF
#include <CoreFoundation/CoreFoundation.h>
#include "cf_compat_for_tests.h"
#else
#include <runloop/runloop.h>
#ifdef RL_TEST_INLINE_FAST_PATHS
#include <runloop/fastpath.h>
#ifndef RLRunLoopSourceSignalAndWakeUp
#error "<runloop/fastpath.h> did not define the inline fast paths"
#endif
#endif
/* Mode names: plain C strings under runloop, CFSTR literals under CF. */
#define MODE(s) ((RLRunLoopMode)(s))
#endif

#ifndef RL_TRACE_DIR
#error "define RL_TRACE_DIR (a string: the folder holding the .trace files)"
#endif

#if defined(__GNUC__) || defined(__clang__)
/* callbacks in scenarios ignore most of their parameters */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define H_UNUSED __attribute__((unused))
#define H_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define H_UNUSED
#define H_PRINTF(a, b)
#endif

/* ------------------------------------------------------------------------
 * The trace
 * ---------------------------------------------------------------------- */

static pthread_mutex_t h_lock = PTHREAD_MUTEX_INITIALIZER;
static char **h_lines;
static size_t h_count, h_cap;
static char **h_deferred;               /* see trace_defer() */
static size_t h_dcount, h_dcap;
static int harness_failures;            /* number of failed CHECKs */

static void h_push(char ***arr, size_t *count, size_t *cap, char *line)
{
    if (*count == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *arr = (char **)realloc(*arr, *cap * sizeof **arr);
        if (!*arr) { perror("realloc"); exit(2); }
    }
    (*arr)[(*count)++] = line;
}

static H_UNUSED char *h_vformat(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) { perror("vasprintf"); exit(2); }
    return s;
}

/* Appends one line (no trailing newline needed) to the trace. */
static H_UNUSED H_PRINTF(1, 2) void harness_trace(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = h_vformat(fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&h_lock);
    h_push(&h_lines, &h_count, &h_cap, line);
    pthread_mutex_unlock(&h_lock);
    const char *echo = getenv("RL_TRACE_ECHO");
    if (echo && echo[0] == '1') fprintf(stderr, "trace| %s\n", line);
}
#define TRACE(...) harness_trace(__VA_ARGS__)

/* For callbacks whose relative order is unspecified (e.g. schedule/cancel
 * for each common mode, which CF visits in hash order): collect the lines
 * with trace_defer() and append them sorted with trace_flush_sorted(). */
static H_UNUSED H_PRINTF(1, 2) void trace_defer(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = h_vformat(fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&h_lock);
    h_push(&h_deferred, &h_dcount, &h_dcap, line);
    pthread_mutex_unlock(&h_lock);
}

static int h_strcmp_p(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static H_UNUSED void trace_flush_sorted(void)
{
    pthread_mutex_lock(&h_lock);
    qsort(h_deferred, h_dcount, sizeof *h_deferred, h_strcmp_p);
    for (size_t i = 0; i < h_dcount; i++) {
        const char *echo = getenv("RL_TRACE_ECHO");
        if (echo && echo[0] == '1') fprintf(stderr, "trace| %s\n", h_deferred[i]);
        h_push(&h_lines, &h_count, &h_cap, h_deferred[i]);
    }
    h_dcount = 0;
    pthread_mutex_unlock(&h_lock);
}

/* CHECK(cond): on failure prints file:line and the condition and counts the
 * failure; the program's exit status includes harness_failures. */
#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
            pthread_mutex_lock(&h_lock);                                     \
            harness_failures++;                                              \
            pthread_mutex_unlock(&h_lock);                                   \
        }                                                                    \
    } while (0)

static char *h_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = (char *)malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) { cap *= 2; buf = (char *)realloc(buf, cap); }
    }
    fclose(f);
    buf[len] = 0;
    return buf;
}

/* Compares the trace with RL_TRACE_DIR/<name>.trace (or writes it when
 * RL_TRACE_WRITE=1).  0 on match, 1 on mismatch. */
static H_UNUSED int trace_check(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.trace", RL_TRACE_DIR, name);
    pthread_mutex_lock(&h_lock);
    size_t count = h_count;
    char **lines = h_lines;
    pthread_mutex_unlock(&h_lock);

    const char *w = getenv("RL_TRACE_WRITE");
    if (w && w[0] == '1') {
        FILE *f = fopen(path, "w");
        if (!f) { perror(path); return 1; }
        for (size_t i = 0; i < count; i++) fprintf(f, "%s\n", lines[i]);
        fclose(f);
        printf("wrote %s (%zu lines)\n", path, count);
        return 0;
    }

    char *text = h_read_file(path);
    if (!text) {
        printf("FAIL %s: cannot read %s\n", name, path);
        for (size_t i = 0; i < count; i++) printf("  actual %3zu: %s\n", i + 1, lines[i]);
        return 1;
    }
    /* split expected into lines */
    size_t ecount = 0, ecap = 0;
    char **exp = NULL;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = 0;
        h_push(&exp, &ecount, &ecap, p);
        if (!nl) break;
        p = nl + 1;
    }
    size_t first = (size_t)-1;
    size_t n = count > ecount ? count : ecount;
    for (size_t i = 0; i < n; i++) {
        if (i >= count || i >= ecount || strcmp(lines[i], exp[i]) != 0) { first = i; break; }
    }
    int rc = 0;
    if (first == (size_t)-1) {
        printf("ok %s\n", name);
    } else {
        printf("FAIL %s: first difference at line %zu (expected %zu lines, got %zu)\n",
               name, first + 1, ecount, count);
        printf("--- expected (%s)\n", path);
        for (size_t i = 0; i < ecount; i++)
            printf("%s %3zu: %s\n", i == first ? ">>" : "  ", i + 1, exp[i]);
        printf("--- actual\n");
        for (size_t i = 0; i < count; i++)
            printf("%s %3zu: %s\n", i == first ? ">>" : "  ", i + 1, lines[i]);
        rc = 1;
    }
    free(exp);
    free(text);
    return rc;
}

/* ------------------------------------------------------------------------
 * Names
 * ---------------------------------------------------------------------- */

/* A printable mode name; "(null)" for NULL. */
static H_UNUSED const char *mode_name(RLRunLoopMode m)
{
    if (!m) return "(null)";
#ifdef RL_TEST_AGAINST_CF
    static _Thread_local char bufs[8][256];
    static _Thread_local int next;
    char *b = bufs[next++ & 7];
    if (!CFStringGetCString(m, b, sizeof bufs[0], kCFStringEncodingUTF8)) strcpy(b, "(?)");
    return b;
#else
    return m;
#endif
}

static H_UNUSED const char *activity_name(RLRunLoopActivity a)
{
    switch (a) {
    case kRLRunLoopEntry: return "Entry";
    case kRLRunLoopBeforeTimers: return "BeforeTimers";
    case kRLRunLoopBeforeSources: return "BeforeSources";
    case kRLRunLoopBeforeWaiting: return "BeforeWaiting";
    case kRLRunLoopAfterWaiting: return "AfterWaiting";
    case kRLRunLoopExit: return "Exit";
    default: return "UnknownActivity";
    }
}

static H_UNUSED const char *result_name(RLRunLoopRunResult r)
{
    switch (r) {
    case kRLRunLoopRunFinished: return "Finished";
    case kRLRunLoopRunStopped: return "Stopped";
    case kRLRunLoopRunTimedOut: return "TimedOut";
    case kRLRunLoopRunHandledSource: return "HandledSource";
    default: return "UnknownResult";
    }
}

static H_UNUSED const char *yes_no(int b) { return b ? "yes" : "no"; }

/* Traces "<label>: current mode <name>" ("(null)" when not running). */
static H_UNUSED void trace_current_mode(const char *label, RLRunLoopRef rl)
{
    RLRunLoopMode m = RLRunLoopCopyCurrentMode(rl);
    TRACE("%s: current mode %s", label, mode_name(m));
    if (m) RLRelease(m);
}

/* Traces "<label>: modes a, b, c" with the loop's modes sorted by name. */
static H_UNUSED void trace_all_modes(const char *label, RLRunLoopRef rl)
{
    RLArrayRef a = RLRunLoopCopyAllModes(rl);
    RLIndex n = a ? RLArrayGetCount(a) : 0;
    char **names = (char **)calloc((size_t)n + 1, sizeof *names);
    for (RLIndex i = 0; i < n; i++)
        names[i] = strdup(mode_name((RLRunLoopMode)RLArrayGetValueAtIndex(a, i)));
    qsort(names, (size_t)n, sizeof *names, h_strcmp_p);
    size_t len = 1;
    for (RLIndex i = 0; i < n; i++) len += strlen(names[i]) + 2;
    char *out = (char *)calloc(len, 1);
    for (RLIndex i = 0; i < n; i++) {
        if (i) strcat(out, ", ");
        strcat(out, names[i]);
        free(names[i]);
    }
    TRACE("%s: modes %s", label, out);
    free(out);
    free(names);
    if (a) RLRelease(a);
}

/* ------------------------------------------------------------------------
 * Time and threads
 * ---------------------------------------------------------------------- */

static H_UNUSED RLAbsoluteTime now(void) { return RLAbsoluteTimeGetCurrent(); }

/* Lets time pass (for timers only; never to order threads). */
static H_UNUSED void sleep_s(double seconds)
{
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0) {}
}

static H_UNUSED double h_fabs(double x) { return x < 0 ? -x : x; }

/* A counting semaphore for hand-overs between threads. */
typedef struct {
    pthread_mutex_t m;
    pthread_cond_t c;
    int n;
} gate_t;
#define GATE_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 }

static H_UNUSED void gate_post(gate_t *g)
{
    pthread_mutex_lock(&g->m);
    g->n++;
    pthread_cond_broadcast(&g->c);
    pthread_mutex_unlock(&g->m);
}

static H_UNUSED void gate_wait(gate_t *g)
{
    pthread_mutex_lock(&g->m);
    while (g->n == 0) pthread_cond_wait(&g->c, &g->m);
    g->n--;
    pthread_mutex_unlock(&g->m);
}

static void *h_thread_main(void *arg)
{
    void (*fn)(void) = (void (*)(void))(uintptr_t)arg;
    fn();
    return NULL;
}

/* Runs fn on a freshly created thread and waits for it (and for the
 * thread's exit, so its loop has been torn down when this returns). */
static H_UNUSED void run_on_thread(void (*fn)(void))
{
    pthread_t t;
    if (pthread_create(&t, NULL, h_thread_main, (void *)(uintptr_t)fn) != 0) {
        perror("pthread_create");
        exit(2);
    }
    pthread_join(t, NULL);
}

/* Starts fn(arg) on a new thread; join it with pthread_join. */
static H_UNUSED pthread_t start_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg) != 0) { perror("pthread_create"); exit(2); }
    return t;
}

/* Waits until `rl` sleeps (RLRunLoopIsWaiting): the hand-over to "the loop
 * is asleep now", which no observer reports (BeforeWaiting comes just
 * before the sleep).  Yields between looks, never spins (under valgrind
 * one thread runs at a time, and a spinning thread starves the loop's),
 * and gives up after 10 s; whether the loop slept. */
static H_UNUSED int wait_until_waiting(RLRunLoopRef rl)
{
    RLAbsoluteTime end = 0;
    for (long i = 0;; i++) {
        if (RLRunLoopIsWaiting(rl)) return 1;
        if ((i & 255) == 255) {
            RLAbsoluteTime t = now();
            if (end == 0) end = t + 10;
            else if (t > end) return 0;
        }
        sched_yield();
    }
}

/* ------------------------------------------------------------------------
 * Items
 * ---------------------------------------------------------------------- */

/* Queues fn(info) on rl for mode (a mode name or kRLRunLoopCommonModes).
 * CF: CFRunLoopPerformBlock with a block; runloop: RLRunLoopPerformFunction. */
#ifdef RL_TEST_AGAINST_CF
static H_UNUSED void perform_fn(RLRunLoopRef rl, RLRunLoopMode mode, void (*fn)(void *), void *info)
{
    CFRunLoopPerformBlock(rl, mode, ^{ fn(info); });
}
#else
static H_UNUSED void perform_fn(RLRunLoopRef rl, RLRunLoopMode mode, void (*fn)(void *), void *info)
{
    RLRunLoopPerformFunction(rl, (RLTypeRef)mode, fn, info);
}
#endif

/* A version-0 source with only info and perform (no retain/release,
 * schedule or cancel).  Caller releases. */
static H_UNUSED RLRunLoopSourceRef new_source(RLIndex order, void *info, void (*perform)(void *))
{
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = info;
    ctx.perform = perform;
    return RLRunLoopSourceCreate(NULL, order, &ctx);
}

#ifndef RL_TEST_AGAINST_CF
/* A version-1 (descriptor) source with only info, getPort and perform
 * (runloop-only: CF on Linux has none).  Caller releases. */
static H_UNUSED RLRunLoopSourceRef new_fd_source(RLIndex order, void *info, int (*get_port)(void *),
                                                 void (*perform)(void *))
{
    RLRunLoopSourceContext1 ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.version = 1;
    ctx.info = info;
    ctx.getPort = get_port;
    ctx.perform = perform;
    return RLRunLoopSourceCreate(NULL, order, (RLRunLoopSourceContext *)&ctx);
}
#endif

/* A timer with only info in its context.  Caller releases. */
static H_UNUSED RLRunLoopTimerRef new_timer(RLAbsoluteTime fire, RLTimeInterval interval,
                                             RLRunLoopTimerCallBack cb, void *info)
{
    RLRunLoopTimerContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = info;
    return RLRunLoopTimerCreate(NULL, fire, interval, 0, 0, cb, &ctx);
}

/* An observer with only info in its context.  Caller releases. */
static H_UNUSED RLRunLoopObserverRef new_observer(RLOptionFlags activities, RLBoolean repeats, RLIndex order,
                                                   RLRunLoopObserverCallBack cb, void *info)
{
    RLRunLoopObserverContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = info;
    return RLRunLoopObserverCreate(NULL, activities, repeats, order, cb, &ctx);
}

/* Observer callout that traces "<info as tag> <Activity>" (or just the
 * activity when info is NULL). */
static H_UNUSED void trace_activity_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o;
    if (info) TRACE("%s %s", (const char *)info, activity_name(a));
    else TRACE("%s", activity_name(a));
}

/* An AllActivities (or `activities`) observer tracing each activity. */
static H_UNUSED RLRunLoopObserverRef activity_logger(RLOptionFlags activities, const char *tag)
{
    return new_observer(activities, 1, 0, trace_activity_cb, (void *)tag);
}

#endif /* RL_TEST_HARNESS_H */
