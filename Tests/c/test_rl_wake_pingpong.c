/*
 * test_rl_wake_pingpong — no wake-up is ever lost.
 *
 * Two loops, each asleep in RLRunLoopRunInMode on its own thread, bounce
 * one token: whoever holds it hands it to the other loop and goes back to
 * sleep.  There is never more than one item in flight, so a lost wake-up
 * shows as a stall: the token is queued (a source pending, or a block
 * queued) while both loops sleep.  A watchdog counts stalls (no bounce for
 * `STALL_MS`), rescues each with an extra RLRunLoopWakeUp of both loops so
 * the run goes on, and the test fails if there was any.
 *
 * Every way a producer can hand work over is attacked, each for a bounded
 * time (RL_PINGPONG_MS per path, default 400; fewer bounces under
 * valgrind):
 *
 *   pair        RLRunLoopSourceSignal + RLRunLoopWakeUp (CF's idiom)
 *   one call    RLRunLoopSourceSignalAndWakeUp
 *   perform     RLRunLoopPerformFunction + RLRunLoopWakeUp
 *
 * each through the inline fast paths of <runloop/fastpath.h> (included
 * below: opt-in) and through the library's functions (called through
 * pointers, which bypasses the macros).  The
 * program then runs itself again with RUNLOOP_SPIN_US=0, so every wait
 * sleeps in epoll_wait instead of spinning first: the two configurations
 * put the race windows in different places.
 *
 * Before the fix (a release store of the queued item, then a plain load of
 * the loop's wake-up state, with no full fence between) this stalled in
 * most runs of a few seconds; see WakeState.swift, "The wake-up protocol".
 */
#include "harness.h"
#include <runloop/fastpath.h>

#include <errno.h>
#include <spawn.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define STALL_MS 250

typedef struct side {
    RLRunLoopRef loop;
    RLRunLoopSourceRef source;
    struct side *peer;
    pthread_t thread;
    gate_t ready;
} side_t;

enum path { PAIR, ONE_CALL, PERFORM, PATHS };
static const char *const path_names[PATHS] = { "pair", "one call", "perform + wake-up" };

static side_t g_sides[2];
static atomic_int g_path;
static atomic_int g_inline;          /* through the header's macros? */
static atomic_uint_fast64_t g_bounces;
static atomic_int g_quit;            /* the loops' threads leave */
static atomic_int g_hold;            /* stop bouncing: the token rests */
static const RLRunLoopMode g_mode = MODE("pingpong");

/* Library functions through pointers: no inline fast path. */
static void (*volatile fn_signal)(RLRunLoopSourceRef) = RLRunLoopSourceSignal;
static void (*volatile fn_wake)(RLRunLoopRef) = RLRunLoopWakeUp;
static void (*volatile fn_signal_and_wake)(RLRunLoopSourceRef) = RLRunLoopSourceSignalAndWakeUp;

static void receive(side_t *self);

static void on_block(void *info) { receive((side_t *)info); }
static void on_perform(void *info) { receive((side_t *)info); }

/* Hands the token to `to` by the path under test. */
static void send(side_t *to)
{
    switch (g_path) {
    case PAIR:
        if (g_inline) {
            RLRunLoopSourceSignal(to->source);
            RLRunLoopWakeUp(to->loop);
        } else {
            fn_signal(to->source);
            fn_wake(to->loop);
        }
        break;
    case ONE_CALL:
        if (g_inline) RLRunLoopSourceSignalAndWakeUp(to->source);
        else fn_signal_and_wake(to->source);
        break;
    case PERFORM:
        RLRunLoopPerformFunction(to->loop, g_mode, on_block, to);
        if (g_inline) RLRunLoopWakeUp(to->loop);
        else fn_wake(to->loop);
        break;
    }
}

/* The token arrived at `self` (a source perform or a block). */
static void receive(side_t *self)
{
    atomic_fetch_add_explicit(&g_bounces, 1, memory_order_relaxed);
    if (!atomic_load(&g_hold)) send(self->peer);
}

