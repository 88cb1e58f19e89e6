/*
 * test_rl_signal_wake — RLRunLoopSourceSignalAndWakeUp: RLRunLoopSourceSignal
 * and RLRunLoopWakeUp of every loop holding the source, in one call.  The
 * same scenario runs in Swift (SharedTraceSourceTests, LoopSource's
 * signalAndWakeUp) against the same trace.
 *   A. another thread signals-and-wakes the source of a sleeping loop: the
 *      loop wakes at once and performs it (a 5 s run returns HandledSource).
 *   B. three calls before the loop runs give one perform.
 *   C. another thread signals only (the loop sleeps on), then 50 ms later
 *      signals-and-wakes the source that is already pending: the loop wakes
 *      then, not before, and performs it once.
 *   D. a source in two loops (this thread's and a helper thread's, both
 *      asleep): one call wakes both, one of them performs it.
 *   E. the race of C: a plain signal and a signal-and-wake-up from two
 *      threads at a sleeping loop, 300 rounds: every round's run returns
 *      HandledSource (the wake-up is never lost while the other thread
 *      queues the source).
 *   F. a source in no loop is marked pending and performed once added; an
 *      invalidated source stays unsignalled.
 *   G. a source signalled-and-woken on this (idle) loop, then moved to a
 *      sleeping loop of another thread: that loop wakes and performs it
 *      (the wake-up went to the old loop, so the adding loop wakes itself).
 */
#include "harness.h"
#include <stdatomic.h>

/* A hand-over at a loop's next BeforeWaiting (from then on a wake-up is
 * seen): set `armed`, and that loop's observer calls on_sleep, which posts
 * `gate` once. */
typedef struct {
    int armed;
    gate_t gate;
} sleep_gate;
#define SLEEP_GATE_INIT { 0, GATE_INIT }

static int took_sleep(sleep_gate *s)
{
    if (!s->armed) return 0;
    s->armed = 0;
    return 1;
}

static void on_sleep(sleep_gate *s)
{
    if (took_sleep(s)) gate_post(&s->gate);
}

static sleep_gate g_sleeping = SLEEP_GATE_INIT;
static RLRunLoopSourceRef g_src;
static atomic_int g_performs;
static int g_quiet;  /* E: performs are counted, not traced */

static void obs_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o;
    if (info) TRACE("obs %s", activity_name(a));
    if (a == kRLRunLoopBeforeWaiting) on_sleep(&g_sleeping);
}

static void perform_cb(void *info)
{
    atomic_fetch_add(&g_performs, 1);
    if (info && !g_quiet) TRACE("perform source");
}

static void *signal_and_wake_when_asleep(void *arg)
{
    (void)arg;
    gate_wait(&g_sleeping.gate);
    TRACE("other thread: signal and wake up");
    RLRunLoopSourceSignalAndWakeUp(g_src);
    return NULL;
}

static void *signal_then_signal_and_wake(void *arg)
{
    (void)arg;
    gate_wait(&g_sleeping.gate);
    TRACE("other thread: signal only");
    RLRunLoopSourceSignal(g_src);
    sleep_s(0.05);
    TRACE("other thread: signal and wake up");
    RLRunLoopSourceSignalAndWakeUp(g_src);
    return NULL;
}

/* D: a second loop holding g_src, run until told to stop. */
static RLRunLoopRef d_loop;
static gate_t d_ready = GATE_INIT;
static sleep_gate d_asleep = SLEEP_GATE_INIT;
static atomic_int d_woke[2], d_stop;

static void d_obs(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o;
    if (a == kRLRunLoopAfterWaiting) atomic_fetch_add(&d_woke[(intptr_t)info], 1);
    /* the helper's first sleep (a loop that is not running yet ignores
     * wake-ups, so the call must come after this) */
    if (a == kRLRunLoopBeforeWaiting && (intptr_t)info == 1) on_sleep(&d_asleep);
}

static void *d_thread(void *arg)
{
    (void)arg;
    d_loop = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    RLRunLoopObserverRef o = new_observer(kRLRunLoopBeforeWaiting | kRLRunLoopAfterWaiting, 1, 0, d_obs, (void *)(intptr_t)1);
    RLRunLoopAddObserver(d_loop, o, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(d_loop, g_src, kRLRunLoopDefaultMode);
    gate_post(&d_ready);
    while (!atomic_load(&d_stop)) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 0);
    RLRunLoopObserverInvalidate(o);
    RLRelease(o);
    return NULL;
}

