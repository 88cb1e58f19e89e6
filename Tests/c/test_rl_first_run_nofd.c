/*
 * test_rl_first_run_nofd — a loop whose first run found no free descriptor
 * recovers once descriptors are free (runloop.h: "the run reports
 * kRLErrorResources and returns kRLRunLoopRunFinished, and a later run
 * tries again"; runloop-only: CF makes its wake-up port with the loop).
 *
 * On a thread of its own, with a timer, a version-0 source (signalled) and
 * a version-1 source (a pipe made readable) added before its first run,
 * and every descriptor taken (RLIMIT_NOFILE lowered, the rest filled):
 *   A. the first run returns kRLRunLoopRunFinished with kRLErrorResources,
 *      nothing fired; so do RLRunLoopGetTimeout and RLRunLoopRunPending
 *      (kRLErrorResources, nothing run), and a second run with the
 *      descriptors still taken;
 *   B. with descriptors free again, the same thread's next runs fire all
 *      three, added before the failures, and no error is reported;
 *   C. items added afterwards from another thread while the loop sleeps
 *      wake it: a version-0 source signalled and woken, a timer added, the
 *      pipe written (the wake-up state is the loop's again, not left
 *      "ignoring" by the failed runs);
 *   D. the loop can be driven from outside too (its poll descriptor works).
 */
#include "harness.h"

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_first_run_nofd tests runloop-only behaviour"
#endif

#define MODE_X MODE("nofd")

static int g_errors, g_last_code;
static void record(RLErrorCode code, const char *fn, const char *msg, void *info)
{
    g_errors++;
    g_last_code = code;
}

static int g_fired, g_performed, g_read, g_pipe[2];
static void on_timer(RLRunLoopTimerRef t, void *info) { g_fired++; }
static void on_perform(void *info) { g_performed++; }
static int on_port(void *info) { return g_pipe[0]; }
static void on_readable(void *info)
{
    char byte;
    if (read(g_pipe[0], &byte, 1) == 1) g_read++;
}

/* Runs until `*count` reaches `want` (at most 5 s); the last result. */
static int run_until(int *count, int want)
{
    int result = 0;
    for (int i = 0; i < 50 && *count < want; i++) result = RLRunLoopRunInMode(MODE_X, 0.1, true);
    return result;
}

static RLRunLoopRef g_rl;
static RLRunLoopSourceRef g_source;
static gate_t g_sleeping = GATE_INIT;

static void *producer(void *arg)
{
    gate_wait(&g_sleeping);
    while (!RLRunLoopIsWaiting(g_rl)) sched_yield();  /* bounded: the loop goes to sleep */
    RLRunLoopSourceSignalAndWakeUp(g_source);
    return NULL;
}

static void *producer_timer(void *arg)
{
    gate_wait(&g_sleeping);
    while (!RLRunLoopIsWaiting(g_rl)) sched_yield();
    RLRunLoopTimerRef t = new_timer(now() + 0.01, 0, on_timer, NULL);
    RLRunLoopAddTimer(g_rl, t, MODE_X);
    RLRelease(t);
    return NULL;
}

static void *producer_pipe(void *arg)
{
    gate_wait(&g_sleeping);
    while (!RLRunLoopIsWaiting(g_rl)) sched_yield();
    if (write(g_pipe[1], "p", 1) != 1) abort();
    return NULL;
}

/* Starts `fn`, lets it act once the loop sleeps, runs until *count == want. */
static void from_other_thread(void *(*fn)(void *), int *count, int want)
{
    pthread_t t;
    pthread_create(&t, NULL, fn, NULL);
    gate_post(&g_sleeping);
    run_until(count, want);
    pthread_join(t, NULL);
    CHECK(*count == want);
}

