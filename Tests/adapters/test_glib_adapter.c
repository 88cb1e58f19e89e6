/*
 * test_glib_adapter — adapters/glib both ways round:
 *   A. runloop driven by a GMainContext (rl_glib_source_new): cross-thread
 *      ping-pong (performed functions + wake-ups), a repeating timer,
 *      a source signalled from another thread, observers (Entry/Exit, no
 *      BeforeWaiting), re-entry (g_main_context_iteration from a runloop
 *      callout does not dispatch the runloop source again; the source
 *      destroyed from a runloop callout), the poll descriptor closed by
 *      mistake (the source follows the new one);
 *   B. bad input: the source dispatched on another thread (removes
 *      itself, kRLErrorWrongThread, nothing run); the loop's thread exited
 *      (removes itself, kRLErrorLoopGone); kRLRunLoopCommonModes refused
 *      by rl_glib_source_new (checked in C);
 *   C. a GMainContext hosted on a runloop (rl_glib_host_new): a GLib
 *      timeout, an idle, an I/O watch on a pipe and a g_main_context_invoke
 *      from another thread all run while RLRunLoopRunInMode runs; a
 *      descriptor closed by a GLib callback (its file still open and
 *      readable) is no error and no busy loop; the host freed from a GLib
 *      callback; a context owned by another thread is refused.
 */
#define _GNU_SOURCE 1
#include "rl_glib.h"

#include <glib-unix.h>
#include "harness.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


static RLErrorCode last_code;
static void record(RLErrorCode code, const char *fn, const char *msg, void *info) { last_code = code; }

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define DEF kRLRunLoopDefaultMode

/* ---- A ------------------------------------------------------------------ */

static RLRunLoopRef a_rl;
static sem_t a_ack;
static int a_pings, a_sources, a_timer_fires, a_depth, a_max_depth, a_reentered;
static char a_log[64];
static GMainContext *a_ctx;

static void a_ping(void *info) { a_pings++; sem_post(&a_ack); }

static void *a_peer(void *arg)
{
    RLRunLoopSourceRef s = arg;
    for (int i = 0; i < 200; i++) {
        RLRunLoopPerformFunction(a_rl, DEF, a_ping, NULL);
        RLRunLoopWakeUp(a_rl);
        sem_wait(&a_ack);
    }
    RLRunLoopSourceSignalAndWakeUp(s);
    return NULL;
}

static void a_perform(void *info)
{
    a_sources++;
    /* re-entry: GLib does not dispatch the runloop source being dispatched */
    a_depth++;
    if (a_depth > a_max_depth) a_max_depth = a_depth;
    if (a_depth == 1) { g_main_context_iteration(a_ctx, FALSE); a_reentered = 1; }
    a_depth--;
}

static void a_timer(RLRunLoopTimerRef t, void *info) { a_timer_fires++; }
static int a_destroyed;
static void a_destroy_source(void *info)
{
    g_source_destroy(info);  /* the adapter's source, from a callout of its own dispatch */
    a_destroyed = 1;
}

static void a_observe(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    if (strlen(a_log) < 8) strcat(a_log, a == kRLRunLoopEntry ? "E" : a == kRLRunLoopExit ? "X" : a == kRLRunLoopBeforeWaiting ? "W" : "");
}

static void *scenario_a(void *arg)
{
    a_rl = RLRunLoopGetCurrent();
    a_ctx = g_main_context_new();
    g_main_context_push_thread_default(a_ctx);
    GSource *src = rl_glib_source_new(a_rl, DEF);
    g_source_attach(src, a_ctx);

    RLRunLoopSourceContext sctx = { 0 };
    sctx.perform = a_perform;
    RLRunLoopSourceRef s = RLRunLoopSourceCreate(NULL, 0, &sctx);
    RLRunLoopAddSource(a_rl, s, DEF);
    RLRunLoopObserverRef o = RLRunLoopObserverCreate(NULL, kRLRunLoopEntry | kRLRunLoopExit | kRLRunLoopBeforeWaiting, true, 0, a_observe, NULL);
    RLRunLoopAddObserver(a_rl, o, DEF);

    sem_init(&a_ack, 0, 0);
    pthread_t peer;
    pthread_create(&peer, NULL, a_peer, s);
    double start = mono();
    while ((a_pings < 200 || a_sources < 1) && mono() - start < 20) g_main_context_iteration(a_ctx, TRUE);
    pthread_join(peer, NULL);
    CHECK(a_pings == 200);
    CHECK(a_sources == 1);
    CHECK(a_reentered && a_max_depth == 1);
    CHECK(strncmp(a_log, "EXEX", 4) == 0);  /* no BeforeWaiting */
    RLRunLoopObserverInvalidate(o);
    RLRelease(o);

    /* timers: GLib waits for them with the loop's timeout */
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.01, 0.01, 0, 0, a_timer, NULL);
    RLRunLoopAddTimer(a_rl, t, DEF);
    start = mono();
    while (a_timer_fires < 5 && mono() - start < 10) g_main_context_iteration(a_ctx, TRUE);
    double took = mono() - start;
    CHECK(a_timer_fires == 5);
    CHECK(took >= 0.04 && took < 5);
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);

    /* the poll descriptor closed by mistake: the source follows the new one */
    close(RLRunLoopGetPollDescriptor(a_rl));
    last_code = 0;
    RLRunLoopSourceSignalAndWakeUp(s);
    start = mono();
    while (a_sources < 2 && mono() - start < 5) g_main_context_iteration(a_ctx, TRUE);
    CHECK(a_sources == 2);
    CHECK(last_code == kRLErrorInvalidArgument);
    RLRunLoopSourceSignalAndWakeUp(s);
    start = mono();
    while (a_sources < 3 && mono() - start < 5) g_main_context_iteration(a_ctx, TRUE);
    CHECK(a_sources == 3);

    /* re-entry: the adapter's source destroyed from a runloop callout */
    RLRunLoopPerformFunction(a_rl, DEF, a_destroy_source, src);
    RLRunLoopWakeUp(a_rl);
    start = mono();
    while (!a_destroyed && mono() - start < 5) g_main_context_iteration(a_ctx, TRUE);
    CHECK(a_destroyed && g_source_is_destroyed(src));
    g_main_context_iteration(a_ctx, FALSE);  /* nothing left to dispatch, no crash */

    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    g_source_unref(src);
    g_main_context_pop_thread_default(a_ctx);
    g_main_context_unref(a_ctx);
    return NULL;
}