/* E: the two signalling threads poll the round number the loop's
 * BeforeWaiting publishes, so their calls land within a few hundred
 * nanoseconds of each other (a gate's wake-ups are too far apart to hit
 * the window between a plain signal's mark and its queueing).  The polling
 * is bounded: after e_polls looks (yielding between them) a signaller
 * waits on e_cond instead, which the publisher signals.  Under valgrind
 * (one thread at a time: a polling thread starves the others) e_polls is
 * 0: the rounds are handed over by the condition variable only. */
static atomic_int e_round;
static pthread_mutex_t e_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t e_cond = PTHREAD_COND_INITIALIZER;
static int e_polls;
static gate_t e_acked = GATE_INIT;  /* posted by each call of a round */

static void e_publish(int round)
{
    pthread_mutex_lock(&e_lock);
    atomic_store(&e_round, round);
    pthread_cond_broadcast(&e_cond);
    pthread_mutex_unlock(&e_lock);
}

/* The round after `seen` (-1: the end). */
static int e_wait_round(int seen)
{
    int round;
    for (int i = 0; i < e_polls; i++) {
        if ((round = atomic_load(&e_round)) != seen) return round;
        sched_yield();
    }
    pthread_mutex_lock(&e_lock);
    while ((round = atomic_load(&e_round)) == seen) pthread_cond_wait(&e_cond, &e_lock);
    pthread_mutex_unlock(&e_lock);
    return round;
}

static void *e_signaller(void *arg)
{
    int which = (int)(intptr_t)arg;
    for (int seen = 0;;) {
        int round = e_wait_round(seen);
        if (round < 0) return NULL;
        seen = round;
        if (which) RLRunLoopSourceSignalAndWakeUp(g_src);
        else RLRunLoopSourceSignal(g_src);
        gate_post(&e_acked);
    }
}

static int e_next;
#define E_ROUNDS 300

static void e_obs(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o;
    (void)info;
    if (a == kRLRunLoopBeforeWaiting && took_sleep(&g_sleeping)) e_publish(++e_next);
}

/* G: a loop on its own thread, run once until a source is handled. */
static sleep_gate g_helper_asleep = SLEEP_GATE_INIT;
static RLRunLoopRef g_helper_loop;
static RLRunLoopRunResult g_helper_result;

static void g_helper_obs(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o;
    (void)info;
    if (a == kRLRunLoopBeforeWaiting) on_sleep(&g_helper_asleep);
}