static void *scenario(void *arg)
{
    g_rl = RLRunLoopGetCurrent();
    CHECK(pipe2(g_pipe, O_CLOEXEC) == 0);
    RLRunLoopTimerRef timer = new_timer(now() + 0.01, 0, on_timer, NULL);
    RLRunLoopAddTimer(g_rl, timer, MODE_X);
    g_source = new_source(0, NULL, on_perform);
    RLRunLoopAddSource(g_rl, g_source, MODE_X);
    RLRunLoopSourceRef fd_source = new_fd_source(0, NULL, on_port, on_readable);
    RLRunLoopAddSource(g_rl, fd_source, MODE_X);
    RLRunLoopSourceSignal(g_source);
    CHECK(write(g_pipe[1], "x", 1) == 1);

    /* A: every descriptor taken */
    struct rlimit saved, low;
    getrlimit(RLIMIT_NOFILE, &saved);
    low = saved;
    low.rlim_cur = 64;
    CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
    int fillers[64], filled = 0;
    for (int fd; filled < 64 && (fd = dup(0)) >= 0;) fillers[filled++] = fd;
    usleep(20000);  /* the timer is due */
    g_errors = g_last_code = 0;
    CHECK(RLRunLoopRunInMode(MODE_X, 0.05, false) == kRLRunLoopRunFinished);
    CHECK(g_errors == 1 && g_last_code == kRLErrorResources);
    g_last_code = 0;
    CHECK(RLRunLoopGetTimeout(g_rl, MODE_X) == 0 && g_last_code == kRLErrorResources);
    g_last_code = 0;
    CHECK(RLRunLoopRunPending(g_rl, MODE_X) == kRLRunLoopRunFinished && g_last_code == kRLErrorResources);
    g_last_code = 0;
    CHECK(RLRunLoopRunInMode(MODE_X, 0, false) == kRLRunLoopRunFinished && g_last_code == kRLErrorResources);
    CHECK(g_fired == 0 && g_performed == 0 && g_read == 0);

    /* B: descriptors free again: the same thread's runs fire all three */
    while (filled > 0) close(fillers[--filled]);
    CHECK(setrlimit(RLIMIT_NOFILE, &saved) == 0);
    g_errors = 0;
    int result = RLRunLoopRunInMode(MODE_X, 0, false);
    CHECK(result == kRLRunLoopRunTimedOut);
    fprintf(stderr, "B: the run after the descriptors were freed: result %d, timer %d, source %d, descriptor %d\n",
            result, g_fired, g_performed, g_read);
    CHECK(g_fired == 1 && g_performed == 1 && g_read == 1);
    CHECK(g_errors == 0);

    /* C: from another thread, while the loop sleeps */
    from_other_thread(producer, &g_performed, 2);
    from_other_thread(producer_timer, &g_fired, 2);
    from_other_thread(producer_pipe, &g_read, 2);

    /* D: driven from outside */
    int fd = RLRunLoopGetPollDescriptor(g_rl);
    CHECK(fd >= 0);
    CHECK(isinf(RLRunLoopGetTimeout(g_rl, MODE_X)));
    RLRunLoopSourceSignalAndWakeUp(g_source);
    struct pollfd p = { fd, POLLIN, 0 };
    CHECK(poll(&p, 1, 2000) == 1);
    CHECK(RLRunLoopRunPending(g_rl, MODE_X) == kRLRunLoopRunTimedOut);
    CHECK(g_performed == 3);
    CHECK(g_errors == 0);

    RLRunLoopSourceInvalidate(fd_source);
    RLRunLoopSourceInvalidate(g_source);
    RLRunLoopTimerInvalidate(timer);
    RLRelease(fd_source);
    RLRelease(g_source);
    RLRelease(timer);
    close(g_pipe[0]);
    close(g_pipe[1]);
    return NULL;
}

int main(void)
{
    alarm(getenv("RL_UNDER_VALGRIND") ? 250 : 60);  /* a hang fails */
    RLSetErrorHandler(record, NULL);
    pthread_t t;
    pthread_create(&t, NULL, scenario, NULL);
    pthread_join(t, NULL);
    if (harness_failures) fprintf(stderr, "%d check(s) failed\n", harness_failures);
    return harness_failures;
}
