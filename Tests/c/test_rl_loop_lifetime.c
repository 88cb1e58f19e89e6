/*
 * test_rl_loop_lifetime — a loop's life and its descriptors:
 *   A. an extra RLRelease of the running current loop, from inside a
 *      callout (CF's classic CFRelease(CFRunLoopGetCurrent())), is refused
 *      as kRLErrorOverRelease: the loop keeps its reference and its
 *      descriptors, the run returns on time;
 *   B. 2,000 threads each get a loop and exit while the main thread
 *      retains every loop: the process's descriptor count stays bounded
 *      (teardown closes a loop's three descriptors);
 *   C. calls on such a dead, retained loop are harmless (WakeUp, Stop,
 *      IsWaiting, AddTimer -> kRLErrorLoopGone, PerformFunction ->
 *      kRLErrorLoopGone), wake-ups racing the teardown included, and the
 *      final releases close nothing twice (descriptors opened after the
 *      teardown stay open).
 * No trace file: the checks are the test.
 */
#include "harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

static int fd_count(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d) return -1;
    while (readdir(d)) n++;
    closedir(d);
    return n;
}

static void quiet(RLErrorCode code, const char *fn, const char *msg, void *info) {}
static void noop_perform(void *info) {}
static void noop_fn(void *info) {}
static void noop_timer(RLRunLoopTimerRef t, void *info) {}

/* ---- A ------------------------------------------------------------------ */

static RLErrorCode a_error;
static int a_fds_before, a_fds_after, a_count_after;
static RLRunLoopRef a_rl;

static void a_release_cb(RLRunLoopTimerRef t, void *info)
{
    a_fds_before = fd_count();
    RLClearLastError();
    RLRelease(RLRunLoopGetCurrent());  /* the misuse */
    a_error = RLGetLastError();
    a_count_after = (int)RLGetRetainCount(a_rl);
    int probe = open("/dev/null", O_RDONLY);
    a_fds_after = fd_count();  /* + the probe */
    close(probe);
}

static void *a_thread(void *arg)
{
    a_rl = RLRunLoopGetCurrent();
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, now() + 0.05, 0, 0, 0, a_release_cb, NULL);
    RLRunLoopAddTimer(a_rl, t, kRLRunLoopDefaultMode);
    RLRunLoopSourceRef idle = new_source(0, NULL, noop_perform);  /* keeps the mode non-empty */
    RLRunLoopAddSource(a_rl, idle, kRLRunLoopDefaultMode);
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.3, 0);
    TRACE("A: run: %s, release reported %d, count after %d", result_name(r), (int)a_error, a_count_after);
    CHECK(r == kRLRunLoopRunTimedOut);
    CHECK(a_error == kRLErrorOverRelease);
    CHECK(a_count_after == 1);
    CHECK(a_fds_after == a_fds_before + 1);
    /* The loop still works. */
    RLRunLoopPerformFunction(a_rl, kRLRunLoopDefaultMode, noop_fn, NULL);
    CHECK(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 1) != kRLRunLoopRunFinished);
    RLRunLoopSourceInvalidate(idle);
    RLRelease(idle);
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    return NULL;
}

/* Also the main loop, from the main thread: the registry's reference. */
static void scenario_a(void)
{
    pthread_t th = start_thread(a_thread, NULL);
    pthread_join(th, NULL);
    RLRunLoopRef m = RLRunLoopGetMain();
    RLClearLastError();
    RLRelease(m);
    CHECK(RLGetLastError() == kRLErrorOverRelease);
    CHECK(RLGetRetainCount(m) == 1);
}

/* ---- B and C ------------------------------------------------------------ */

static RLRunLoopRef *b_loops;

static void *b_thread(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    b_loops[(intptr_t)arg] = (RLRunLoopRef)RLRetain(rl);
    return NULL;
}

/* The sleeper of the current round (retained), NULL to end the waker. */
static RLRunLoopRef c_target;
static gate_t c_target_set = GATE_INIT, c_burst_done = GATE_INIT;
static atomic_int c_round_over;   /* the round's sleeper was joined */
static int c_max_wakes;           /* per round */

/* Wakes each round's sleeper from its run through its teardown until it
 * has been joined, yielding between calls (no spin: under valgrind one
 * thread runs at a time, and a spinning waker starved the sleeper), at
 * most c_max_wakes times; then reports the round done. */
