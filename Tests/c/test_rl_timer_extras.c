/*
 * test_rl_timer_extras — a timer's extras are made once, under a race
 *
 * What few timers have (a repeat interval, an order, a tolerance, a place
 * in a second mode) lives in a side object the timer makes on first need
 * and publishes with one compare-and-swap (Timer.swift, TimerExtras).  Here
 * three threads race to make it for the same fresh one-shot timer: two set
 * its tolerance to different values while the third adds it to a second
 * mode of the loop, and the loop's own thread reads every timer's
 * tolerance as it chooses when to wake.  After each round the timer must
 * have one of the two tolerances, be in both modes, and still report
 * interval 0 and order 0; a repeating timer of order 3 (extras made at
 * creation) goes through the same race.  Each race loser's object is
 * freed (valgrind memcheck runs this program too) and ThreadSanitizer
 * must see no race (Tests/stress/sanitizers.sh).
 */
#include "harness.h"

#include <stdatomic.h>
#include <unistd.h>

static RLRunLoopRef g_loop;
static atomic_int g_quit;
static gate_t g_ready = GATE_INIT;
static const RLRunLoopMode g_mode = MODE("extras1");
static const RLRunLoopMode g_mode2 = MODE("extras2");
static pthread_barrier_t g_start, g_done;
static RLRunLoopTimerRef g_timer;

static void never(RLRunLoopTimerRef timer, void *info) {}
static void keep_alive_perform(void *info) {}

static void *loop_thread(void *arg)
{
    g_loop = RLRunLoopGetCurrent();
    RLRunLoopSourceRef keep = new_source(0, NULL, keep_alive_perform);  /* the mode is never empty */
    RLRunLoopAddSource(g_loop, keep, g_mode);
    gate_post(&g_ready);
    while (!atomic_load(&g_quit)) RLRunLoopRunInMode(g_mode, 0.01, 0);
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
    return NULL;
}

/* Sets the round's timer's tolerance to *arg, in step with the others. */
static void *setter_thread(void *arg)
{
    double tolerance = *(double *)arg;
    for (;;) {
        pthread_barrier_wait(&g_start);
        if (atomic_load(&g_quit)) return NULL;
        RLRunLoopTimerSetTolerance(g_timer, tolerance);
        pthread_barrier_wait(&g_done);
    }
}

/* One kind of timer through n rounds; returns the rounds that went wrong. */
static unsigned race(unsigned n, RLTimeInterval interval, RLIndex order, double *low, double *high)
{
    unsigned wrong = 0;
    for (unsigned i = 0; i < n; i++) {
        RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 1000 + i, interval, 0, order,
                                                   never, NULL);
        RLRunLoopAddTimer(g_loop, t, g_mode);  /* its first placement, inline */
        g_timer = t;
        pthread_barrier_wait(&g_start);
        RLRunLoopAddTimer(g_loop, t, g_mode2);  /* the second, in its extras */
        pthread_barrier_wait(&g_done);
        double tolerance = RLRunLoopTimerGetTolerance(t);
        /* a repeating timer's tolerance is at most half its interval */
        double a = interval > 0 && *low > interval / 2 ? interval / 2 : *low;
        double b = interval > 0 && *high > interval / 2 ? interval / 2 : *high;
        if ((tolerance != a && tolerance != b) || !RLRunLoopContainsTimer(g_loop, t, g_mode)
            || !RLRunLoopContainsTimer(g_loop, t, g_mode2) || RLRunLoopTimerGetInterval(t) != interval
            || RLRunLoopTimerGetOrder(t) != order) {
            wrong++;
        }
        RLRunLoopTimerInvalidate(t);
        if (RLRunLoopContainsTimer(g_loop, t, g_mode) || RLRunLoopContainsTimer(g_loop, t, g_mode2)) wrong++;
        RLRelease(t);
    }
    return wrong;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    unsigned n = getenv("RL_UNDER_VALGRIND") ? 300 : 20000;
    static double low = 0.125, high = 0.25;
    pthread_barrier_init(&g_start, NULL, 3);
    pthread_barrier_init(&g_done, NULL, 3);
    pthread_t loop, setters[2];
    pthread_create(&loop, NULL, loop_thread, NULL);
    gate_wait(&g_ready);
    pthread_create(&setters[0], NULL, setter_thread, &low);
    pthread_create(&setters[1], NULL, setter_thread, &high);

    unsigned wrong = race(n, 0, 0, &low, &high);
    printf("  one-shot, order 0 (extras made by the race): %u rounds, %u wrong\n", n, wrong);
    CHECK(wrong == 0);
    wrong = race(n, 0.2, 3, &low, &high);
    printf("  repeating, order 3 (extras made at creation): %u rounds, %u wrong\n", n, wrong);
    CHECK(wrong == 0);

    atomic_store(&g_quit, 1);
    pthread_barrier_wait(&g_start);  /* the setters see g_quit and return */
    pthread_join(setters[0], NULL);
    pthread_join(setters[1], NULL);
    RLRunLoopStop(g_loop);
    pthread_join(loop, NULL);
    printf("%s\n", harness_failures ? "FAIL" : "ok");
    return harness_failures ? 1 : 0;
}
