/* The only C the core needs: Linux syscalls Glibc's Swift overlay does not
 * import (epoll, eventfd, timerfd), thread ids, the mode-name compare,
 * Clang's block ABI and spinning.  The core's atomics are Swift's `Atomic`
 * (Synchronization).  Header-only; nothing here is exported. */
#ifndef RUNLOOP_SHIMS_H
#define RUNLOOP_SHIMS_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* ---- syscalls ---------------------------------------------------------- */

static inline int rl_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

static inline int rl_epoll_add(int epfd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = token;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

static inline int rl_epoll_mod(int epfd, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = token;
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev);
}

static inline int rl_epoll_del(int epfd, int fd) {
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
}

/* Puts the epoll set `fresh` in the place of `old` (dup3, close-on-exec:
 * EPOLL_CLOEXEC is O_CLOEXEC), closing the set `old` named; Poller's
 * rebuildWaitSet.  0, or -1 (errno). */
static inline int rl_epoll_replace(int old, int fresh) {
    return syscall(SYS_dup3, fresh, old, EPOLL_CLOEXEC) < 0 ? -1 : 0;
}

static inline int rl_errno(void) { return errno; }

/* epoll_wait into `buffer`, room for `max` struct epoll_event
 * (rl_epoll_event_size bytes each); entry i is read with
 * rl_epoll_event_token and rl_epoll_event_mask.  timeout_ms: -1 forever,
 * 0 poll.  Returns the count, or -1 (errno). */
static inline size_t rl_epoll_event_size(void) { return sizeof(struct epoll_event); }
static inline int rl_epoll_wait_into(int epfd, void *buffer, int max, int timeout_ms) {
    return epoll_wait(epfd, (struct epoll_event *)buffer, max, timeout_ms);
}
static inline uint64_t rl_epoll_event_token(const void *buffer, int i) {
    return ((const struct epoll_event *)buffer)[i].data.u64;
}
static inline uint32_t rl_epoll_event_mask(const void *buffer, int i) {
    return ((const struct epoll_event *)buffer)[i].events;
}

/* Waits for up to `max` (at most 256) events; fills tokens[] and events[]
 * with their data words and event masks.  Returns as rl_epoll_wait_into. */
static inline int rl_epoll_wait(int epfd, uint64_t *tokens, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event evs[256];
    int n = rl_epoll_wait_into(epfd, evs, max > 256 ? 256 : max, timeout_ms);
    for (int i = 0; i < n; i++) {
        tokens[i] = rl_epoll_event_token(evs, i);
        events[i] = rl_epoll_event_mask(evs, i);
    }
    return n;
}

static inline int rl_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

static inline int rl_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t r;
    do { r = write(fd, &one, sizeof one); } while (r < 0 && errno == EINTR);
    return r == sizeof one ? 0 : -1;
}

/* Reads and discards an eventfd's or timerfd's counter (non-blocking). */
static inline void rl_drain_counter(int fd) {
    uint64_t v;
    ssize_t r;
    do { r = read(fd, &v, sizeof v); } while (r < 0 && errno == EINTR);
}

static inline int rl_timerfd(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
}

/* Arms the timerfd for an absolute CLOCK_MONOTONIC deadline in ns;
 * deadline 0 disarms it. */
static inline int rl_timerfd_arm(int fd, uint64_t deadline_ns) {
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    if (deadline_ns != 0) {
        its.it_value.tv_sec = (time_t)(deadline_ns / 1000000000ull);
        its.it_value.tv_nsec = (long)(deadline_ns % 1000000000ull);
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* ---- clocks and threads ------------------------------------------------ */

static inline uint64_t rl_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_REALTIME minus CLOCK_MONOTONIC in ns, exact: both coarse clocks
 * are the same tick's values, read again when a tick falls between the
 * reads.  It changes only when the wall clock is stepped (settimeofday,
 * clock_settime, a leap second): slewing moves both clocks alike. */
static inline int64_t rl_clock_offset_ns(void) {
    struct timespec w1, m, w2;
    do {
        clock_gettime(CLOCK_REALTIME_COARSE, &w1);
        clock_gettime(CLOCK_MONOTONIC_COARSE, &m);
        clock_gettime(CLOCK_REALTIME_COARSE, &w2);
    } while (w1.tv_sec != w2.tv_sec || w1.tv_nsec != w2.tv_nsec);
    return ((int64_t)w1.tv_sec - (int64_t)m.tv_sec) * 1000000000 + ((int64_t)w1.tv_nsec - (int64_t)m.tv_nsec);
}

/* Seconds since 1970 from the wall clock. */
static inline double rl_wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int32_t rl_gettid(void) { return (int32_t)syscall(SYS_gettid); }
static inline int rl_is_main_thread(void) { return rl_gettid() == (int32_t)getpid(); }

/* ---- C blocks (Clang's Block ABI) ------------------------------------ */
/* Swift on Linux copies a block it captures but never releases it, so the
 * *WithHandler and PerformBlock entry points manage blocks by hand: copy
 * once, invoke through the literal's invoke pointer, release once. */

extern void *_Block_copy(const void *block);
extern void _Block_release(const void *block);

struct rl_block_literal {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void);
};

static inline void *rl_block_copy(const void *block) { return _Block_copy(block); }
static inline void rl_block_release(void *block) { _Block_release(block); }

static inline void rl_block_invoke_void(void *block) {
    ((void (*)(void *))((struct rl_block_literal *)block)->invoke)(block);
}
static inline void rl_block_invoke_observer(void *block, void *observer, unsigned long activity) {
    ((void (*)(void *, void *, unsigned long))((struct rl_block_literal *)block)->invoke)(block, observer, activity);
}
static inline void rl_block_invoke_timer(void *block, void *timer) {
    ((void (*)(void *, void *))((struct rl_block_literal *)block)->invoke)(block, timer);
}

/* ---- spinning --------------------------------------------------------- */
/* How many CPUs this thread may run on (its affinity mask; the raw
 * syscall, which needs no _GNU_SOURCE), or the online count if unknown. */
static inline int rl_cpus_available(void) {
    uint64_t mask[16];
    memset(mask, 0, sizeof mask);
    long n = syscall(SYS_sched_getaffinity, 0, sizeof mask, mask);
    if (n <= 0) return (int)sysconf(_SC_NPROCESSORS_ONLN);
    int count = 0;
    for (long i = 0; i < n / 8; i++) count += __builtin_popcountll(mask[i]);
    return count;
}

/* Gives the CPU to any thread waiting for one (Loop.giveWay). */
static inline void rl_yield(void) { sched_yield(); }

/* A hint to the CPU that this is a spin-wait loop (x86: PAUSE). */
static inline void rl_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}


#endif