static void *c_waker(void *arg)
{
    for (;;) {
        gate_wait(&c_target_set);
        RLRunLoopRef rl = c_target;
        if (!rl) return NULL;
        for (int i = 0; i < c_max_wakes && !atomic_load(&c_round_over); i++) {
            RLRunLoopWakeUp(rl);
            sched_yield();
        }
        gate_post(&c_burst_done);
    }
}

static void *c_sleeper(void *arg)
{
    /* Runs (asleep most of the time) while being woken, then exits. */
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceRef idle = new_source(0, NULL, noop_perform);
    RLRunLoopAddSource(rl, idle, kRLRunLoopDefaultMode);
    c_target = (RLRunLoopRef)RLRetain(rl);
    gate_post(&c_target_set);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.002, 0);
    RLRunLoopSourceInvalidate(idle);
    RLRelease(idle);
    return NULL;
}

static void scenario_bc(void)
{
    int n = getenv("RL_UNDER_VALGRIND") ? 200 : 2000;
    b_loops = calloc((size_t)n, sizeof *b_loops);
    int before = fd_count();
    for (int i = 0; i < n; i++) {
        pthread_t th = start_thread(b_thread, (void *)(intptr_t)i);
        pthread_join(th, NULL);
    }
    int after = fd_count();
    TRACE("B: %d dead loops retained: descriptors %d -> %d", n, before, after);
    CHECK(after - before <= 8);

    /* C: calls on a dead loop. */
    RLRunLoopRef dead = b_loops[0];
    RLClearLastError();
    RLRunLoopWakeUp(dead);
    RLRunLoopStop(dead);
    CHECK(!RLRunLoopIsWaiting(dead));
    CHECK(RLGetLastError() == kRLErrorNone);
    RLRunLoopTimerRef t = new_timer(now() + 1, 0, noop_timer, NULL);
    RLRunLoopAddTimer(dead, t, kRLRunLoopDefaultMode);
    CHECK(RLGetLastError() == kRLErrorLoopGone);
    RLClearLastError();
    RLRunLoopPerformFunction(dead, kRLRunLoopDefaultMode, noop_fn, NULL);
    CHECK(RLGetLastError() == kRLErrorLoopGone);
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);

    /* Wake-ups racing the teardown of loops asleep in their runs. */
    pthread_t waker = start_thread(c_waker, NULL);
    int rounds = getenv("RL_UNDER_VALGRIND") ? 20 : 300;
    c_max_wakes = getenv("RL_UNDER_VALGRIND") ? 200 : 20000;
    RLRunLoopRef *sleepers = calloc((size_t)rounds, sizeof *sleepers);
    for (int i = 0; i < rounds; i++) {
        atomic_store(&c_round_over, 0);
        pthread_t th = start_thread(c_sleeper, NULL);
        pthread_join(th, NULL);
        atomic_store(&c_round_over, 1);
        gate_wait(&c_burst_done);
        sleepers[i] = c_target;
    }
    c_target = NULL;
    gate_post(&c_target_set);
    pthread_join(waker, NULL);

    /* Descriptors opened now reuse the closed numbers; the last releases
     * must not close them. */
    int pipes[2];
    CHECK(pipe(pipes) == 0);
    for (int i = 0; i < n; i++) RLRelease(b_loops[i]);
    for (int i = 0; i < rounds; i++) RLRelease(sleepers[i]);
    CHECK(fcntl(pipes[0], F_GETFD) != -1 && fcntl(pipes[1], F_GETFD) != -1);
    /* Nothing was written to the reused numbers either. */
    fcntl(pipes[0], F_SETFL, O_NONBLOCK);
    char byte;
    CHECK(read(pipes[0], &byte, 1) == -1);
    close(pipes[0]);
    close(pipes[1]);
    int final = fd_count();
    TRACE("C: after the releases: descriptors %d", final);
    CHECK(final - before <= 8);
    free(b_loops);
    free(sleepers);
}

int main(void)
{
    alarm(getenv("RL_UNDER_VALGRIND") ? 250 : 60);  /* a hang fails */
    RLSetErrorHandler(quiet, NULL);
    scenario_a();
    scenario_bc();
    return harness_failures;
}
