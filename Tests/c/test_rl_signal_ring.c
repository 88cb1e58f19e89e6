/*
 * test_rl_signal_ring — RLRunLoopSourceSignal from other threads.  Written
 * for a lock-free route that queued a source of one loop as an entry in
 * that loop's block ring; a signal now takes one route, the loop's locked
 * list (Loop/PendingSources.swift), and these scenarios keep the behaviour
 * the ring had to keep ("ring" and "locked" below and in the trace name
 * the two kinds of source: in one loop, in two):
 *   A. two producers flood signal + wake-up at a running loop (200,000
 *      each; 2,000 under valgrind): when they
 *      stop, the source is not left signalled, and one more signal from
 *      another thread is performed (no signal lost in the ring);
 *   B. a producer signals while the source moves between two loops, 200
 *      times (20 under valgrind), a burst of signals during each move: after
 *      each move back it is performed on this loop (a
 *      producer that read the old loop queues a stale entry, which that
 *      loop drops; the new loop saw the pending mark when it added it);
 *   C. a signal entry in the ring, then the source removed and released
 *      (its last reference): its release callback runs at once, the loop
 *      drops the entry and never performs it; a loop whose thread exits
 *      with an entry in its ring releases it (checked by the sanitizers);
 *   D. ties of order are performed first signalled first across the two
 *      paths: a source of one loop (ring) and one of two loops (locked);
 *   E. an entry for a mode the loop is not running waits, pending, for a
 *      pass of that mode;
 *   F. an entry queued while the ring is full of blocks (it lands in the
 *      overflow array): the loop finds it there and performs the source
 *      once, after running every block.
 */
#include "harness.h"
#include <stdatomic.h>

#define MODE(s) ((RLRunLoopMode)(s))

static void nothing(void *info) { (void)info; }

/* A: performs of the flooded source, and the producers' state. */
static atomic_long g_performs;
static atomic_int g_producers_done;
static RLRunLoopRef g_loop;
static RLRunLoopSourceRef g_src;

/* Under valgrind (RL_UNDER_VALGRIND, one thread at a time, 20-50x slower)
 * the floods are scaled down so the memcheck run stays well inside its
 * limit on 2 CPUs; the trace does not name the counts. */
static long a_signals(void) { return getenv("RL_UNDER_VALGRIND") ? 2000 : 200000; }

static void count_perform(void *info) { (void)info; atomic_fetch_add(&g_performs, 1); }

static void *a_producer(void *arg)
{
    (void)arg;
    long n = a_signals();
    for (long i = 0; i < n; i++) {
        RLRunLoopSourceSignal(g_src);
        RLRunLoopWakeUp(g_loop);
        /* under valgrind (one thread at a time) a producer that never
         * enters the kernel keeps the others waiting: give way now and then */
        if ((i & 255) == 255) sched_yield();
    }
    atomic_fetch_add(&g_producers_done, 1);
    RLRunLoopWakeUp(g_loop);
    return NULL;
}

static void *signal_once(void *arg)
{
    (void)arg;
    RLRunLoopSourceSignal(g_src);
    RLRunLoopWakeUp(g_loop);
    return NULL;
}

/* Runs the current loop's default mode until `*counter` passes `above`,
 * for at most `seconds`; whether it did. */
static int run_until_above(atomic_long *counter, long above, double seconds)
{
    RLAbsoluteTime end = now() + seconds;
    while (atomic_load(counter) <= above && now() < end)
        RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 1);
    return atomic_load(counter) > above;
}

static void scenario_a(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    g_loop = rl;
    g_src = new_source(0, NULL, count_perform);
    RLRunLoopAddSource(rl, g_src, kRLRunLoopDefaultMode);
    TRACE("A: two producers flood signals + wake-ups, loop running");
    pthread_t p[2];
    for (int i = 0; i < 2; i++) p[i] = start_thread(a_producer, NULL);
    while (atomic_load(&g_producers_done) < 2) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 0);
    for (int i = 0; i < 2; i++) pthread_join(p[i], NULL);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);  /* what the last signals left */
    TRACE("A: performed: %s; still signalled: %s", yes_no(atomic_load(&g_performs) > 0),
          yes_no(RLRunLoopSourceIsSignalled(g_src)));
    long before = atomic_load(&g_performs);
    pthread_join(start_thread(signal_once, NULL), NULL);
    TRACE("A: one more signal from another thread performed: %s", yes_no(run_until_above(&g_performs, before, 5)));
    RLRunLoopSourceInvalidate(g_src);
    RLRelease(g_src);
}

/* B ------------------------------------------------------------------- */

static int b_moves(void) { return getenv("RL_UNDER_VALGRIND") ? 20 : 200; }

static RLRunLoopRef g_other;
static atomic_int g_stop_other, g_stop_producer;
static gate_t g_other_made = GATE_INIT;
static gate_t g_move = GATE_INIT, g_burst_done = GATE_INIT;  /* a move begins; its burst is over */
static atomic_int g_moving;  /* a move is under way (its burst goes on until it ends) */
static atomic_long g_here;  /* performs on this test's loop */