static void *loop_thread(void *arg)
{
    side_t *self = (side_t *)arg;
    self->loop = RLRunLoopGetCurrent();
    RLRunLoopSourceContext ctx = { 0 };
    ctx.info = self;
    ctx.perform = on_perform;
    self->source = RLRunLoopSourceCreate(NULL, 0, &ctx);
    RLRunLoopAddSource(self->loop, self->source, g_mode);
    gate_post(&self->ready);
    while (!atomic_load(&g_quit)) RLRunLoopRunInMode(g_mode, 10.0, 0);
    RLRunLoopRemoveSource(self->loop, self->source, g_mode);
    return NULL;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Bounces the token for `ms` (or `max_bounces`); returns the stalls. */
static int bounce(int path, int inline_paths, uint64_t ms, uint64_t max_bounces, uint64_t *bounces)
{
    g_path = path;
    g_inline = inline_paths;
    atomic_store(&g_bounces, 0);
    atomic_store(&g_hold, 0);
    send(&g_sides[0]);
    int stalls = 0;
    uint64_t start = now_ms(), last_change = start, last = 0;
    for (;;) {
        usleep(2000);
        uint64_t n = atomic_load(&g_bounces), t = now_ms();
        if (n >= max_bounces || t - start >= ms) break;
        if (n != last) {
            last = n;
            last_change = t;
        } else if (t - last_change >= STALL_MS) {
            int waiting0 = RLRunLoopIsWaiting(g_sides[0].loop), waiting1 = RLRunLoopIsWaiting(g_sides[1].loop);
            fprintf(stderr, "  stall after %llu bounces (%s, %s): loops waiting %d %d, sources pending %d %d\n",
                    (unsigned long long)n, path_names[path], inline_paths ? "inline" : "library",
                    waiting0, waiting1, RLRunLoopSourceIsSignalled(g_sides[0].source),
                    RLRunLoopSourceIsSignalled(g_sides[1].source));
            stalls++;
            (RLRunLoopWakeUp)(g_sides[0].loop);  /* rescue: the library function */
            (RLRunLoopWakeUp)(g_sides[1].loop);
            last_change = now_ms();
        }
    }
    /* Let the token come to rest: one more receive at most sends nothing. */
    atomic_store(&g_hold, 1);
    uint64_t rest = now_ms();
    uint64_t seen = atomic_load(&g_bounces);
    while (now_ms() - rest < 50) {
        usleep(5000);
        uint64_t n = atomic_load(&g_bounces);
        if (n != seen) { seen = n; rest = now_ms(); }
    }
    *bounces = atomic_load(&g_bounces);
    return stalls;
}

/* Runs this program again with `name`=`value` in its environment; returns
 * its exit status (-1 if it could not run). */
static int run_self_with(const char *self, const char *name, const char *value)
{
    setenv(name, value, 1);
    setenv("RL_PINGPONG_CHILD", "1", 1);
    pid_t pid;
    char *argv[] = { (char *)self, NULL };
    if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0) return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    unsetenv(name);
    unsetenv("RL_PINGPONG_CHILD");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *spin = getenv("RUNLOOP_SPIN_US");
    const char *ms_text = getenv("RL_PINGPONG_MS");
    int under_valgrind = getenv("RL_UNDER_VALGRIND") != NULL;
    uint64_t ms = ms_text ? strtoull(ms_text, NULL, 10) : 400;
    uint64_t max_bounces = under_valgrind ? 2000 : UINT64_MAX;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("ping-pong, spin before sleeping: %s\n", spin ? spin : "default");

    for (int i = 0; i < 2; i++) {
        g_sides[i].peer = &g_sides[1 - i];
        g_sides[i].ready = (gate_t)GATE_INIT;
        pthread_create(&g_sides[i].thread, NULL, loop_thread, &g_sides[i]);
        gate_wait(&g_sides[i].ready);
    }

    int stalls = 0;
    for (int path = 0; path < PATHS; path++) {
        for (int in = 1; in >= 0; in--) {
            uint64_t n = 0;
            int s = bounce(path, in, ms, max_bounces, &n);
            printf("  %-18s %-7s %9llu bounces, %d stalls\n", path_names[path], in ? "inline" : "library",
                   (unsigned long long)n, s);
            CHECK(n > 0);
            stalls += s;
        }
    }
    CHECK(stalls == 0);

    atomic_store(&g_quit, 1);
    for (int i = 0; i < 2; i++) {
        RLRunLoopStop(g_sides[i].loop);
        pthread_join(g_sides[i].thread, NULL);
        RLRelease(g_sides[i].source);
    }

    if (!getenv("RL_PINGPONG_CHILD") && !under_valgrind) {
        int rc = run_self_with(argv[0], "RUNLOOP_SPIN_US", "0");
        CHECK(rc == 0);
    }
    printf("%s\n", harness_failures ? "FAIL" : "ok");
    return harness_failures ? 1 : 0;
}
