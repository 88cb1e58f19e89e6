/*
 * test_libuv_adapter — adapters/libuv (a runloop driven by a libuv loop):
 *   A. cross-thread ping-pong (performed functions + wake-ups), a
 *      repeating runloop timer beside a libuv timer, a source signalled
 *      from another thread, observers (Entry/Exit, no BeforeWaiting), the
 *      poll descriptor closed by mistake (the adapter moves to the new
 *      one, the work is not lost), rl_uv_stop from a runloop callout
 *      (re-entry: the handles close, uv_run ends, nothing leaks);
 *   B. the libuv loop run on another thread than the runloop's: the
 *      adapter stops watching (kRLErrorWrongThread), nothing run;
 *   C. the runloop's thread exited: kRLErrorLoopGone, the adapter stops
 *      watching;
 *   D. bad input to rl_uv_start: NULL, another thread's loop,
 *      kRLRunLoopCommonModes.
 */
#define _GNU_SOURCE 1
#include "rl_uv.h"

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
static rl_uv *a_adapter;
static sem_t a_ack;
static int a_pings, a_sources, a_timer_fires, a_uv_fires, a_stopped;
static char a_log[64];

static void a_ping(void *info) { a_pings++; sem_post(&a_ack); }

static void *a_peer(void *arg)
{
    for (int i = 0; i < 200; i++) {
        RLRunLoopPerformFunction(a_rl, DEF, a_ping, NULL);
        RLRunLoopWakeUp(a_rl);
        sem_wait(&a_ack);
    }
    RLRunLoopSourceSignalAndWakeUp(arg);
    return NULL;
}

static void a_perform(void *info) { a_sources++; }
static void a_timer(RLRunLoopTimerRef t, void *info) { a_timer_fires++; }
static void a_uv_timer(uv_timer_t *t) { a_uv_fires++; }
static void a_stop(void *info)
{
    rl_uv_stop(a_adapter);  /* from a runloop callout, inside the adapter's run */
    a_stopped = 1;
}

static void a_observe(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    if (strlen(a_log) < 8) strcat(a_log, a == kRLRunLoopEntry ? "E" : a == kRLRunLoopExit ? "X" : a == kRLRunLoopBeforeWaiting ? "W" : "");
}

static void *scenario_a(void *arg)
{
    uv_loop_t uv;
    uv_loop_init(&uv);
    a_rl = RLRunLoopGetCurrent();
    a_adapter = rl_uv_start(&uv, a_rl, DEF);
    CHECK(a_adapter != NULL);

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
    while ((a_pings < 200 || a_sources < 1) && mono() - start < 20) uv_run(&uv, UV_RUN_ONCE);
    pthread_join(peer, NULL);
    CHECK(a_pings == 200);
    CHECK(a_sources == 1);
    CHECK(strncmp(a_log, "EXEX", 4) == 0);
    RLRunLoopObserverInvalidate(o);
    RLRelease(o);

    /* timers, runloop's and libuv's side by side */
    uv_timer_t ut;
    uv_timer_init(&uv, &ut);
    uv_timer_start(&ut, a_uv_timer, 7, 7);
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.01, 0.01, 0, 0, a_timer, NULL);
    RLRunLoopAddTimer(a_rl, t, DEF);
    start = mono();
    while ((a_timer_fires < 5 || a_uv_fires < 5) && mono() - start < 10) uv_run(&uv, UV_RUN_ONCE);
    CHECK(a_timer_fires >= 5 && a_uv_fires >= 5);
    CHECK(mono() - start >= 0.04);
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    uv_timer_stop(&ut);
    uv_close((uv_handle_t *)&ut, NULL);

    /* the poll descriptor closed by mistake (a heartbeat keeps UV_RUN_ONCE
     * from blocking once the work is done) */
    uv_timer_t beat;
    uv_timer_init(&uv, &beat);
    uv_timer_start(&beat, a_uv_timer, 10, 10);
    close(RLRunLoopGetPollDescriptor(a_rl));
    last_code = 0;
    RLRunLoopSourceSignalAndWakeUp(s);
    uv_run(&uv, UV_RUN_NOWAIT);  /* an iteration: its prepare moves to the new descriptor */
    start = mono();
    while (a_sources < 2 && mono() - start < 5) uv_run(&uv, UV_RUN_ONCE);
    CHECK(a_sources == 2);
    CHECK(last_code == kRLErrorInvalidArgument);
    RLRunLoopSourceSignalAndWakeUp(s);
    start = mono();
    while (a_sources < 3 && mono() - start < 5) uv_run(&uv, UV_RUN_ONCE);
    CHECK(a_sources == 3);
    uv_close((uv_handle_t *)&beat, NULL);

    /* stopped from a callout: uv_run(DEFAULT) ends once the handles close */
    RLRunLoopPerformFunction(a_rl, DEF, a_stop, NULL);
    RLRunLoopWakeUp(a_rl);
    uv_run(&uv, UV_RUN_DEFAULT);
    CHECK(a_stopped);
    CHECK(uv_loop_close(&uv) == 0);

    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    return NULL;
}

