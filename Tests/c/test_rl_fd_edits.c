/*
 * test_rl_fd_edits — the wait set follows version-1 sources added to and
 * removed from the mode being run one descriptor at a time (runloop-only:
 * CF's Linux port has no fd sources).
 *   A. 300 sources added from a callout of the running mode, their pipes
 *      made readable: each is performed once in the same run.
 *   B. Half of them invalidated from a callout (and their pipes closed at
 *      once, as a careful user does): the others still fire, the removed
 *      ones never, and no error is reported (no ghost registration).
 *   C. Two sources on one descriptor: invalidating one keeps the other
 *      watched; invalidating both stops the descriptor waking the loop.
 *   D. A source removed by name and added back fires again.
 *   E. Sources added while the loop runs another mode are watched when
 *      the first mode runs again.
 *   F. A burst of ready sources whose first callout invalidates the others
 *      and drops their last references: only that one is performed, the
 *      others are freed once the burst is done with them (the burst holds
 *      a reference to each; memcheck and ASan watch this), nothing is
 *      reported.
 */
#include "harness.h"

#include <fcntl.h>
#include <unistd.h>

enum { N = 300 };

struct pipe_source { int fds[2]; int performs; RLRunLoopSourceRef src; };

static struct pipe_source pipes[N];
static int errors_seen;

static void count_error(RLErrorCode code, const char *function, const char *message, void *info)
{
    (void)code; (void)info;
    fprintf(stderr, "error from %s: %s\n", function, message);
    errors_seen++;
}

static int pipe_port(void *info) { return ((struct pipe_source *)info)->fds[0]; }
static void pipe_perform(void *info)
{
    struct pipe_source *p = info;
    char c;
    while (read(p->fds[0], &c, 1) == 1) {}
    p->performs++;
}

static RLRunLoopSourceRef make_source(struct pipe_source *p, int fd_from)
{
    if (fd_from < 0) CHECK(pipe2(p->fds, O_CLOEXEC | O_NONBLOCK) == 0);
    return new_fd_source(0, p, pipe_port, pipe_perform);
}

static void poke(struct pipe_source *p) { CHECK(write(p->fds[1], "x", 1) == 1); }

static int sum_performs(int from, int to)
{
    int n = 0;
    for (int i = from; i < to; i++) n += pipes[i].performs;
    return n;
}

/* Runs the default mode in slices of at most 50 ms until `done` or 2 s. */
static void run_until(int (*done)(void))
{
    double end = now() + 2.0;
    while (!done() && now() < end) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, true);
}

static void add_all(RLRunLoopTimerRef t, void *info)
{
    (void)t; (void)info;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    for (int i = 0; i < N; i++) {
        pipes[i].src = make_source(&pipes[i], -1);
        RLRunLoopAddSource(rl, pipes[i].src, kRLRunLoopDefaultMode);
        poke(&pipes[i]);
    }
}

static void drop_half(RLRunLoopTimerRef t, void *info)
{
    (void)t; (void)info;
    for (int i = 0; i < N; i += 2) {
        RLRunLoopSourceInvalidate(pipes[i].src);
        RLRelease(pipes[i].src);
        pipes[i].src = NULL;
        close(pipes[i].fds[0]);
        close(pipes[i].fds[1]);
    }
    for (int i = 1; i < N; i += 2) poke(&pipes[i]);
}

static int all_once(void) { return sum_performs(0, N) >= N; }
static int odd_twice(void)
{
    for (int i = 1; i < N; i += 2) if (pipes[i].performs < 2) return 0;
    return 1;
}

static void once(RLRunLoopTimerCallBack fn)
{
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent(), 0, 0, 0, fn, NULL);
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), t, kRLRunLoopDefaultMode);
    RLRelease(t);
}

enum { BURST = 8 };
static struct pipe_source burst[BURST];
static int burst_performs;

static void burst_perform(void *info)
{
    struct pipe_source *p = info;
    char c;
    while (read(p->fds[0], &c, 1) == 1) {}
    if (burst_performs++ > 0) return;
    for (int i = 0; i < BURST; i++) {
        if (&burst[i] == p) continue;
        RLRunLoopSourceInvalidate(burst[i].src);
        RLRelease(burst[i].src);  /* the last reference the test holds */
        burst[i].src = NULL;
    }
}

