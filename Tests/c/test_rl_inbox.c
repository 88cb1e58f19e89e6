/*
 * test_rl_inbox — the lock-free block queue behind RLRunLoopPerformFunction
 * (BlockInbox.swift): its ring holds 256 blocks, then blocks overflow into
 * a locked array.
 *   A. more blocks than the ring holds, queued while the loop does not run,
 *      for two modes: each mode's blocks run in the order queued, the other
 *      mode's wait; none lost, none run twice;
 *   B. two producer threads flood a running loop (ring and overflow in
 *      turn): every block runs once, each producer's in its order;
 *   C. a perform from another thread for a mode the loop does not have
 *      creates the mode before it returns;
 *   D. a stale loop handle whose slot now holds another loop: error, and
 *      the new loop does not run the block;
 *   E. a loop handle passed as a source, a source handle passed as a loop:
 *      wrong-type errors;
 *   F. a new loop's ring is made by its first queued block: two producers
 *      racing to send a new loop its first blocks (ten loops, each on a
 *      fresh slot): every block runs once, each producer's in its order.
 */
#include "harness.h"

#define A_COUNT 1000
#define B_COUNT 20000

static long g_next[3];       /* A: next expected per mode; B: per producer */
static long g_ran, g_disorder;

/* info is seq << 1 | stream (the mode in A, the producer in B): each
 * stream's items must arrive in order. */
static void check_order(void *info)
{
    long v = (long)(intptr_t)info;
    int stream = (int)(v & 1);
    long seq = v >> 1;
    if (seq != g_next[stream]) g_disorder++;
    g_next[stream] = seq + 1;
    g_ran++;
}

static void a_work(void *info) { check_order(info); }

static void nothing(void *info) { (void)info; }

static const char *run(RLRunLoopMode mode, double s)
{
    return result_name(RLRunLoopRunInMode(mode, s, 0));
}

/* B ------------------------------------------------------------------- */

static RLRunLoopRef g_loop;

/* B and F: two producers start together and each sends g_count blocks
 * to g_loop, which stops once it has run them all. */
static long g_count;
static pthread_barrier_t g_start;

static void flood_work(void *info)
{
    check_order(info);
    if (g_ran == 2L * g_count) RLRunLoopStop(RLRunLoopGetCurrent());
}

static void *flood_producer(void *arg)
{
    long producer = (long)(intptr_t)arg;
    pthread_barrier_wait(&g_start);
    for (long i = 0; i < g_count; i++) {
        RLRunLoopPerformFunction(g_loop, kRLRunLoopDefaultMode, flood_work, (void *)(intptr_t)(i << 1 | producer));
        RLRunLoopWakeUp(g_loop);
    }
    return NULL;
}

static void start_producers(long count, pthread_t p[2])
{
    g_count = count;
    pthread_barrier_init(&g_start, NULL, 2);
    p[0] = start_thread(flood_producer, (void *)0);
    p[1] = start_thread(flood_producer, (void *)1);
}

static void join_producers(pthread_t p[2])
{
    pthread_join(p[0], NULL);
    pthread_join(p[1], NULL);
    pthread_barrier_destroy(&g_start);
}

/* C, D ---------------------------------------------------------------- */

static void *perform_fresh(void *arg)
{
    RLRunLoopPerformFunction((RLRunLoopRef)arg, MODE("fresh"), nothing, NULL);
    TRACE("C: other thread: perform for mode fresh: code %d", (int)RLGetLastError());
    return NULL;
}

static int has_mode(RLRunLoopRef rl, const char *name)
{
    RLArrayRef modes = RLRunLoopCopyAllModes(rl);
    int found = 0;
    for (RLIndex i = 0; i < RLArrayGetCount(modes); i++)
        if (!strcmp((const char *)RLArrayGetValueAtIndex(modes, i), name)) found = 1;
    RLRelease(modes);
    return found;
}

static gate_t g_made = GATE_INIT, g_go = GATE_INIT, g_done = GATE_INIT;
static RLRunLoopRef g_other;
static long g_d_ran;

static void d_work(void *info) { (void)info; g_d_ran++; }

/* A thread whose loop lives until told to go, then runs its default mode. */
static void *loop_thread(void *arg)
{
    (void)arg;
    g_other = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    gate_post(&g_made);
    gate_wait(&g_go);
    RLRunLoopPerformFunction(RLRunLoopGetCurrent(), kRLRunLoopDefaultMode, nothing, NULL);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    gate_post(&g_done);
    return NULL;
}

/* F ------------------------------------------------------------------- */

#define F_LOOPS 10
#define F_COUNT 2000

static gate_t g_f_made;