static void b_perform(void *info)
{
    if (RLRunLoopGetCurrent() == (RLRunLoopRef)info) atomic_fetch_add(&g_here, 1);
}

static void *other_loop(void *arg)
{
    (void)arg;
    g_other = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    RLRunLoopSourceRef keep = new_source(0, NULL, nothing);  /* so the mode has an item */
    RLRunLoopAddSource(g_other, keep, kRLRunLoopDefaultMode);
    gate_post(&g_other_made);
    while (!atomic_load(&g_stop_other)) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.01, 0);
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
    return NULL;
}

/* At each move, signals the source (and wakes both loops) until the move
 * is over, yielding between calls, at most b_burst() times: bounded work
 * and no spin (under valgrind a flooding thread starved the moves). */
static int b_burst(void) { return getenv("RL_UNDER_VALGRIND") ? 50 : 5000; }

static void *b_producer(void *arg)
{
    (void)arg;
    for (int burst = b_burst();;) {
        gate_wait(&g_move);
        if (atomic_load(&g_stop_producer)) return NULL;
        for (int i = 0; i < burst && atomic_load(&g_moving); i++) {
            RLRunLoopSourceSignal(g_src);
            RLRunLoopWakeUp(g_loop);
            RLRunLoopWakeUp(g_other);
            sched_yield();
        }
        gate_post(&g_burst_done);
    }
}

static void scenario_b(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    g_loop = rl;
    pthread_t other = start_thread(other_loop, NULL);
    gate_wait(&g_other_made);
    g_src = new_source(0, rl, b_perform);
    RLRunLoopAddSource(rl, g_src, kRLRunLoopDefaultMode);
    pthread_t producer = start_thread(b_producer, NULL);
    TRACE("B: a producer floods signals; the source moves to another thread's loop and back, again and again");
    int missed = 0;
    for (int i = 0, moves = b_moves(); i < moves; i++) {
        atomic_store(&g_moving, 1);
        gate_post(&g_move);
        RLRunLoopRemoveSource(rl, g_src, kRLRunLoopDefaultMode);
        RLRunLoopAddSource(g_other, g_src, kRLRunLoopDefaultMode);
        RLRunLoopRemoveSource(g_other, g_src, kRLRunLoopDefaultMode);
        RLRunLoopAddSource(rl, g_src, kRLRunLoopDefaultMode);
        if (!run_until_above(&g_here, atomic_load(&g_here), 5)) missed++;
        atomic_store(&g_moving, 0);
        gate_wait(&g_burst_done);
    }
    atomic_store(&g_stop_producer, 1);
    gate_post(&g_move);
    pthread_join(producer, NULL);
    TRACE("B: moves back not performed here: %d", missed);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    TRACE("B: still signalled after the producer stopped: %s", yes_no(RLRunLoopSourceIsSignalled(g_src)));
    atomic_store(&g_stop_other, 1);
    RLRunLoopWakeUp(g_other);
    pthread_join(other, NULL);
    RLRunLoopSourceInvalidate(g_src);
    RLRelease(g_src);
    RLRelease(g_other);
}

/* C ------------------------------------------------------------------- */

static atomic_int g_released;
static atomic_long g_c_performs;

static void c_perform(void *info) { (void)info; atomic_fetch_add(&g_c_performs, 1); }
static void c_release(const void *info) { (void)info; atomic_fetch_add(&g_released, 1); }

static RLRunLoopSourceRef counted_source(RLIndex order, void (*perform)(void *))
{
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = &g_released;
    ctx.release = c_release;
    ctx.perform = perform;
    return RLRunLoopSourceCreate(NULL, order, &ctx);
}

static gate_t g_exit_made = GATE_INIT, g_exit_go = GATE_INIT;

/* A loop that gets a source, is signalled (an entry in its ring) and exits
 * without running. */