/* ---- B, C ---------------------------------------------------------------- */

static uv_loop_t bc_uv;
static rl_uv *bc_adapter;
static int bc_ran;
static sem_t bc_started, bc_done;
static void bc_fn(void *info) { bc_ran++; }

static void *bc_owner(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    bc_adapter = rl_uv_start(&bc_uv, rl, DEF);
    RLRunLoopPerformFunction(rl, DEF, bc_fn, NULL);
    RLRunLoopWakeUp(rl);
    if (arg) return NULL;  /* C: exits */
    sem_post(&bc_started);
    sem_wait(&bc_done);
    RLRunLoopRunInMode(DEF, 0, false);  /* its own thread runs the work */
    return NULL;
}

static void scenario_bc(int exits)
{
    uv_loop_init(&bc_uv);
    sem_init(&bc_started, 0, 0);
    sem_init(&bc_done, 0, 0);
    bc_ran = 0;
    pthread_t t;
    pthread_create(&t, NULL, bc_owner, exits ? (void *)1 : NULL);
    if (exits) pthread_join(t, NULL); else sem_wait(&bc_started);
    CHECK(bc_adapter != NULL);
    last_code = 0;
    for (int i = 0; i < 5; i++) uv_run(&bc_uv, UV_RUN_NOWAIT);
    CHECK(last_code == (exits ? kRLErrorLoopGone : kRLErrorWrongThread));
    CHECK(bc_ran == 0);
    unsigned long runs = rl_uv_runs(bc_adapter);
    for (int i = 0; i < 5; i++) uv_run(&bc_uv, UV_RUN_NOWAIT);
    CHECK(rl_uv_runs(bc_adapter) == runs);  /* stopped watching: no busy loop */
    rl_uv_stop(bc_adapter);
    uv_run(&bc_uv, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&bc_uv) == 0);
    if (!exits) {
        sem_post(&bc_done);
        pthread_join(t, NULL);
        CHECK(bc_ran == 1);
    }
}

static void *scenario_d(void *arg)
{
    uv_loop_t uv;
    uv_loop_init(&uv);
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    CHECK(rl_uv_start(NULL, rl, DEF) == NULL);
    CHECK(rl_uv_start(&uv, NULL, DEF) == NULL);
    CHECK(rl_uv_start(&uv, rl, NULL) == NULL);
    CHECK(rl_uv_start(&uv, RLRunLoopGetMain(), DEF) == NULL);  /* not this thread's */
    CHECK(rl_uv_start(&uv, rl, kRLRunLoopCommonModes) == NULL);  /* not a mode a loop runs in */
    CHECK(uv_loop_close(&uv) == 0);
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
    scenario_bc(0);
    scenario_bc(1);
    on_thread(scenario_d);
    if (harness_failures) fprintf(stderr, "%d check(s) failed\n", harness_failures);
    return harness_failures;
}
