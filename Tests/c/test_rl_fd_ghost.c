/*
 * test_rl_fd_ghost — descriptors epoll cannot follow (runloop-only):
 *   (a) a watched descriptor closed while its file stays open elsewhere (a
 *       dup), its number then reused by a new pipe watched by a new source:
 *       the old registration is a "ghost" epoll keeps reporting under that
 *       number.  Nothing is written to the new pipe: its source's perform
 *       runs at most a few times in 0.3 s, the misuse is reported through
 *       the error channel, and once both sources are invalidated a 0.3 s
 *       run of a mode holding only a timer fires the timer on time without
 *       spinning (few passes, little CPU time);
 *   (b) RLFileDescriptor on a regular file and on /dev/null (epoll_ctl
 *       refuses them with EPERM) is always ready, as with poll(2) and CF on
 *       Darwin: with read callbacks enabled the callback fires, once per
 *       enable (one-shot, as in CF), and a run with the callback disabled
 *       sleeps.
 */
#include "harness.h"

#include <fcntl.h>
#include <runloop/insight.h>
#include <sys/resource.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_fd_ghost tests runloop-only behaviour"
#endif

static int g_errors;
static char g_last_error[512];

static void count_error(RLErrorCode code, const char *function, const char *message, void *info)
{
    g_errors++;
    snprintf(g_last_error, sizeof g_last_error, "%s: %s", function, message ? message : "");
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6
         + (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

static uint64_t passes(void)
{
    RLRunLoopStatistics st;
    memset(&st, 0, sizeof st);
    st.size = sizeof st;
    RLRunLoopGetStatistics(RLRunLoopGetCurrent(), &st);
    return st.passes;
}

/* ---- (a) the ghost ---------------------------------------------------- */

typedef struct { int fd; int performs; } v1_info;

static int v1_get_port(void *info) { return ((v1_info *)info)->fd; }
static void v1_perform(void *info) { ((v1_info *)info)->performs++; }

static RLRunLoopSourceRef v1_source(v1_info *info)
{
    return new_fd_source(0, info, v1_get_port, v1_perform);
}

static int g_timer_fired;
static double g_timer_late;
static double g_timer_due;

static void timer_cb(RLRunLoopTimerRef t, void *info)
{
    g_timer_fired++;
    g_timer_late = now() - g_timer_due;
}

static void ghost_scenario(void)
{
    RLRunLoopMode mode = MODE("rl.test.ghost");
    int a[2], b[2];
    CHECK(pipe(a) == 0);
    v1_info old_info = { a[0], 0 };
    RLRunLoopSourceRef old_source = v1_source(&old_info);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), old_source, mode);
    RLRunLoopRunInMode(mode, 0, 0);           /* watched now */

    /* The misuse: A's read end closed while watched, its file kept open by
     * a dup; A's write end closed too, so that file reports EOF (ready). */
    int keep = dup(a[0]);
    close(a[0]);
    close(a[1]);
    CHECK(pipe(b) == 0);
    TRACE("(a) the new pipe reuses the closed number: %s", yes_no(b[0] == old_info.fd));
    v1_info new_info = { b[0], 0 };
    RLRunLoopSourceRef new_source = v1_source(&new_info);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), new_source, mode);

    g_errors = 0;
    RLRunLoopRunInMode(mode, 0.3, 0);
    TRACE("(a) nothing written: the new source ran at most a few times: %s", yes_no(new_info.performs <= 3));
    TRACE("(a) the ghost was reported: %s", yes_no(g_errors >= 1));
    fprintf(stderr, "new source performed %d times in 0.3 s; %d errors\n", new_info.performs, g_errors);
    if (g_errors) fprintf(stderr, "reported: %s\n", g_last_error);
    CHECK(new_info.performs <= 3);

    RLRunLoopSourceInvalidate(old_source);
    RLRunLoopSourceInvalidate(new_source);
    RLRelease(old_source);
    RLRelease(new_source);

    /* Both invalidated: a mode with only a timer sleeps until the timer. */
    RLRunLoopMode quiet = MODE("rl.test.ghost.timer");
    g_timer_due = now() + 0.2;
    RLRunLoopTimerRef timer = RLRunLoopTimerCreate(NULL, g_timer_due, 0, 0, 0, timer_cb, NULL);
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), timer, quiet);
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), timer, mode);  /* the ghost's mode too */
    uint64_t p0 = passes();
    double cpu0 = cpu_seconds();
    RLRunLoopRunInMode(mode, 0.3, 0);
    double cpu = cpu_seconds() - cpu0;
    uint64_t n = passes() - p0;
    TRACE("(a) after invalidating both: the timer fired once, on time: %s",
          yes_no(g_timer_fired == 1 && g_timer_late < 0.05));
    TRACE("(a) the loop slept (few passes, little CPU): %s", yes_no(n < 20 && cpu < 0.05));
    fprintf(stderr, "after invalidating both: %llu passes, %.3f s CPU in 0.3 s\n", (unsigned long long)n, cpu);
    CHECK(g_timer_fired == 1);
    CHECK(n < 20);
    CHECK(cpu < 0.05);
    RLRunLoopTimerInvalidate(timer);
    RLRelease(timer);
    close(keep);
    close(b[0]);
    close(b[1]);
}

/* ---- (b) descriptors epoll cannot watch -------------------------------- */

static int g_fd_calls;
static RLOptionFlags g_fd_types;

static void fd_cb(RLFileDescriptorRef f, RLOptionFlags types, void *info)
{
    g_fd_calls++;
    g_fd_types = types;
}

static void unwatchable_scenario(const char *label, int fd)
{
    RLRunLoopMode mode = MODE("rl.test.unwatchable");
    RLFileDescriptorRef f = RLFileDescriptorCreate(NULL, fd, 1, fd_cb, NULL);
    RLRunLoopSourceRef source = RLFileDescriptorCreateRunLoopSource(NULL, f, 0);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), source, mode);
    g_fd_calls = 0;
    g_errors = 0;

    RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
    RLRunLoopRunResult r = RLRunLoopRunInMode(mode, 1.0, 1);
    TRACE("(b) %s, read enabled: %s, callback fired %d time(s) with read: %s", label,
          result_name(r), g_fd_calls, yes_no(g_fd_types == kRLFileDescriptorReadCallBack));
    CHECK(g_fd_calls == 1);

    /* disabled (one-shot): the next run sleeps to its timeout */
    double t0 = now();
    r = RLRunLoopRunInMode(mode, 0.1, 1);
    TRACE("(b) %s, not re-enabled: %s, no callback: %s", label, result_name(r), yes_no(g_fd_calls == 1));
    CHECK(now() - t0 >= 0.09);

    for (int i = 0; i < 3; i++) {
        RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
        RLRunLoopRunInMode(mode, 1.0, 1);
    }
    TRACE("(b) %s, enabled 3 more times: callback fired once per enable: %s", label, yes_no(g_fd_calls == 4));
    TRACE("(b) %s: errors reported: %d", label, g_errors);
    RLFileDescriptorInvalidate(f);
    RLRelease(source);
    RLRelease(f);
}

int main(void)
{
    RLSetErrorHandler(count_error, NULL);
    ghost_scenario();

    char path[] = "/tmp/rl_fd_ghost_XXXXXX";
    int file = mkstemp(path);
    CHECK(file >= 0);
    unlink(path);
    CHECK(write(file, "hello", 5) == 5);
    unwatchable_scenario("regular file", file);
    unwatchable_scenario("/dev/null", open("/dev/null", O_RDONLY));
    return trace_check("rl_fd_ghost") | harness_failures;
}