/* ---- B ------------------------------------------------------------------ */

static RLRunLoopRef b_rl;
static int b_ran;
static sem_t b_go, b_done;
static void b_fn(void *info) { b_ran++; }

static void *b_owner(void *arg)
{
    b_rl = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    RLRunLoopPerformFunction(b_rl, DEF, b_fn, NULL);
    if (arg) return NULL;  /* exits: the loop is gone */
    sem_post(&b_go);
    sem_wait(&b_done);
    RLRunLoopRunInMode(DEF, 0, false);  /* its own thread runs the work */
    return NULL;
}

static void scenario_b(int exits)
{
    pthread_t t;
    sem_init(&b_go, 0, 0);
    sem_init(&b_done, 0, 0);
    b_ran = 0;
    pthread_create(&t, NULL, b_owner, exits ? (void *)1 : NULL);
    if (exits) pthread_join(t, NULL); else sem_wait(&b_go);
    GMainContext *ctx = g_main_context_new();
    GSource *src = rl_glib_source_new(b_rl, DEF);
    g_source_attach(src, ctx);
    last_code = 0;
    for (int i = 0; i < 5 && !g_source_is_destroyed(src); i++) g_main_context_iteration(ctx, FALSE);
    CHECK(g_source_is_destroyed(src));
    CHECK(last_code == (exits ? kRLErrorLoopGone : kRLErrorWrongThread));
    CHECK(b_ran == 0);
    g_source_unref(src);
    g_main_context_unref(ctx);
    if (!exits) {
        sem_post(&b_done);
        pthread_join(t, NULL);
        CHECK(b_ran == 1);
    }
    RLRelease(b_rl);
}

/* ---- C ------------------------------------------------------------------ */

static int c_timeouts, c_idles, c_io, c_invoked;
static int c_pipe[2];
static rl_glib_host *c_host;
static GMainContext *c_ctx;
static pthread_t c_main;

static gboolean c_timeout(gpointer data)
{
    c_timeouts++;
    if (c_timeouts == 2) CHECK(write(c_pipe[1], "x", 1) == 1);
    return c_timeouts < 3 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}
static gboolean c_idle(gpointer data) { c_idles++; return G_SOURCE_REMOVE; }
static gboolean c_read(gint fd, GIOCondition cond, gpointer data)
{
    char b;
    if (read(fd, &b, 1) == 1) c_io++;
    return G_SOURCE_CONTINUE;
}
static gboolean c_invoke(gpointer data)
{
    c_invoked = pthread_equal(pthread_self(), c_main) ? 1 : -1;
    return G_SOURCE_REMOVE;
}
static void *c_other(void *arg)
{
    g_main_context_invoke(c_ctx, c_invoke, NULL);  /* from another thread: GLib's wake-up fd */
    return NULL;
}
static gboolean c_free_host(gpointer data)
{
    rl_glib_host_free(c_host);  /* from a callback of the hosted context */
    c_host = NULL;
    RLRunLoopStop(RLRunLoopGetCurrent());
    return G_SOURCE_REMOVE;
}

/* A GLib callback that destroys a descriptor's source and closes the
 * descriptor (a dup: the file stays open, readable) before the host hears
 * of it: no runloop error, and the host's set drops the registration (no
 * busy loop). */
static int c_dup;
static GSource *c_dup_source;
static int c_passes;
static gboolean c_close_dup(gpointer data)
{
    g_source_destroy(c_dup_source);
    close(c_dup);
    return G_SOURCE_REMOVE;
}
static gboolean c_dup_read(gint fd, GIOCondition cond, gpointer data) { return G_SOURCE_CONTINUE; }
static void c_count(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) { c_passes++; }