static void *exiting_loop(void *arg)
{
    (void)arg;
    g_other = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    RLRunLoopAddSource(g_other, g_src, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(g_src);  /* the locked path opens the ring */
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    gate_post(&g_exit_made);
    gate_wait(&g_exit_go);
    return NULL;
}

static void scenario_c(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    g_loop = rl;
    g_src = counted_source(0, c_perform);
    RLRunLoopAddSource(rl, g_src, kRLRunLoopDefaultMode);
    pthread_join(start_thread(signal_once, NULL), NULL);  /* locked path: opens the ring */
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    TRACE("C: performs after the first signal: %ld", atomic_load(&g_c_performs));
    pthread_join(start_thread(signal_once, NULL), NULL);  /* an entry in the ring */
    RLRunLoopRemoveSource(rl, g_src, kRLRunLoopDefaultMode);
    RLRelease(g_src);
    TRACE("C: removed and released with an entry queued: release callback ran %d", atomic_load(&g_released));
    RLRunLoopSourceRef keep = new_source(0, NULL, nothing);
    RLRunLoopAddSource(rl, keep, kRLRunLoopDefaultMode);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    TRACE("C: performs after the loop ran: %ld", atomic_load(&g_c_performs));

    atomic_store(&g_released, 0);
    g_src = counted_source(0, c_perform);
    pthread_t t = start_thread(exiting_loop, NULL);
    gate_wait(&g_exit_made);
    g_loop = g_other;
    pthread_join(start_thread(signal_once, NULL), NULL);  /* an entry in the exiting loop's ring */
    gate_post(&g_exit_go);
    pthread_join(t, NULL);
    RLRelease(g_src);
    TRACE("C: a loop exits with an entry queued, source released: release callback ran %d",
          atomic_load(&g_released));
    RLRelease(g_other);
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
}

/* D, E ---------------------------------------------------------------- */

static char g_order[16];
static int g_order_n;

static void mark(void *info)
{
    if (g_order_n < (int)sizeof g_order - 1) g_order[g_order_n++] = *(const char *)info;
}

static void *d_signal(void *arg)
{
    RLRunLoopSourceSignal((RLRunLoopSourceRef)arg);
    return NULL;
}

static void signal_from_thread(RLRunLoopSourceRef s) { pthread_join(start_thread(d_signal, s), NULL); }

/* Signals first, then second (each from another thread), runs the
 * default mode once; the order they were performed in. */
static const char *signal_pair_and_run(RLRunLoopSourceRef first, RLRunLoopSourceRef second)
{
    g_order_n = 0;
    signal_from_thread(first);
    signal_from_thread(second);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    g_order[g_order_n] = 0;
    return g_order;
}

static void scenario_d(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    static const char a = 'a', b = 'b';
    RLRunLoopSourceRef one = new_source(0, (void *)&a, mark);  /* this loop only: the ring */
    RLRunLoopSourceRef two = new_source(0, (void *)&b, mark);  /* two loops: the locked path */
    pthread_t other = start_thread(other_loop, NULL);
    gate_wait(&g_other_made);
    RLRunLoopAddSource(rl, one, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, two, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(g_other, two, MODE("elsewhere"));
    signal_from_thread(one);  /* warm-up: the ring is open from here */
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    TRACE("D: signalled b (locked) then a (ring): performed %s", signal_pair_and_run(two, one));
    TRACE("D: signalled a (ring) then b (locked): performed %s", signal_pair_and_run(one, two));

    RLRunLoopRemoveSource(rl, one, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, one, MODE("other"));
    g_order_n = 0;
    signal_from_thread(one);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    g_order[g_order_n] = 0;
    TRACE("E: a in mode other, signalled; default ran: performed '%s', a signalled: %s", g_order,
          yes_no(RLRunLoopSourceIsSignalled(one)));
    RLRunLoopRunInMode(MODE("other"), 0, 0);
    g_order[g_order_n] = 0;
    TRACE("E: other ran: performed '%s', a signalled: %s", g_order, yes_no(RLRunLoopSourceIsSignalled(one)));

    atomic_store(&g_stop_other, 1);
    RLRunLoopWakeUp(g_other);
    pthread_join(other, NULL);
    RLRunLoopSourceInvalidate(one);
    RLRunLoopSourceInvalidate(two);
    RLRelease(one);
    RLRelease(two);
    RLRelease(g_other);
}

/* F ------------------------------------------------------------------- */

#define F_BLOCKS 300  /* more than the ring holds (256) */

static atomic_int g_f_blocks;
static int g_f_after = -1;  /* blocks run when the source was performed */

static void f_block(void *info) { (void)info; atomic_fetch_add(&g_f_blocks, 1); }
static void f_perform(void *info) { (void)info; g_f_after = atomic_load(&g_f_blocks); }

static void *f_flood(void *arg)
{
    for (int i = 0; i < F_BLOCKS; i++) RLRunLoopPerformFunction((RLRunLoopRef)arg, kRLRunLoopDefaultMode, f_block, NULL);
    return NULL;
}

static void scenario_f(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceRef s = new_source(0, NULL, f_perform);
    RLRunLoopAddSource(rl, s, kRLRunLoopDefaultMode);
    signal_from_thread(s);  /* warm-up: the ring is open from here */
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    atomic_store(&g_f_blocks, 0);
    pthread_join(start_thread(f_flood, rl), NULL);
    signal_from_thread(s);  /* the ring is full: into the overflow array */
    pthread_join(start_thread(f_flood, rl), NULL);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    TRACE("F: %d blocks, a signal, %d blocks queued; one pass ran %d blocks, performed the source after %d; signalled: %s",
          F_BLOCKS, F_BLOCKS, atomic_load(&g_f_blocks), g_f_after, yes_no(RLRunLoopSourceIsSignalled(s)));
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
}

static void scenario(void)
{
    scenario_a();
    scenario_b();
    scenario_c();
    g_other_made = (gate_t)GATE_INIT;
    atomic_store(&g_stop_other, 0);
    scenario_d();
    scenario_f();
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_signal_ring") | harness_failures;
}
