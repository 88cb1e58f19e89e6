/*
 * test_rl_embed_quiet — the poll descriptor is quiet while the mode the
 * loop is prepared for has no work, whatever the other modes hold
 * (RLRunLoopGetTimeout / RLRunLoopRunPending; runloop-only).
 *
 * Each scenario runs on a thread of its own, whose loop has a mode
 * "embed.other" with a version-1 source on a pipe that is readable and
 * never read, and was last prepared for (or run in) that mode, so its wait
 * set holds the pipe.  A driver then waits on the descriptor alone for
 * 200 ms (poll with the time left, as a driver whose timeout is INFINITY
 * does), calling RLRunLoopGetTimeout before each wait and
 * RLRunLoopRunPending after it, and counts its rounds:
 *   A. prepared for a mode that does not exist: at most a few rounds
 *      (the pipe of "embed.other" is not watched); once a timer and then a
 *      descriptor source are added to the mode, the descriptor tells of
 *      each, and the driver runs them;
 *   B. prepared for kRLRunLoopCommonModes (a pseudo-mode no loop runs in,
 *      as in CF, where RunInMode(kCFRunLoopCommonModes) returns Finished
 *      and logs "invalid mode"):
 *      RLRunLoopGetTimeout returns 0 and RLRunLoopRunPending returns
 *      kRLRunLoopRunFinished, each reporting kRLErrorInvalidArgument, and
 *      the loop is left prepared for no mode: its descriptor is quiet (it
 *      was readable for "embed.other" just before);  a timer of
 *      "embed.other" due meanwhile does not make it readable either;
 *      preparing for a real mode afterwards works;
 *   C. prepared for an existing empty mode, or a missing one, and woken
 *      (RLRunLoopWakeUp): the wake-up makes the descriptor readable once,
 *      and the next RLRunLoopRunPending consumes it (no pass runs: the
 *      mode is empty) — a few rounds, not a spin;
 *   D. another mode holds a descriptor epoll cannot watch (/dev/null,
 *      always ready): prepared for a missing mode, the descriptor is quiet.
 * Before the fix, A, B, C and D each made ~100,000 rounds in 200 ms.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_embed_quiet tests runloop-only behaviour"
#endif

/* A handful: a spare round for a wake-up that raced a run is allowed. */
#define MAX_QUIET_ROUNDS 4

