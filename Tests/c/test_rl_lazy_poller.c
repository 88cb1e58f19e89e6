/*
 * test_rl_lazy_poller — a loop makes its descriptors at its first run
 * (runloop-only: CF makes its wake-up port with the loop)
 *
 * A thread that only asks for its loop holds no descriptor: the loop's
 * wait set (an epoll set, its wake-up eventfd and timerfd) is made by the
 * loop's first run, or by the first call that needs a descriptor
 * (RLRunLoopGetPollDescriptor), from whichever thread (Loop.pollerOnce).
 *   A. RLRunLoopGetCurrent opens no descriptor; waking, stopping and reading
 *      the counters of that loop from another thread is quiet (no error);
 *      its first run opens three, and its thread's exit closes them.
 *   B. the first run races a wake-up: a thread adds a source to its fresh
 *      loop and runs it for 5 s while another thread signals the source
 *      and wakes the loop at a random moment around the run's start; every
 *      round's run returns HandledSource at once (a waker that finds the
 *      loop's wake-up state changed finds its poller made: no lost wake-up).
 *   C. two threads ask at once for the poll descriptor of a loop that never
 *      ran: both get the same one, the loser's wait set is closed (no
 *      descriptor left behind), and the loop then runs on it.
 *   D. a descriptor source added from another thread before the first run
 *      is watched by that run.
 */
#include "harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_lazy_poller tests runloop-only behaviour"
#endif

static atomic_int g_errors;
static void count_error(RLErrorCode code, const char *function, const char *message, void *info)
{
    fprintf(stderr, "  error %d in %s: %s\n", (int)code, function, message);
    atomic_fetch_add(&g_errors, 1);
}

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1;  /* the directory's own descriptor */
}

static const RLRunLoopMode g_mode = MODE("lazy");
static void nothing(void *info) {}
static void fired(RLRunLoopTimerRef t, void *info) { (*(int *)info)++; }

/* Runs the calling thread's loop, `rl`, until a one-shot timer 10 ms away
 * has fired (counted in *count); the run's result. */
static RLRunLoopRunResult run_one_timer(RLRunLoopRef rl, int *count)
{
    RLRunLoopTimerRef t = new_timer(now() + 0.01, 0, fired, count);
    RLRunLoopAddTimer(rl, t, g_mode);
    RLRunLoopRunResult result = RLRunLoopRunInMode(g_mode, 5, false);
    RLRelease(t);
    return result;
}

/* ---- A ------------------------------------------------------------------ */

static RLRunLoopRef g_a_loop;
static int g_a_before, g_a_gotten, g_a_ran, g_a_fired;
static RLRunLoopRunResult g_a_result;
static gate_t g_a_gotten_gate = GATE_INIT, g_a_poked = GATE_INIT;

static void *a_thread(void *arg)
{
    g_a_before = open_fds();
    g_a_loop = RLRunLoopGetCurrent();
    g_a_gotten = open_fds();
    gate_post(&g_a_gotten_gate);
    gate_wait(&g_a_poked);
    g_a_result = run_one_timer(g_a_loop, &g_a_fired);
    g_a_ran = open_fds();
    return NULL;
}

static void scenario_a(void)
{
    int base = open_fds();
    pthread_t th = start_thread(a_thread, NULL);
    gate_wait(&g_a_gotten_gate);
    TRACE("A. getting a thread's loop opens %d descriptors", g_a_gotten - g_a_before);
    int errors = atomic_load(&g_errors);
    RLRunLoopWakeUp(g_a_loop);
    RLRunLoopStop(g_a_loop);
    RLRunLoopStatistics stats;
    memset(&stats, 0, sizeof stats);
    stats.size = sizeof stats;
    RLRunLoopGetStatistics(g_a_loop, &stats);
    TRACE("A. woken, stopped and read before its first run: %d errors, %llu passes, waiting %s",
          atomic_load(&g_errors) - errors, (unsigned long long)stats.passes, yes_no(RLRunLoopIsWaiting(g_a_loop)));
    gate_post(&g_a_poked);
    pthread_join(th, NULL);
    TRACE("A. its first run: %s, the timer fired %d time(s), %d descriptors more", result_name(g_a_result),
          g_a_fired, g_a_ran - g_a_before);
    TRACE("A. after its thread exited: %d descriptors more than before", open_fds() - base);
}

/* ---- B ------------------------------------------------------------------ */

static RLRunLoopRef g_b_loop;
static RLRunLoopSourceRef g_b_src;
static gate_t g_b_ready = GATE_INIT;
static RLRunLoopRunResult g_b_result;

static void *b_thread(void *arg)
{
    /* Retained: the signal below may end the run, and the thread exit,
     * before the wake-up that follows it is made. */
    g_b_loop = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    g_b_src = new_source(0, NULL, nothing);
    RLRunLoopAddSource(g_b_loop, g_b_src, g_mode);
    gate_post(&g_b_ready);
    g_b_result = RLRunLoopRunInMode(g_mode, 5, true);
    RLRunLoopSourceInvalidate(g_b_src);
    RLRelease(g_b_src);
    return NULL;
}

