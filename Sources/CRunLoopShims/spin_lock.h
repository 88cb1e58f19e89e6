/* The spin lock of BlockInbox's overflow array (included by shims.h).
 *
 * Kept because it earns its place: with a pthread mutex in its stead a
 * producer appending block after block and the loop taking the blocks
 * become a lock convoy (futex calls per run of `bench_runloop perform`:
 * 6 -> 49 with one producer, 11 -> 86,563 with two), and the one-producer
 * perform row of scripts/bench.sh loses 14-22%. */
#ifndef RUNLOOP_SPIN_LOCK_H
#define RUNLOOP_SPIN_LOCK_H

#include "shims.h"  /* rl_cpu_relax */

/* For a lock held a few dozen instructions at a time by threads that are
 * usually on other CPUs (BlockInbox's overflow array).  A waiter spins,
 * then yields the CPU (the holder may be preempted on this one); it never
 * sleeps in futex(2).  A mutex that did (even glibc's adaptive one, which
 * spins first) made a producer appending block after block and the loop
 * taking the blocks a lock convoy: the waiter slept, every unlock became a
 * futex wake, 1k-160k system calls per 5 M blocks.
 * The word: bit 0 held, bit 1 "the one taker waits".  Appenders take the
 * lock only from 0, so while the taker waits they stand back: a producer
 * appending in a tight loop, which would otherwise take the lock again
 * before the taker saw it free, lets the taker in after its append. */
static inline void rl_spin_wait(unsigned *spins) {
    if (++*spins < 256) rl_cpu_relax(); else sched_yield();
}
static inline void rl_spin_lock(uint64_t *word) {
    unsigned spins = 0;
    for (;;) {
        uint64_t expected = 0;
        if (__atomic_load_n(word, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(word, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
        rl_spin_wait(&spins);
    }
}
/* The taker's lock: one thread at a time (BlockInbox's consumer, which
 * holds the loop's lock); ahead of every appender waiting. */
static inline void rl_spin_lock_taker(uint64_t *word) {
    if ((__atomic_fetch_or(word, 3, __ATOMIC_ACQUIRE) & 1) == 0) {
        __atomic_fetch_and(word, ~(uint64_t)2, __ATOMIC_RELAXED);  /* ours at once */
        return;
    }
    unsigned spins = 0;
    for (;;) {
        uint64_t expected = 2;  /* released, still marked as waited for */
        if (__atomic_load_n(word, __ATOMIC_RELAXED) == 2 &&
            __atomic_compare_exchange_n(word, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
        rl_spin_wait(&spins);
    }
}
static inline void rl_spin_unlock(uint64_t *word) {
    __atomic_fetch_and(word, ~(uint64_t)1, __ATOMIC_RELEASE);
}

#endif