static RLErrorCode g_last_code;
static int g_reports;
static void record(RLErrorCode code, const char *fn, const char *msg, void *info)
{
    g_last_code = code;
    g_reports++;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int readable(int fd, int ms)
{
    struct pollfd p = { fd, POLLIN, 0 };
    return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static void on_thread(void *(*fn)(void *))
{
    pthread_t t;
    pthread_create(&t, NULL, fn, NULL);
    pthread_join(t, NULL);
}

/* A driver waiting on the descriptor alone for `seconds`: its rounds. */
static long drive(RLRunLoopRef rl, int fd, RLRunLoopMode mode, double seconds)
{
    long rounds = 0;
    double end = mono() + seconds;
    for (double left; (left = end - mono()) > 0; rounds++) {
        RLRunLoopGetTimeout(rl, mode);
        readable(fd, (int)ceil(left * 1000));
        RLRunLoopRunPending(rl, mode);
    }
    return rounds;
}

#define OTHER MODE("embed.other")

/* "embed.other": a source on a pipe made readable, never read. */
typedef struct {
    int pipe[2];
    int performed;
    RLRunLoopSourceRef source;
} other_t;

static int other_port(void *info) { return ((other_t *)info)->pipe[0]; }
static void other_perform(void *info) { ((other_t *)info)->performed++; }

static void other_open(RLRunLoopRef rl, other_t *o)
{
    CHECK(pipe(o->pipe) == 0);
    CHECK(write(o->pipe[1], "x", 1) == 1);
    o->source = new_fd_source(0, o, other_port, other_perform);
    RLRunLoopAddSource(rl, o->source, OTHER);
    /* the driver was prepared for it: the wait set holds the pipe */
    CHECK(isinf(RLRunLoopGetTimeout(rl, OTHER)));  /* no timer: the descriptor tells */
    CHECK(readable(RLRunLoopGetPollDescriptor(rl), 0));
}

static void other_close(other_t *o)
{
    RLRunLoopSourceInvalidate(o->source);
    RLRelease(o->source);
    close(o->pipe[0]);
    close(o->pipe[1]);
}

/* ---- A: a mode that does not exist yet ---------------------------------- */

static int a_fired, a_read;
static int a_pipe[2];
static void a_timer(RLRunLoopTimerRef t, void *info) { a_fired++; }
static int a_port(void *info) { return a_pipe[0]; }
static void a_perform(void *info)
{
    char byte;
    if (read(a_pipe[0], &byte, 1) == 1) a_read++;
}

static void *scenario_a(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    other_t o = { 0 };
    other_open(rl, &o);
    RLRunLoopMode later = MODE("embed.later");

    g_reports = 0;
    CHECK(isinf(RLRunLoopGetTimeout(rl, later)));
    CHECK(!readable(fd, 0));
    long rounds = drive(rl, fd, later, 0.2);
    fprintf(stderr, "A: %ld rounds in 0.2 s prepared for a mode that does not exist\n", rounds);
    CHECK(rounds <= MAX_QUIET_ROUNDS);
    CHECK(g_reports == 0);
    CHECK(o.performed == 0);

    /* the mode comes into existence: a timer */
    RLRunLoopTimerRef t = new_timer(now() + 0.02, 0, a_timer, NULL);
    RLRunLoopAddTimer(rl, t, later);
    CHECK(readable(fd, 0));  /* the driver hears of the new mode at once */
    double end = mono() + 5;
    while (a_fired == 0 && mono() < end) {
        double timeout = RLRunLoopGetTimeout(rl, later);
        CHECK(!isinf(timeout));
        readable(fd, 2000);  /* the timerfd tells */
        RLRunLoopRunPending(rl, later);
    }
    CHECK(a_fired == 1);
    CHECK(o.performed == 0);  /* the other mode's descriptor was never run */
    CHECK(isinf(RLRunLoopGetTimeout(rl, later)));
    CHECK(!readable(fd, 0));

    /* and a descriptor source of its own */
    CHECK(pipe(a_pipe) == 0);
    RLRunLoopSourceRef s = new_fd_source(0, NULL, a_port, a_perform);
    RLRunLoopAddSource(rl, s, later);
    RLRunLoopGetTimeout(rl, later);
    CHECK(!readable(fd, 0));
    CHECK(write(a_pipe[1], "y", 1) == 1);
    CHECK(readable(fd, 2000));
    RLRunLoopRunPending(rl, later);
    CHECK(a_read == 1);
    CHECK(!readable(fd, 0));

    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    close(a_pipe[0]);
    close(a_pipe[1]);
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    other_close(&o);
    return NULL;
}

/* ---- B: kRLRunLoopCommonModes ------------------------------------------ */

static int b_fired;
static void b_timer(RLRunLoopTimerRef t, void *info) { b_fired++; }

static void *scenario_b(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    other_t o = { 0 };
    other_open(rl, &o);
    /* a timer of the other mode, due during the drive */
    RLRunLoopTimerRef t = new_timer(now() + 0.05, 0, b_timer, NULL);
    RLRunLoopAddTimer(rl, t, OTHER);

    g_last_code = 0;
    CHECK(RLRunLoopGetTimeout(rl, kRLRunLoopCommonModes) == 0);
    CHECK(g_last_code == kRLErrorInvalidArgument);
    CHECK(!readable(fd, 0));  /* prepared for no mode */
    g_last_code = 0;
    CHECK(RLRunLoopRunPending(rl, kRLRunLoopCommonModes) == kRLRunLoopRunFinished);
    CHECK(g_last_code == kRLErrorInvalidArgument);
    CHECK(!readable(fd, 0));
    long rounds = drive(rl, fd, kRLRunLoopCommonModes, 0.2);
    fprintf(stderr, "B: %ld rounds in 0.2 s prepared for kRLRunLoopCommonModes\n", rounds);
    CHECK(rounds <= MAX_QUIET_ROUNDS);
    CHECK(o.performed == 0 && b_fired == 0);  /* nothing of another mode ran */

    /* a real mode again */
    g_last_code = 0;
    CHECK(RLRunLoopGetTimeout(rl, OTHER) == 0);
    CHECK(g_last_code == 0);
    CHECK(readable(fd, 0));
    CHECK(RLRunLoopRunPending(rl, OTHER) == kRLRunLoopRunTimedOut);
    CHECK(o.performed == 1 && b_fired == 1);

    /* as CF: a run in the pseudo-mode finishes at once (CF logs "invalid
     * mode"; RLRunLoopRunInMode reports it, as the embedding calls do) */
    g_last_code = 0;
    CHECK(RLRunLoopRunInMode(kRLRunLoopCommonModes, 0, false) == kRLRunLoopRunFinished);
    CHECK(g_last_code == kRLErrorInvalidArgument);

    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    other_close(&o);
    return NULL;
}

/* ---- C: a wake-up while prepared for an empty or missing mode ---------- */

static void c_timer(RLRunLoopTimerRef t, void *info) {}

static void *scenario_c(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    RLRunLoopMode empty = MODE("embed.empty"), missing = MODE("embed.missing");
    /* a mode that exists and holds nothing: made by an item, then emptied */
    RLRunLoopTimerRef t = new_timer(now() + 100, 0, c_timer, NULL);
    RLRunLoopAddTimer(rl, t, empty);
    RLRunLoopRemoveTimer(rl, t, empty);
    RLRelease(t);

    RLRunLoopMode modes[] = { empty, missing };
    for (int i = 0; i < 2; i++) {
        CHECK(isinf(RLRunLoopGetTimeout(rl, modes[i])));
        CHECK(!readable(fd, 0));
        RLRunLoopWakeUp(rl);
        CHECK(readable(fd, 0));  /* a wake-up tells the driver */
        CHECK(RLRunLoopRunPending(rl, modes[i]) == kRLRunLoopRunFinished);
        CHECK(!readable(fd, 0));  /* ... once */
        RLRunLoopWakeUp(rl);
        long rounds = drive(rl, fd, modes[i], 0.2);
        fprintf(stderr, "C: %ld rounds in 0.2 s after a wake-up, prepared for the %s mode\n",
                rounds, i == 0 ? "empty" : "missing");
        CHECK(rounds <= MAX_QUIET_ROUNDS);
    }
    return NULL;
}

/* ---- D: an always-ready descriptor of another mode ---------------------- */

static int d_null;
static int d_port(void *info) { return d_null; }
static void d_perform(void *info) { (*(int *)info)++; }

static void *scenario_d(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    d_null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    CHECK(d_null >= 0);
    int performed = 0;
    RLRunLoopSourceRef s = new_fd_source(0, &performed, d_port, d_perform);
    RLRunLoopAddSource(rl, s, OTHER);
    CHECK(RLRunLoopGetTimeout(rl, OTHER) == 0);  /* always ready there */
    RLRunLoopMode missing = MODE("embed.missing");
    /* (it may be readable once: the wake-up the always-ready descriptor
     * made while the loop was prepared for the other mode) */
    CHECK(isinf(RLRunLoopGetTimeout(rl, missing)));
    long rounds = drive(rl, fd, missing, 0.2);
    fprintf(stderr, "D: %ld rounds in 0.2 s beside an always-ready descriptor of another mode\n", rounds);
    CHECK(rounds <= MAX_QUIET_ROUNDS);
    CHECK(!readable(fd, 0));
    CHECK(performed == 0);
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    close(d_null);
    return NULL;
}

int main(void)
{
    alarm(getenv("RL_UNDER_VALGRIND") ? 250 : 60);  /* a hang fails */
    RLSetErrorHandler(record, NULL);
    on_thread(scenario_a);
    on_thread(scenario_b);
    on_thread(scenario_c);
    on_thread(scenario_d);
    if (harness_failures) fprintf(stderr, "%d check(s) failed\n", harness_failures);
    return harness_failures;
}
