/*
 * test_rl_timer_oom — making timers until memory runs out is an error,
 * not a crash (runloop-only; hand-written trace).  The address space is
 * capped 96 MB above what the process uses, then:
 *   A. one-shot timers, all already due, are made and added until a call
 *      fails: RLRunLoopTimerCreate returns NULL or RLRunLoopAddTimer
 *      reports the failure, both with kRLErrorResources;
 *   B. the loop, still under the cap, fires every timer that was added,
 *      over as many passes as the memory left allows (a burst's list of
 *      due timers is as large as malloc can still give);
 *   C. with the cap lifted, timers are made and fire again.
 * Skipped under valgrind (RL_UNDER_VALGRIND), which does not run a client
 * under the client's address-space limit, and under AddressSanitizer,
 * whose allocator aborts when it cannot map.
 */
#include "harness.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static long g_fired;
static void fired(RLRunLoopTimerRef t, void *info)
{
    (void)t; (void)info;
    g_fired++;
}

/* The process's address space in bytes (VmSize). */
static long address_space(void)
{
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    if (fscanf(f, "%ld", &pages) != 1) pages = 0;
    fclose(f);
    return pages * sysconf(_SC_PAGESIZE);
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    struct rlimit old;
    CHECK(getrlimit(RLIMIT_AS, &old) == 0);
    struct rlimit capped = { (rlim_t)address_space() + (96u << 20), old.rlim_max };
    CHECK(setrlimit(RLIMIT_AS, &capped) == 0);

    /* A */
    double past = RLAbsoluteTimeGetCurrent() - 10;
    long added = 0;
    RLErrorCode failure = 0;
    const char *which = "none";
    for (long i = 0; i < 10000000 && !failure; i++) {
        RLClearLastError();
        RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, past, 0, 0, 0, fired, NULL);
        if (!t) {
            failure = RLGetLastError();
            which = "create";
            break;
        }
        RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
        failure = RLGetLastError();
        if (failure) which = "add"; else added++;
        RLRelease(t);
    }
    printf("A: %ld timers added, then %s failed with %d\n", added, which, (int)failure);
    TRACE("A: stopped by an error: %s, resources: %s", yes_no(failure != 0), yes_no(failure == kRLErrorResources));
    CHECK(added > 1000);

    /* B */
    int passes = 0;
    while (g_fired < added && passes < 1000) {
        RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, false);
        passes++;
    }
    printf("B: %ld fired in %d passes\n", g_fired, passes);
    TRACE("B: every timer added fired: %s", yes_no(g_fired == added));

    /* C */
    CHECK(setrlimit(RLIMIT_AS, &old) == 0);
    g_fired = 0;
    for (int i = 0; i < 100; i++) {
        RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, past, 0, 0, 0, fired, NULL);
        CHECK(t != NULL);
        RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
        RLRelease(t);
    }
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, false);
    TRACE("C: cap lifted, 100 more fired: %s", yes_no(g_fired == 100));
}

int main(void)
{
    if (getenv("RL_UNDER_VALGRIND")) {
        printf("skipped under valgrind (no address-space cap there)\n");
        return 0;
    }
#ifdef UNDER_ASAN
    printf("skipped under AddressSanitizer (its allocator aborts when it cannot map)\n");
    return 0;
#endif
    run_on_thread(scenario);
    return trace_check("rl_timer_oom") | harness_failures;
}