static void *g_helper(void *arg)
{
    (void)arg;
    g_helper_loop = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    RLRunLoopObserverRef o = new_observer(kRLRunLoopBeforeWaiting, 1, 0, g_helper_obs, NULL);
    RLRunLoopAddObserver(g_helper_loop, o, kRLRunLoopDefaultMode);
    RLRunLoopSourceRef keep = new_source(0, NULL, perform_cb);  /* the mode is not empty */
    RLRunLoopAddSource(g_helper_loop, keep, kRLRunLoopDefaultMode);
    g_helper_asleep.armed = 1;
    g_helper_result = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 1);
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
    RLRunLoopObserverInvalidate(o);
    RLRelease(o);
    return NULL;
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef obs = new_observer(kRLRunLoopAllActivities, 1, 0, obs_cb, (void *)1);
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    g_src = new_source(0, (void *)1, perform_cb);
    RLRunLoopAddSource(rl, g_src, kRLRunLoopDefaultMode);

    TRACE("A: another thread signals and wakes up a sleeping loop");
    g_sleeping.armed = 1;
    pthread_t th = start_thread(signal_and_wake_when_asleep, NULL);
    TRACE("A: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 1)));
    pthread_join(th, NULL);

    TRACE("B: three calls before the loop runs");
    RLRunLoopSourceSignalAndWakeUp(g_src);
    RLRunLoopSourceSignalAndWakeUp(g_src);
    RLRunLoopSourceSignalAndWakeUp(g_src);
    TRACE("B: signalled %s", yes_no(RLRunLoopSourceIsSignalled(g_src)));
    TRACE("B: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 1)));

    TRACE("C: signal only, then signal and wake up 50 ms later");
    g_sleeping.armed = 1;
    th = start_thread(signal_then_signal_and_wake, NULL);
    RLAbsoluteTime start = now();
    TRACE("C: result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 1)));
    CHECK(now() - start >= 0.05 - 0.01);
    pthread_join(th, NULL);
    RLRunLoopRemoveObserver(rl, obs, kRLRunLoopDefaultMode);

    TRACE("D: a source in two sleeping loops; one call wakes both");
    RLRunLoopObserverRef woke = new_observer(kRLRunLoopAfterWaiting, 1, 0, d_obs, (void *)0);
    RLRunLoopAddObserver(rl, woke, kRLRunLoopDefaultMode);
    atomic_store(&g_performs, 0);
    d_asleep.armed = 1;
    pthread_t dt = start_thread(d_thread, NULL);
    gate_wait(&d_ready);
    gate_wait(&d_asleep.gate);
    g_sleeping.armed = 1;
    RLRunLoopObserverRef sleeper = new_observer(kRLRunLoopBeforeWaiting, 1, 0, obs_cb, NULL);
    RLRunLoopAddObserver(rl, sleeper, kRLRunLoopDefaultMode);
    th = start_thread(signal_and_wake_when_asleep, NULL);
    /* the helper's loop is asleep within this 0.2 s as well */
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.2, 0);
    pthread_join(th, NULL);
    for (int i = 0; i < 500 && atomic_load(&d_woke[1]) == 0; i++) sleep_s(0.002);
    TRACE("D: this loop woke %s, the other loop woke %s, performs %d",
          yes_no(atomic_load(&d_woke[0]) > 0), yes_no(atomic_load(&d_woke[1]) > 0), atomic_load(&g_performs));
    atomic_store(&d_stop, 1);
    RLRunLoopStop(d_loop);
    pthread_join(dt, NULL);
    RLRunLoopRemoveSource(d_loop, g_src, kRLRunLoopDefaultMode);
    RLRelease(d_loop);
    RLRunLoopObserverInvalidate(woke);
    RLRelease(woke);
    RLRunLoopObserverInvalidate(sleeper);
    RLRelease(sleeper);

    TRACE("E: signal and signal-and-wake-up race at a sleeping loop");
    RLRunLoopObserverRef eo = new_observer(kRLRunLoopBeforeWaiting, 1, 0, e_obs, NULL);
    RLRunLoopAddObserver(rl, eo, kRLRunLoopDefaultMode);
    e_polls = getenv("RL_UNDER_VALGRIND") ? 0 : 100000;
    pthread_t es[2] = { start_thread(e_signaller, (void *)0), start_thread(e_signaller, (void *)1) };
    int handled = 0;
    atomic_store(&g_performs, 0);
    g_quiet = 1;
    for (int round = 1; round <= E_ROUNDS; round++) {
        g_sleeping.armed = 1;
        int published = e_next;
        if (RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 1) == kRLRunLoopRunHandledSource) handled++;
        /* both calls of this round made (a round may have ended on the
         * other's signal of the round before), then the source drained */
        for (int calls = 0; calls < 2 * (e_next - published); calls++) gate_wait(&e_acked);
        while (RLRunLoopSourceIsSignalled(g_src)) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 1);
    }
    e_publish(-1);
    pthread_join(es[0], NULL);
    pthread_join(es[1], NULL);
    g_quiet = 0;
    TRACE("E: rounds handled %d of %d", handled, E_ROUNDS);
    CHECK(atomic_load(&g_performs) >= E_ROUNDS);
    RLRunLoopObserverInvalidate(eo);
    RLRelease(eo);
    RLRunLoopSourceInvalidate(g_src);
    RLRelease(g_src);

    TRACE("F: a source in no loop, then added; an invalidated source");
    RLRunLoopSourceRef lone = new_source(0, (void *)1, perform_cb);
    RLRunLoopSourceSignalAndWakeUp(lone);
    TRACE("F: in no loop, signalled %s", yes_no(RLRunLoopSourceIsSignalled(lone)));
    RLRunLoopAddSource(rl, lone, kRLRunLoopDefaultMode);
    TRACE("F: added, result %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 1)));
    RLRunLoopSourceInvalidate(lone);
    RLRunLoopSourceSignalAndWakeUp(lone);
    TRACE("F: invalidated, signalled %s", yes_no(RLRunLoopSourceIsSignalled(lone)));
    CHECK(RLGetLastError() == kRLErrorNone);  /* like SourceSignal: no error */
    RLRelease(lone);

    TRACE("G: signalled and woken here, then moved to a sleeping loop");
    RLRunLoopSourceRef mv = new_source(0, (void *)1, perform_cb);
    RLRunLoopAddSource(rl, mv, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignalAndWakeUp(mv);  /* this loop is not running: nobody looks */
    RLRunLoopRemoveSource(rl, mv, kRLRunLoopDefaultMode);
    pthread_t gt = start_thread(g_helper, NULL);
    gate_wait(&g_helper_asleep.gate);
    start = now();
    RLRunLoopAddSource(g_helper_loop, mv, kRLRunLoopDefaultMode);
    pthread_join(gt, NULL);
    TRACE("G: other loop result %s", result_name(g_helper_result));
    CHECK(now() - start < 2.0);
    RLRunLoopSourceInvalidate(mv);
    RLRelease(mv);
    RLRelease(g_helper_loop);

    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_signal_wake") | harness_failures;
}