static gboolean c_acquire(gpointer data) { return G_SOURCE_REMOVE; }
static GMainContext *c_foreign;
static void *c_try_foreign(void *arg)
{
    rl_glib_host *h = rl_glib_host_new(c_foreign, RLRunLoopGetCurrent(), DEF);
    CHECK(h == NULL);
    return NULL;
}

static void *scenario_c(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    c_main = pthread_self();
    c_ctx = g_main_context_new();
    CHECK(pipe(c_pipe) == 0);
    c_host = rl_glib_host_new(c_ctx, rl, kRLRunLoopCommonModes);
    CHECK(c_host != NULL);
    CHECK(rl_glib_host_new(NULL, rl, DEF) == NULL);
    /* a source runs one mode: not the common-modes pseudo-mode (a host,
     * which adds its items to a mode, may use it) */
    CHECK(rl_glib_source_new(rl, kRLRunLoopCommonModes) == NULL);

    GSource *s = g_timeout_source_new(15);
    g_source_set_callback(s, c_timeout, NULL, NULL);
    g_source_attach(s, c_ctx);
    g_source_unref(s);
    s = g_idle_source_new();
    g_source_set_callback(s, c_idle, NULL, NULL);
    g_source_attach(s, c_ctx);
    g_source_unref(s);
    s = g_unix_fd_source_new(c_pipe[0], G_IO_IN);
    g_source_set_callback(s, (GSourceFunc)(void (*)(void))c_read, NULL, NULL);
    g_source_attach(s, c_ctx);
    g_source_unref(s);
    pthread_t other;
    pthread_create(&other, NULL, c_other, NULL);

    double start = mono();
    while ((c_timeouts < 3 || c_idles < 1 || c_io < 1 || c_invoked == 0) && mono() - start < 10)
        RLRunLoopRunInMode(DEF, 0.5, false);
    pthread_join(other, NULL);
    CHECK(c_timeouts == 3);
    CHECK(c_idles == 1);
    CHECK(c_io == 1);
    CHECK(c_invoked == 1);
    CHECK(mono() - start >= 0.04);

    /* a descriptor closed by a GLib callback before the host hears of it */
    int q[2];
    CHECK(pipe(q) == 0);
    c_dup = dup(q[0]);
    c_dup_source = g_unix_fd_source_new(c_dup, G_IO_IN);
    g_source_set_callback(c_dup_source, (GSourceFunc)(void (*)(void))c_dup_read, NULL, NULL);
    g_source_attach(c_dup_source, c_ctx);
    RLRunLoopRunInMode(DEF, 0.05, false);  /* the host watches c_dup */
    s = g_timeout_source_new(1);
    g_source_set_callback(s, c_close_dup, NULL, NULL);
    g_source_attach(s, c_ctx);
    g_source_unref(s);
    RLRunLoopRunInMode(DEF, 0.05, false);  /* c_close_dup runs */
    CHECK(write(q[1], "x", 1) == 1);       /* the file behind the closed number is readable */
    last_code = 0;
    RLRunLoopObserverRef counter = RLRunLoopObserverCreate(NULL, kRLRunLoopBeforeSources, true, 0, c_count, NULL);
    RLRunLoopAddObserver(rl, counter, DEF);
    RLRunLoopRunInMode(DEF, 0.2, false);
    CHECK(last_code == 0);
    CHECK(c_passes < 50);                  /* asleep, not spinning on a ghost */
    RLRunLoopObserverInvalidate(counter);
    RLRelease(counter);
    g_source_unref(c_dup_source);
    close(q[0]);
    close(q[1]);

    /* freed from one of its own callbacks */
    s = g_timeout_source_new(5);
    g_source_set_callback(s, c_free_host, NULL, NULL);
    g_source_attach(s, c_ctx);
    g_source_unref(s);
    RLRunLoopRunInMode(DEF, 5, false);
    CHECK(c_host == NULL);
    /* the context is released: this thread can iterate it itself */
    CHECK(g_main_context_acquire(c_ctx));
    g_main_context_release(c_ctx);

    /* a context owned by another thread is refused */
    c_foreign = g_main_context_new();
    CHECK(g_main_context_acquire(c_foreign));
    pthread_t t;
    pthread_create(&t, NULL, c_try_foreign, NULL);
    pthread_join(t, NULL);
    g_main_context_release(c_foreign);
    g_main_context_unref(c_foreign);
    (void)c_acquire;

    close(c_pipe[0]);
    close(c_pipe[1]);
    g_main_context_unref(c_ctx);
    return NULL;
}

static void on_thread(void *(*fn)(void *))
{
    pthread_t t;
    pthread_create(&t, NULL, fn, NULL);
    pthread_join(t, NULL);
}

int main(void)
{
    alarm(getenv("RL_UNDER_VALGRIND") ? 250 : 60);
    RLSetErrorHandler(record, NULL);
    on_thread(scenario_a);
    scenario_b(0);
    scenario_b(1);
    on_thread(scenario_c);
    if (harness_failures) fprintf(stderr, "%d check(s) failed\n", harness_failures);
    return harness_failures;
}