static void scenario_b(unsigned rounds)
{
    unsigned handled = 0;
    uint64_t r = 88172645463325252u;
    double slowest = 0;
    for (unsigned i = 0; i < rounds; i++) {
        pthread_t th = start_thread(b_thread, NULL);
        gate_wait(&g_b_ready);
        r ^= r << 13; r ^= r >> 7; r ^= r << 17;
        for (volatile unsigned spin = (unsigned)(r % 20000); spin > 0; spin--) {}
        double t0 = now();
        RLRunLoopSourceSignal(g_b_src);
        RLRunLoopWakeUp(g_b_loop);
        pthread_join(th, NULL);
        RLRelease(g_b_loop);
        if (now() - t0 > slowest) slowest = now() - t0;
        if (g_b_result == kRLRunLoopRunHandledSource) handled++;
    }
    TRACE("B. rounds of a first run racing a signal and a wake-up: %s returned HandledSource",
          handled == rounds ? "all" : "not all");
    CHECK(slowest < 2.5);
    fprintf(stderr, "  B: %u/%u handled, slowest round %.3f s\n", handled, rounds, slowest);
}

/* ---- C ------------------------------------------------------------------ */

static RLRunLoopRef g_c_loop;
static gate_t g_c_ready = GATE_INIT, g_c_go = GATE_INIT;
static pthread_barrier_t g_c_barrier;
static int g_c_fd[2];
static int g_c_fired;
static RLRunLoopRunResult g_c_result;

static void *c_asker(void *arg)
{
    pthread_barrier_wait(&g_c_barrier);
    *(int *)arg = RLRunLoopGetPollDescriptor(g_c_loop);
    return NULL;
}

static void *c_thread(void *arg)
{
    g_c_loop = RLRunLoopGetCurrent();
    gate_post(&g_c_ready);
    gate_wait(&g_c_go);
    g_c_result = run_one_timer(g_c_loop, &g_c_fired);
    return NULL;
}

static void scenario_c(unsigned rounds)
{
    int base = open_fds(), same = 0, valid = 0, ran = 0;
    for (unsigned i = 0; i < rounds; i++) {
        g_c_fired = 0;
        pthread_t th = start_thread(c_thread, NULL);
        gate_wait(&g_c_ready);
        pthread_barrier_init(&g_c_barrier, NULL, 2);
        pthread_t a = start_thread(c_asker, &g_c_fd[0]), b = start_thread(c_asker, &g_c_fd[1]);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        pthread_barrier_destroy(&g_c_barrier);
        same += g_c_fd[0] == g_c_fd[1];
        valid += g_c_fd[0] >= 0;
        gate_post(&g_c_go);
        pthread_join(th, NULL);
        ran += g_c_result == kRLRunLoopRunFinished && g_c_fired == 1;
    }
    TRACE("C. two threads making a fresh loop's poll descriptor: the same one %s, valid %s; the loop then ran %s",
          same == (int)rounds ? "every time" : "not always", valid == (int)rounds ? "every time" : "not always",
          ran == (int)rounds ? "every time" : "not always");
    TRACE("C. afterwards: %d descriptors more than before", open_fds() - base);
}

/* ---- D ------------------------------------------------------------------ */

static RLRunLoopRef g_d_loop;
static gate_t g_d_ready = GATE_INIT, g_d_added = GATE_INIT;
static int g_d_pipe[2], g_d_read;
static RLRunLoopRunResult g_d_result;

static int d_port(void *info) { return g_d_pipe[0]; }
static void d_perform(void *info)
{
    char c;
    if (read(g_d_pipe[0], &c, 1) == 1) g_d_read++;
}

static void *d_thread(void *arg)
{
    g_d_loop = RLRunLoopGetCurrent();
    gate_post(&g_d_ready);
    gate_wait(&g_d_added);
    g_d_result = RLRunLoopRunInMode(g_mode, 5, true);
    return NULL;
}

static void scenario_d(void)
{
    if (pipe2(g_d_pipe, O_CLOEXEC | O_NONBLOCK) != 0) { perror("pipe2"); exit(2); }
    pthread_t th = start_thread(d_thread, NULL);
    gate_wait(&g_d_ready);
    RLRunLoopSourceRef src = new_fd_source(0, NULL, d_port, d_perform);
    RLRunLoopAddSource(g_d_loop, src, g_mode);
    if (write(g_d_pipe[1], "x", 1) != 1) { perror("write"); exit(2); }
    gate_post(&g_d_added);
    pthread_join(th, NULL);
    TRACE("D. a descriptor source added before the first run: %s, read %d byte(s)", result_name(g_d_result), g_d_read);
    RLRunLoopSourceInvalidate(src);
    RLRelease(src);
    close(g_d_pipe[0]);
    close(g_d_pipe[1]);
}

int main(void)
{
    RLSetErrorHandler(count_error, NULL);
    int valgrind = getenv("RL_UNDER_VALGRIND") != NULL;
    scenario_a();
    scenario_b(valgrind ? 50 : 2000);
    scenario_c(valgrind ? 20 : 300);
    scenario_d();
    TRACE("errors reported: %d", atomic_load(&g_errors));
    return trace_check("rl_lazy_poller") | harness_failures;
}
