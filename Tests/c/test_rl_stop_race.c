/*
 * test_rl_stop_race — RLRunLoopStop from another thread is never lost,
 * whenever it lands, and a stop racing the loop thread's exit neither
 * crashes nor hangs.
 *
 * A stop marks the innermost run and wakes the loop.  The wake-up is
 * ignored while the loop is between its wake and the top of its next pass
 * (WakeState.swift, "The wake-up protocol"), so the pass that follows must
 * look at the stop before it sleeps (Iteration.swift, wakeUpIfStopped; the
 * argument is at Loop.stop).  Two moments put a stop in that window:
 *   - right after a run began (its frame is pushed, so the stop marks it)
 *     and before its first pass accepts wake-ups;
 *   - after a pass's last look at the stop (`outcome`) and before the next
 *     pass accepts wake-ups, while the loop is kept busy by wake-ups.
 * A lost stop leaves the run asleep for good (its mode has a source that is
 * never signalled): each round waits for the run to return with a watchdog
 * (1 s; 10 s under valgrind), reports a stop still unobserved then, and
 * stops the loop again to go on.
 *
 * Part 1: one loop thread runs rounds of RLRunLoopRunInMode; the stopper
 * waits until the run is in progress (RLRunLoopCopyCurrentMode), makes
 * 0-3 quick wake-ups (varying where the stop lands), and stops it.
 * Part 2: a thread per round runs its loop until stopped and exits; the
 * main thread stops it once the run is in progress, then stops and wakes
 * it again while the thread exits and tears the loop down, joins it
 * (watchdog), and stops the dead loop once more before releasing it.
 *
 *   test_rl_stop_race [rounds1 [rounds2]]   (default 20000 and 5000;
 *   under valgrind 3000 and 400)
 *
 * Before the fix (Iteration.swift, wakeUpIfStopped), on 2 CPUs under load:
 * part 1 lost 2-13 stops in 20,000 rounds, part 2 22-33 in 5,000; 86 in
 * 540,000 rounds of part 1 alone.  A part gives up after MAX_LOST.
 */
#include "harness.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

static const double WATCHDOG_S = 1.0, WATCHDOG_VALGRIND_S = 10.0;
enum { MAX_LOST = 5 };  /* a part gives up after so many lost stops */
static double watchdog_s;

/* A gate with a deadline: 1 if posted within `seconds`, 0 if not. */
static int gate_wait_for(gate_t *g, double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long ns = ts.tv_nsec + (long)((seconds - (double)(long)seconds) * 1e9);
    ts.tv_sec += (time_t)seconds + ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    int posted = 1;
    pthread_mutex_lock(&g->m);
    while (g->n == 0) {
        if (pthread_cond_timedwait(&g->c, &g->m, &ts) == ETIMEDOUT) {
            posted = g->n > 0;
            break;
        }
    }
    if (posted) g->n--;
    pthread_mutex_unlock(&g->m);
    return posted;
}

/* Whether `rl` is in a run (any thread; takes the loop's lock). */
static int is_running(RLRunLoopRef rl)
{
    RLRunLoopMode m = RLRunLoopCopyCurrentMode(rl);
    if (m) RLRelease(m);
    return m != NULL;
}

/* Waits until `rl` is in a run: it is about to start one.  Bounded: the
 * waiting thread yields, so under valgrind (one thread at a time) the
 * loop's thread gets on with it. */
static int wait_running(RLRunLoopRef rl)
{
    for (long i = 0; i < 10L * 1000 * 1000; i++) {
        if (is_running(rl)) return 1;
        if (i > 64) sched_yield();
    }
    return 0;
}

static void nothing(void *info) { (void)info; }

/* A version-0 source never signalled: a run in the default mode waits for
 * good unless stopped. */
static RLRunLoopSourceRef add_idle_source(RLRunLoopRef rl)
{
    RLRunLoopSourceContext ctx = {0};
    ctx.perform = nothing;
    RLRunLoopSourceRef s = RLRunLoopSourceCreate(NULL, 0, &ctx);
    RLRunLoopAddSource(rl, s, kRLRunLoopDefaultMode);
    return s;
}

/* ---- part 1: one loop, many runs, each stopped from another thread ---- */

static RLRunLoopRef p1_loop;
static gate_t p1_ready = GATE_INIT, p1_start = GATE_INIT, p1_returned = GATE_INIT;
static atomic_int p1_quit;
static atomic_int p1_not_stopped;  /* runs that returned something else */

static void *p1_loop_thread(void *arg)
{
    (void)arg;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    p1_loop = (RLRunLoopRef)RLRetain(rl);
    RLRunLoopSourceRef s = add_idle_source(rl);
    gate_post(&p1_ready);
    for (;;) {
        gate_wait(&p1_start);
        if (atomic_load(&p1_quit)) break;
        RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1e6, false);
        if (r != kRLRunLoopRunStopped) atomic_fetch_add(&p1_not_stopped, 1);
        gate_post(&p1_returned);
    }
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    return NULL;
}