static struct pipe_source shared_a, shared_b;
static int shared_done(void) { return shared_a.performs + shared_b.performs > 0; }

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLSetErrorHandler(count_error, NULL);
    /* keeps the mode alive between the steps */
    struct pipe_source keep;
    RLRunLoopSourceRef keeper = make_source(&keep, -1);
    RLRunLoopAddSource(rl, keeper, kRLRunLoopDefaultMode);

    /* A */
    once(add_all);
    run_until(all_once);
    CHECK(sum_performs(0, N) == N);
    TRACE("A: %d of %d performed", sum_performs(0, N), N);

    /* B */
    once(drop_half);
    run_until(odd_twice);
    CHECK(odd_twice());
    int even = 0;
    for (int i = 0; i < N; i += 2) even += pipes[i].performs;
    CHECK(even == N / 2);  /* once each, in A; never after their removal */
    CHECK(errors_seen == 0);
    TRACE("B: kept fired again %d, removed fired again %d, errors %d", odd_twice(), even - N / 2, errors_seen);

    /* C: two sources on one pipe */
    RLRunLoopSourceRef a = make_source(&shared_a, -1);
    shared_b.fds[0] = shared_a.fds[0];
    shared_b.fds[1] = shared_a.fds[1];
    RLRunLoopSourceRef b = make_source(&shared_b, 0);
    RLRunLoopAddSource(rl, a, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, b, kRLRunLoopDefaultMode);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, false);
    RLRunLoopSourceInvalidate(a);
    poke(&shared_a);
    run_until(shared_done);
    CHECK(shared_a.performs == 0 && shared_b.performs == 1);
    RLRunLoopSourceInvalidate(b);
    poke(&shared_a);
    double t0 = now();
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.1, true);
    CHECK(r == kRLRunLoopRunTimedOut && now() - t0 >= 0.09);
    CHECK(shared_b.performs == 1);
    TRACE("C: survivor fired %d, both gone: %s", shared_b.performs, r == kRLRunLoopRunTimedOut ? "timed out" : "woke");
    RLRelease(a);
    RLRelease(b);
    close(shared_a.fds[0]);
    close(shared_a.fds[1]);

    /* D */
    RLRunLoopRemoveSource(rl, pipes[1].src, kRLRunLoopDefaultMode);
    poke(&pipes[1]);
    pipes[1].performs = 0;
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.02, true);
    CHECK(pipes[1].performs == 0);
    RLRunLoopAddSource(rl, pipes[1].src, kRLRunLoopDefaultMode);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.5, true);
    CHECK(pipes[1].performs == 1);
    TRACE("D: removed fired %d, added back fired %d", 0, pipes[1].performs);

    /* E: add to the default mode while another mode runs */
    RLRunLoopMode other = MODE("other");
    RLRunLoopAddSource(rl, keeper, other);
    RLRunLoopRunInMode(other, 0, false);
    RLRunLoopSourceRef late = make_source(&shared_a, -1);
    RLRunLoopAddSource(rl, late, kRLRunLoopDefaultMode);
    poke(&shared_a);
    RLRunLoopRunInMode(other, 0.02, true);
    CHECK(shared_a.performs == 0);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.5, true);
    CHECK(shared_a.performs == 1);
    TRACE("E: fired in the other mode %d, in its own %d", 0, shared_a.performs);
    RLRunLoopSourceInvalidate(late);
    RLRelease(late);
    close(shared_a.fds[0]);
    close(shared_a.fds[1]);

    /* F */
    for (int i = 0; i < BURST; i++) {
        CHECK(pipe2(burst[i].fds, O_CLOEXEC | O_NONBLOCK) == 0);
        burst[i].src = new_fd_source(0, &burst[i], pipe_port, burst_perform);
        RLRunLoopAddSource(rl, burst[i].src, kRLRunLoopDefaultMode);
    }
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, false);  /* all watched */
    for (int i = 0; i < BURST; i++) poke(&burst[i]);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.5, true);
    int survivors = 0;
    for (int i = 0; i < BURST; i++) survivors += burst[i].src != NULL;
    CHECK(r == kRLRunLoopRunHandledSource && burst_performs == 1 && survivors == 1);
    TRACE("F: %s, performed %d of %d, survivors %d", r == kRLRunLoopRunHandledSource ? "handled" : "not handled",
          burst_performs, BURST, survivors);
    for (int i = 0; i < BURST; i++) {
        if (burst[i].src) {
            RLRunLoopSourceInvalidate(burst[i].src);
            RLRelease(burst[i].src);
        }
        close(burst[i].fds[0]);
        close(burst[i].fds[1]);
    }

    for (int i = 1; i < N; i += 2) {
        RLRunLoopSourceInvalidate(pipes[i].src);
        RLRelease(pipes[i].src);
        close(pipes[i].fds[0]);
        close(pipes[i].fds[1]);
    }
    RLRunLoopSourceInvalidate(keeper);
    RLRelease(keeper);
    close(keep.fds[0]);
    close(keep.fds[1]);
    CHECK(errors_seen == 0);
    RLSetErrorHandler(NULL, NULL);
}

int main(void)
{
    run_on_thread(scenario);
    return harness_failures;
}