/* A new loop that runs until both producers' blocks have run. */
static void *f_loop_thread(void *arg)
{
    (void)arg;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceRef keep = new_source(0, NULL, nothing);
    RLRunLoopAddSource(rl, keep, kRLRunLoopDefaultMode);
    g_loop = (RLRunLoopRef)RLRetain(rl);  /* kept: the next loop gets a fresh slot */
    gate_post(&g_f_made);
    while (g_ran < 2L * F_COUNT) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 0);
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
    return NULL;
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();

    TRACE("A: queue %d blocks, alternating default and other, loop not running", A_COUNT);
    for (long i = 0; i < A_COUNT; i++) {
        int mode = (int)(i % 2);
        perform_fn(rl, mode ? MODE("other") : kRLRunLoopDefaultMode, a_work, (void *)(intptr_t)((i / 2) << 1 | mode));
    }
    const char *r = run(kRLRunLoopDefaultMode, 0);
    TRACE("A: default: %s; ran %ld, out of order %ld", r, g_ran, g_disorder);
    r = run(MODE("other"), 0);
    TRACE("A: other: %s; ran %ld, out of order %ld", r, g_ran, g_disorder);
    r = run(MODE("other"), 0);
    TRACE("A: other again: %s; ran %ld", r, g_ran);

    TRACE("B: two producers, %d blocks each, loop running", B_COUNT);
    g_ran = g_disorder = 0;
    g_next[0] = g_next[1] = 0;
    g_loop = rl;
    RLRunLoopSourceRef keep = new_source(0, NULL, nothing);
    RLRunLoopAddSource(rl, keep, kRLRunLoopDefaultMode);
    pthread_t producers[2];
    start_producers(B_COUNT, producers);
    while (g_ran < 2L * B_COUNT) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5.0, 0);
    join_producers(producers);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);  /* nothing left */
    TRACE("B: ran %ld (expected %ld), out of order %ld", g_ran, 2L * B_COUNT, g_disorder);

    TRACE("C: mode fresh before: %s", yes_no(has_mode(rl, "fresh")));
    pthread_join(start_thread(perform_fresh, (void *)rl), NULL);
    TRACE("C: mode fresh after: %s", yes_no(has_mode(rl, "fresh")));

    TRACE("D: a loop whose thread exits, released; another thread's loop");
    pthread_t t = start_thread(loop_thread, NULL);
    gate_wait(&g_made);
    RLRunLoopRef old = g_other;
    gate_post(&g_go);
    gate_wait(&g_done);
    pthread_join(t, NULL);
    RLRelease(old);  /* the last reference: the handle is stale now */
    RLClearLastError();
    g_made = (gate_t)GATE_INIT;
    g_go = (gate_t)GATE_INIT;
    g_done = (gate_t)GATE_INIT;
    t = start_thread(loop_thread, NULL);
    gate_wait(&g_made);
    RLRunLoopPerformFunction(old, kRLRunLoopDefaultMode, d_work, NULL);
    TRACE("D: perform on the stale handle: code %d", (int)RLGetLastError());
    RLClearLastError();
    gate_post(&g_go);
    gate_wait(&g_done);
    pthread_join(t, NULL);
    TRACE("D: the new loop ran it: %s", yes_no(g_d_ran != 0));
    RLRelease(g_other);

    TRACE("E: wrong types");
    RLRunLoopPerformFunction((RLRunLoopRef)keep, kRLRunLoopDefaultMode, nothing, NULL);
    TRACE("E: perform on a source: code %d", (int)RLGetLastError());
    RLClearLastError();
    RLRunLoopSourceSignal((RLRunLoopSourceRef)rl);
    TRACE("E: signal a loop: code %d", (int)RLGetLastError());
    RLClearLastError();
    RLRunLoopWakeUp((RLRunLoopRef)keep);
    TRACE("E: wake up a source: code %d", (int)RLGetLastError());
    RLClearLastError();
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);

    TRACE("F: %d new loops, each sent its first blocks by two producers at once", F_LOOPS);
    RLRunLoopRef made[F_LOOPS];
    long ran = 0, disorder = 0;
    for (int n = 0; n < F_LOOPS; n++) {
        g_next[0] = g_next[1] = 0;
        g_ran = g_disorder = 0;
        g_f_made = (gate_t)GATE_INIT;
        pthread_t lt = start_thread(f_loop_thread, NULL);
        gate_wait(&g_f_made);
        made[n] = g_loop;
        start_producers(F_COUNT, producers);
        join_producers(producers);
        pthread_join(lt, NULL);
        ran += g_ran;
        disorder += g_disorder;
    }
    for (int n = 0; n < F_LOOPS; n++) RLRelease(made[n]);
    TRACE("F: ran %ld (expected %ld), out of order %ld", ran, 2L * F_COUNT * F_LOOPS, disorder);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_inbox") | harness_failures;
}
