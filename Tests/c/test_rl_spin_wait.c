/*
 * test_rl_spin_wait — spin-then-sleep waiting (runloop-only; see
 * Sources/RunLoopCore/Wait/SpinBeforeSleep.swift and docs/guide.md, "Waiting: spin, then sleep"):
 *   - a cross-thread ping-pong (signal + wake-up each way) delivers every
 *     hop, with spinning on (the default), off (RUNLOOP_SPIN_US=0) and
 *     pinned to one CPU (taskset; no spinning there): the same program is
 *     registered three times against one trace;
 *   - a version-1 source's descriptor is noticed right after that burst of
 *     quick wake-ups (when the loop would spin);
 *   - then an idle wait costs (almost) no CPU: a loop never spins for long
 *     when nothing wakes it;
 *   - RLRunLoopIsWaiting is true while a loop waits, whether it spins or
 *     sleeps, and RLRunLoopStop (a stop plus a wake-up) then ends the wait.
 */
#include "harness.h"

#include <stdatomic.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_spin_wait tests runloop-only behaviour"
#endif

enum { HOPS = 2000 };

struct side {
    RLRunLoopRef rl;
    RLRunLoopSourceRef src;
    struct side *peer;
    long received;
};

static struct side g_a, g_b;
static atomic_int g_done;
static gate_t g_b_ready = GATE_INIT;

static pthread_t spawn(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    if (pthread_create(&t, NULL, fn, arg) != 0) { perror("pthread_create"); exit(2); }
    return t;
}

static void on_hop(void *info)
{
    struct side *me = info;
    me->received++;
    if (me == &g_a && me->received == HOPS) {
        atomic_store(&g_done, 1);
        RLRunLoopStop(me->rl);
        RLRunLoopStop(me->peer->rl);
        return;
    }
    RLRunLoopSourceSignal(me->peer->src);
    RLRunLoopWakeUp(me->peer->rl);
}

static RLRunLoopSourceRef make_source(struct side *s)
{
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = s;
    ctx.perform = on_hop;
    return RLRunLoopSourceCreate(NULL, 0, &ctx);
}

static void *b_thread(void *arg)
{
    (void)arg;
    g_b.rl = RLRunLoopGetCurrent();
    g_b.src = make_source(&g_b);
    RLRunLoopAddSource(g_b.rl, g_b.src, kRLRunLoopDefaultMode);
    gate_post(&g_b_ready);
    while (!atomic_load(&g_done)) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5, false);
    RLRunLoopSourceInvalidate(g_b.src);
    RLRelease(g_b.src);
    return NULL;
}

static double thread_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* --- IsWaiting and a stop from another thread --------------------------- */
static atomic_int g_waker_done;

static void *waker(void *arg)
{
    RLRunLoopRef rl = arg;
    /* wait (bounded) until the loop reports it is waiting, then wake it */
    int seen = 0;
    for (int i = 0; i < 20000 && !seen; i++) {
        seen = RLRunLoopIsWaiting(rl);
        if (!seen) usleep(100);
    }
    TRACE("waker: loop reported waiting: %s", yes_no(seen));
    RLRunLoopStop(rl);
    atomic_store(&g_waker_done, 1);
    return NULL;
}

static int pipe_port(void *info) { return (int)(intptr_t)info; }
static void on_pipe(void *info)
{
    char c;
    if (read((int)(intptr_t)info, &c, 1) != 1) TRACE("pipe: read failed");
}

int main(void)
{
    const char *spin = getenv("RUNLOOP_SPIN_US");
    (void)spin; /* the trace is the same with spinning on or off */

    g_a.rl = RLRunLoopGetCurrent();
    g_a.src = make_source(&g_a);
    g_a.peer = &g_b;
    g_b.peer = &g_a;
    RLRunLoopAddSource(g_a.rl, g_a.src, kRLRunLoopDefaultMode);
    pthread_t b = spawn(b_thread, NULL);
    gate_wait(&g_b_ready);

    /* 1. ping-pong */
    RLRunLoopSourceSignal(g_b.src);
    RLRunLoopWakeUp(g_b.rl);
    while (!atomic_load(&g_done)) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5, false);
    pthread_join(b, NULL);
    TRACE("ping-pong: a received %ld, b received %ld", g_a.received, g_b.received);

    /* 2. a descriptor right after the burst of quick wake-ups (the loop
     *    would spin now): noticed, the run returns after handling it */
    int fds[2];
    CHECK(pipe(fds) == 0);
    RLRunLoopSourceContext1 ctx1;
    memset(&ctx1, 0, sizeof ctx1);
    ctx1.version = 1;
    ctx1.info = (void *)(intptr_t)fds[0];
    ctx1.getPort = pipe_port;
    ctx1.perform = on_pipe;
    RLRunLoopSourceRef fd_src = RLRunLoopSourceCreate(NULL, 0, (RLRunLoopSourceContext *)&ctx1);
    RLRunLoopAddSource(g_a.rl, fd_src, kRLRunLoopDefaultMode);
    CHECK(write(fds[1], "x", 1) == 1);
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5, true);
    TRACE("descriptor: result %d (handled source: %s)", (int)r, yes_no(r == kRLRunLoopRunHandledSource));

    /* 3. then an idle 300 ms wait is (almost) free */
    double cpu0 = thread_cpu_ms();
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.3, false);
    double cpu = thread_cpu_ms() - cpu0;
    TRACE("idle wait: result %d, CPU under 30 ms: %s", (int)r, yes_no(cpu < 30.0));
    if (cpu >= 30.0) fprintf(stderr, "idle wait used %.1f ms of CPU\n", cpu);

    /* 4. IsWaiting while waiting; a stop ends the wait */
    pthread_t w = spawn(waker, g_a.rl);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10, false);
    pthread_join(w, NULL);
    TRACE("stopped: result %d (stopped: %s), waker done: %s", (int)r,
          yes_no(r == kRLRunLoopRunStopped), yes_no(atomic_load(&g_waker_done)));

    RLRunLoopSourceInvalidate(fd_src);
    RLRelease(fd_src);
    close(fds[0]);
    close(fds[1]);
    RLRunLoopSourceInvalidate(g_a.src);
    RLRelease(g_a.src);
    return trace_check("rl_spin_wait") | harness_failures;
}
