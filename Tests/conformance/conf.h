/*
 * conf.h — the shared harness of the differential conformance scenarios.
 *
 * Every Tests/conformance/sc_*.c is written against CoreFoundation's names
 * only and is compiled twice (cmake/Conformance.cmake):
 *   -DCONF_AGAINST_CF   <CoreFoundation/CoreFoundation.h>, libFoundation
 *   (nothing)           <runloop/cfcompat.h>, librunloop
 * Both programs print a trace on stdout; the test passes when the two
 * traces are byte for byte identical (Tests/conformance/compare.sh).
 *
 * Rules: trace no addresses and no times; threads hand over with gate_t
 * (never sleeps); sleep only to let time pass for timers, with margins
 * wide enough for a loaded 2-core machine; run the scenario on a secondary
 * thread (CONF_MAIN) — CF's main-thread loop also serves the dispatch main
 * queue, so its common modes are never empty: only scenarios about that
 * run on the main thread (CONF_MAIN_ON_MAIN_THREAD).  CHECK failures go to stderr and make the program exit 1.
 */
#ifndef CONF_H
#define CONF_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef CONF_AGAINST_CF
#include <CoreFoundation/CoreFoundation.h>
#endif
/* after CF: only the portable mode-name helpers; alone: every CF name */
#include <runloop/cfcompat.h>

#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-function"

/* ---------------------------------------------------------------- trace */

static pthread_mutex_t conf_lock = PTHREAD_MUTEX_INITIALIZER;
static int conf_failures;
static char *conf_deferred[256];
static int conf_ndeferred;

/* T(fmt, ...): one trace line on stdout. */
__attribute__((format(printf, 1, 2))) static void T(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&conf_lock);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
    pthread_mutex_unlock(&conf_lock);
}

/* T_defer: a line whose position among other deferred lines is not
 * specified (CF walks hash tables); T_flush_sorted prints them sorted. */
__attribute__((format(printf, 1, 2))) static void T_defer(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&conf_lock);
    if (conf_ndeferred < 256) conf_deferred[conf_ndeferred++] = strdup(buf);
    pthread_mutex_unlock(&conf_lock);
}

static int conf_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void T_flush_sorted(void)
{
    pthread_mutex_lock(&conf_lock);
    qsort(conf_deferred, (size_t)conf_ndeferred, sizeof conf_deferred[0], conf_cmp);
    for (int i = 0; i < conf_ndeferred; i++) { printf("%s\n", conf_deferred[i]); free(conf_deferred[i]); }
    conf_ndeferred = 0;
    fflush(stdout);
    pthread_mutex_unlock(&conf_lock);
}

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            pthread_mutex_lock(&conf_lock);                                          \
            conf_failures++;                                                         \
            pthread_mutex_unlock(&conf_lock);                                        \
        }                                                                            \
    } while (0)

/* ---------------------------------------------------------------- names */

/* A printable mode name (8 rotating buffers per thread). */
static const char *mname(CFStringRef m)
{
    static _Thread_local char bufs[8][128];
    static _Thread_local unsigned next;
    return CFCompatModeCString(m, bufs[next++ & 7], sizeof bufs[0]);
}

static const char *act(CFRunLoopActivity a)
{
    switch (a) {
    case kCFRunLoopEntry: return "Entry";
    case kCFRunLoopBeforeTimers: return "BeforeTimers";
    case kCFRunLoopBeforeSources: return "BeforeSources";
    case kCFRunLoopBeforeWaiting: return "BeforeWaiting";
    case kCFRunLoopAfterWaiting: return "AfterWaiting";
    case kCFRunLoopExit: return "Exit";
    default: return "?";
    }
}

static const char *res(CFRunLoopRunResult r)
{
    switch (r) {
    case kCFRunLoopRunFinished: return "Finished";
    case kCFRunLoopRunStopped: return "Stopped";
    case kCFRunLoopRunTimedOut: return "TimedOut";
    case kCFRunLoopRunHandledSource: return "HandledSource";
    default: return "?";
    }
}

static const char *yesno(int b) { return b ? "yes" : "no"; }

/* Runs `mode` for `s` seconds and returns the result's name. */
static const char *run(CFStringRef mode, double s, Boolean ret)
{
    return res(CFRunLoopRunInMode(mode, s, ret));
}

/* "<label>: current mode <m>" */
static void T_current_mode(const char *label)
{
    CFStringRef m = CFRunLoopCopyCurrentMode(CFRunLoopGetCurrent());
    T("%s: current mode %s", label, mname(m));
    if (m) CFRelease(m);
}

/* "<label>: modes a, b" — the loop's modes, sorted. */
static void T_all_modes(const char *label, CFRunLoopRef rl)
{
    CFArrayRef a = CFRunLoopCopyAllModes(rl);
    CFIndex n = CFArrayGetCount(a);
    char *names[64];
    char line[1024] = "";
    for (CFIndex i = 0; i < n && i < 64; i++)
        names[i] = strdup(mname((CFStringRef)CFArrayGetValueAtIndex(a, i)));
    qsort(names, (size_t)(n < 64 ? n : 64), sizeof names[0], conf_cmp);
    for (CFIndex i = 0; i < n && i < 64; i++) {
        if (i) strncat(line, ", ", sizeof line - strlen(line) - 1);
        strncat(line, names[i], sizeof line - strlen(line) - 1);
        free(names[i]);
    }
    T("%s: modes %s", label, line);
    CFRelease(a);
}