static int part1(long rounds)
{
    pthread_t t = start_thread(p1_loop_thread, NULL);
    gate_wait(&p1_ready);
    RLRunLoopRef rl = p1_loop;
    uint64_t seed = 0x9E3779B97F4A7C15u;
    long lost = 0, first_lost = -1, never_ran = 0, lost_by_wakes[4] = {0};
    double began = now();
    for (long round = 0; round < rounds && lost < MAX_LOST; round++) {
        gate_post(&p1_start);
        if (!wait_running(rl)) { never_ran++; break; }
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        int wakes = (int)(seed & 3);  /* 0: the stop lands at the run's start */
        for (int i = 0; i < wakes; i++) RLRunLoopWakeUp(rl);
        RLRunLoopStop(rl);
        if (!gate_wait_for(&p1_returned, watchdog_s)) {
            if (lost++ == 0) first_lost = round;
            lost_by_wakes[wakes]++;
            fprintf(stderr, "part 1, round %ld (%d wake-ups first): the run still waits %.1f s "
                    "after RLRunLoopStop\n", round, wakes, watchdog_s);
            RLRunLoopStop(rl);  /* the loop sleeps now: this one is seen */
            gate_wait(&p1_returned);
        }
    }
    double took = now() - began;
    atomic_store(&p1_quit, 1);
    gate_post(&p1_start);
    pthread_join(t, NULL);
    RLRelease(rl);
    printf("part 1: %ld rounds in %.2f s (%.0f/s), %ld stops lost (first at round %ld; "
           "after 0/1/2/3 wake-ups: %ld/%ld/%ld/%ld)\n", rounds, took, (double)rounds / took, lost,
           first_lost, lost_by_wakes[0], lost_by_wakes[1], lost_by_wakes[2], lost_by_wakes[3]);
    CHECK(never_ran == 0);
    CHECK(lost == 0);
    CHECK(atomic_load(&p1_not_stopped) == 0);
    return lost;
}

/* ---- part 2: stop racing the loop thread's exit ---- */

typedef struct {
    gate_t ready;
    RLRunLoopRef loop;  /* retained for the main thread */
    RLRunLoopRunResult result;
} p2_round;

static void *p2_thread(void *arg)
{
    p2_round *r = arg;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    r->loop = (RLRunLoopRef)RLRetain(rl);
    RLRunLoopSourceRef s = add_idle_source(rl);
    RLRelease(s);  /* the mode keeps it until the thread's exit empties the loop */
    gate_post(&r->ready);
    r->result = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1e6, false);
    return NULL;  /* the loop is torn down as the thread exits */
}

/* pthread_join with a deadline (1: joined). */
static int join_for(pthread_t t, double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long ns = ts.tv_nsec + (long)((seconds - (double)(long)seconds) * 1e9);
    ts.tv_sec += (time_t)seconds + ns / 1000000000L;
    ts.tv_nsec = ns % 1000000000L;
    return pthread_timedjoin_np(t, NULL, &ts) == 0;
}

static int part2(long rounds)
{
    long lost = 0, first_lost = -1, never_ran = 0, not_stopped = 0;
    double began = now();
    for (long round = 0; round < rounds && lost < MAX_LOST; round++) {
        p2_round r = {GATE_INIT, NULL, 0};
        pthread_t t = start_thread(p2_thread, &r);
        gate_wait(&r.ready);
        if (!wait_running(r.loop)) never_ran++;
        RLRunLoopStop(r.loop);
        /* These race the thread's exit and its loop's teardown. */
        for (int i = 0; i < (int)(round % 4); i++) {
            RLRunLoopStop(r.loop);
            RLRunLoopWakeUp(r.loop);
        }
        if (!join_for(t, watchdog_s)) {
            if (lost++ == 0) first_lost = round;
            fprintf(stderr, "part 2, round %ld: the thread still runs %.1f s after RLRunLoopStop\n",
                    round, watchdog_s);
            RLRunLoopStop(r.loop);
            pthread_join(t, NULL);
        }
        if (r.result != kRLRunLoopRunStopped) not_stopped++;
        RLRunLoopStop(r.loop);  /* a dead loop: nothing to stop, no error */
        RLRunLoopWakeUp(r.loop);
        RLRelease(r.loop);
    }
    double took = now() - began;
    printf("part 2: %ld threads in %.2f s (%.0f/s), %ld stops lost (first at round %ld)\n",
           rounds, took, (double)rounds / took, lost, first_lost);
    CHECK(never_ran == 0);
    CHECK(lost == 0);
    CHECK(not_stopped == 0);
    return lost;
}

static void on_error(RLErrorCode code, const char *function, const char *message, void *info)
{
    (void)info;
    fprintf(stderr, "unexpected error %d from %s: %s\n", (int)code, function, message);
    CHECK(!"no error reported");
}

int main(int argc, char **argv)
{
    int valgrind = getenv("RL_UNDER_VALGRIND") != NULL;
    long rounds1 = argc > 1 ? atol(argv[1]) : valgrind ? 3000 : 20000;
    long rounds2 = argc > 2 ? atol(argv[2]) : valgrind ? 400 : 5000;
    watchdog_s = valgrind ? WATCHDOG_VALGRIND_S : WATCHDOG_S;
    RLSetErrorHandler(on_error, NULL);
    /* A round never waits long; a hang past the watchdog's recovery fails. */
    alarm(valgrind ? 250 : 60 + (unsigned)((rounds1 + rounds2) / 500));
    part1(rounds1);
    part2(rounds2);
    if (harness_failures == 0) printf("ok test_rl_stop_race\n");
    return harness_failures ? 1 : 0;
}