/* ------------------------------------------------------- time, threads */

static CFAbsoluteTime now(void) { return CFAbsoluteTimeGetCurrent(); }

/* Lets time pass (for timers only). */
static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0) {}
}

typedef struct { pthread_mutex_t m; pthread_cond_t c; int n; } gate_t;
#define GATE_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 }

static void gate_post(gate_t *g)
{
    pthread_mutex_lock(&g->m);
    g->n++;
    pthread_cond_broadcast(&g->c);
    pthread_mutex_unlock(&g->m);
}

static void gate_wait(gate_t *g)
{
    pthread_mutex_lock(&g->m);
    while (g->n == 0) pthread_cond_wait(&g->c, &g->m);
    g->n--;
    pthread_mutex_unlock(&g->m);
}

/* Waits (up to 5 s) until the loop is asleep; returns whether it is. */
static int wait_until_waiting(CFRunLoopRef rl)
{
    for (int i = 0; i < 5000; i++) {
        if (CFRunLoopIsWaiting(rl)) return 1;
        sleep_s(0.001);
    }
    return 0;
}

static pthread_t start_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg) != 0) { perror("pthread_create"); exit(2); }
    return t;
}

/* ---------------------------------------------------------------- items */

/* A version-0 source with info and perform only.  Caller releases. */
static CFRunLoopSourceRef new_source(CFIndex order, void *info, void (*perform)(void *))
{
    CFRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = info;
    ctx.perform = perform;
    return CFRunLoopSourceCreate(kCFAllocatorDefault, order, &ctx);
}

static CFRunLoopTimerRef new_timer(CFAbsoluteTime fire, CFTimeInterval interval,
                                   CFRunLoopTimerCallBack cb, void *info)
{
    CFRunLoopTimerContext ctx = { 0, info, NULL, NULL, NULL };
    return CFRunLoopTimerCreate(kCFAllocatorDefault, fire, interval, 0, 0, cb, &ctx);
}

static CFRunLoopObserverRef new_observer(CFOptionFlags acts, Boolean repeats, CFIndex order,
                                         CFRunLoopObserverCallBack cb, void *info)
{
    CFRunLoopObserverContext ctx = { 0, info, NULL, NULL, NULL };
    return CFRunLoopObserverCreate(kCFAllocatorDefault, acts, repeats, order, cb, &ctx);
}

/* Observer callout tracing "<info> <Activity>". */
static void log_activity(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info)
{
    T("%s %s", info ? (const char *)info : "obs", act(a));
}

/* An observer of `acts` that traces them with `tag`, added to `mode` of the
 * current loop.  Caller invalidates and releases. */
static CFRunLoopObserverRef add_logger(CFOptionFlags acts, const char *tag, CFStringRef mode)
{
    CFRunLoopObserverRef o = new_observer(acts, TRUE, 0, log_activity, (void *)tag);
    CFRunLoopAddObserver(CFRunLoopGetCurrent(), o, mode);
    return o;
}

static void drop_observer(CFRunLoopObserverRef o) { CFRunLoopObserverInvalidate(o); CFRelease(o); }
static void drop_timer(CFRunLoopTimerRef t) { CFRunLoopTimerInvalidate(t); CFRelease(t); }
static void drop_source(CFRunLoopSourceRef s) { CFRunLoopSourceInvalidate(s); CFRelease(s); }

static void nop_perform(void *info) {}
static void nop_timer(CFRunLoopTimerRef t, void *info) {}

/* A source that is never signalled: keeps `mode` from being empty. */
static CFRunLoopSourceRef keep_mode_alive(CFStringRef mode)
{
    CFRunLoopSourceRef s = new_source(0, NULL, nop_perform);
    CFRunLoopAddSource(CFRunLoopGetCurrent(), s, mode);
    return s;
}

/* ----------------------------------------------------------------- main */

static void *conf_thread(void *arg)
{
    ((void (*)(void))(uintptr_t)arg)();
    return NULL;
}

/* main(): runs scenario() on a secondary thread, waits for the thread to
 * exit (its loop is torn down), then `after` (may be NULL) on the main
 * thread; exit status 1 when a CHECK failed. */
#define CONF_MAIN_AFTER(scenario, after)                                      \
    int main(void)                                                            \
    {                                                                         \
        pthread_t t = start_thread(conf_thread, (void *)(uintptr_t)scenario); \
        pthread_join(t, NULL);                                                \
        void (*after_fn)(void) = after;                                       \
        if (after_fn) after_fn();                                             \
        fflush(stdout);                                                       \
        return conf_failures ? 1 : 0;                                         \
    }
#define CONF_MAIN(scenario) CONF_MAIN_AFTER(scenario, NULL)

/* main(): runs scenario() on the main thread itself, for the main loop's
 * own behaviour (CF's serves the dispatch main queue in its common modes:
 * see sc_main_thread_run.c). */
#define CONF_MAIN_ON_MAIN_THREAD(scenario)   \
    int main(void)                          \
    {                                       \
        scenario();                         \
        fflush(stdout);                     \
        return conf_failures ? 1 : 0;       \
    }

#endif /* CONF_H */
