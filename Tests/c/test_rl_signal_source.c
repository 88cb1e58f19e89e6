/*
 * test_rl_signal_source — RLSignal (runloop/watch.h): Unix signals as
 * run-loop sources (runloop-only; no trace, checks only).
 *   A. Signals that cannot be caught (0, SIGKILL, SIGSTOP, SIGSEGV, the C
 *      library's reserved 32, out of range) and a NULL callout: NULL with
 *      kRLErrorInvalidArgument, never a crash; a handle of another type:
 *      kRLErrorWrongType.
 *   B. Signals raised before the loop runs are delivered once it runs, in
 *      one callout with their count; a signal later gives another callout.
 *   C. The disposition: replaced while watched, put back (SIG_IGN, the
 *      program's handler, SIG_DFL) when the last watcher goes, also by
 *      the last RLRelease; not before (two watchers, one invalidated).
 *   D. Three loops on three threads, each with its own RLSignal of one
 *      signal: one kill() reaches each of them once.
 *   E. 10,000 signals sent by kill() as fast as it returns (1,000 under
 *      valgrind) to a loop on another thread: all counted; and as many
 *      real-time signals from a child process: all counted.
 *   F. fork(): the child starts with no watchers (SIG_DFL back, the
 *      parent's RLSignal refused with kRLErrorForked) and can watch anew.
 *   G. A callout that invalidates its RLSignal: no further callout, info
 *      released once.
 *   H. Stress of the handler's lock-free table: three threads start and
 *      end watches (and run them) while another thread floods the signal;
 *      no crash, every watch's end waits out the handler, and the
 *      disposition is SIG_DFL at the end.
 */
#include "harness.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>

struct counter {
    atomic_long total;
    atomic_int callouts;
    int32_t last_signo;
    RLIndex last_count;
    int stop_at;   /* stop the loop once total reaches it (0: after each callout) */
    int invalidate; /* invalidate the RLSignal in the callout */
};

static void count_signal(RLSignalRef s, int32_t signo, RLIndex count, void *info)
{
    struct counter *c = info;
    c->last_signo = signo;
    c->last_count = count;
    long total = atomic_fetch_add(&c->total, count) + count;
    atomic_fetch_add(&c->callouts, 1);
    if (c->invalidate) RLSignalInvalidate(s);
    if (c->stop_at == 0 || total >= c->stop_at) RLRunLoopStop(RLRunLoopGetCurrent());
}

static int releases;
static void release_info(const void *info) { (void)info; releases++; }

static RLSignalRef watch(int signo, struct counter *c)
{
    RLSignalContext ctx = { 0, c, NULL, release_info, NULL };
    return RLSignalCreate(NULL, signo, count_signal, &ctx);
}

static void add_to_current(RLSignalRef s)
{
    RLRunLoopSourceRef src = RLSignalCreateRunLoopSource(NULL, s, 0);
    CHECK(src != NULL);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), src, kRLRunLoopDefaultMode);
    RLRelease(src);
}

static void *disposition(int signo)
{
    struct sigaction sa;
    sigaction(signo, NULL, &sa);
    return (void *)sa.sa_handler;
}

static void test_bad_input(void)
{
    struct counter c = { 0 };
    int bad[] = { 0, -1, SIGKILL, SIGSTOP, SIGSEGV, 32, 65, 1000 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        RLClearLastError();
        CHECK(watch(bad[i], &c) == NULL);
        CHECK(RLGetLastError() == kRLErrorInvalidArgument);
    }
    CHECK(releases == 0);  /* info given back by a failed create: no release */
    RLClearLastError();
    CHECK(RLSignalCreate(NULL, SIGUSR1, NULL, NULL) == NULL);
    CHECK(RLGetLastError() == kRLErrorInvalidArgument);
    CHECK(disposition(SIGUSR1) == (void *)SIG_DFL);
    RLClearLastError();
    CHECK(RLSignalGetSignal((RLSignalRef)RLRunLoopGetCurrent()) == 0);
    CHECK(RLGetLastError() == kRLErrorWrongType);
    RLClearLastError();
    CHECK(RLSignalIsValid(NULL) == 0);
    CHECK(RLGetLastError() == kRLErrorNullHandle);
}

static void test_delivery(void)
{
    struct counter c = { 0 };
    RLSignalRef s = watch(SIGUSR1, &c);
    CHECK(s != NULL && RLSignalIsValid(s));
    CHECK(RLSignalGetSignal(s) == SIGUSR1);
    CHECK(RLGetTypeID(s) == RLSignalGetTypeID());
    raise(SIGUSR1);
    raise(SIGUSR1);
    raise(SIGUSR1);
    add_to_current(s);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5, false);
    CHECK(atomic_load(&c.callouts) == 1);
    CHECK(c.last_signo == SIGUSR1 && c.last_count == 3);
    raise(SIGUSR1);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5, false);
    CHECK(atomic_load(&c.callouts) == 2 && c.last_count == 1);
    /* Nothing pending: the loop times out without a callout. */
    CHECK(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, false) == kRLRunLoopRunTimedOut);
    CHECK(atomic_load(&c.callouts) == 2);
    releases = 0;
    RLSignalInvalidate(s);
    CHECK(releases == 1 && !RLSignalIsValid(s));
    CHECK(RLSignalCreateRunLoopSource(NULL, s, 0) == NULL);
    RLRelease(s);
    CHECK(disposition(SIGUSR1) == (void *)SIG_DFL);
}

static atomic_int program_handler_runs;
static void program_handler(int signo) { (void)signo; atomic_fetch_add(&program_handler_runs, 1); }

static void test_dispositions(void)
{
    struct counter c = { 0 };
    signal(SIGUSR2, SIG_IGN);
    RLSignalRef a = watch(SIGUSR2, &c), b = watch(SIGUSR2, &c);
    CHECK(a && b);
    CHECK(disposition(SIGUSR2) != (void *)SIG_IGN);
    RLSignalInvalidate(a);
    CHECK(disposition(SIGUSR2) != (void *)SIG_IGN);  /* b still watches */
    RLRelease(b);                                     /* the last reference */
    CHECK(disposition(SIGUSR2) == (void *)SIG_IGN);
    RLRelease(a);

    signal(SIGUSR2, program_handler);
    RLSignalRef d = watch(SIGUSR2, &c);
    raise(SIGUSR2);
    CHECK(atomic_load(&program_handler_runs) == 0);   /* replaced while watched */
    RLRelease(d);
    CHECK(disposition(SIGUSR2) == (void *)program_handler);
    raise(SIGUSR2);
    CHECK(atomic_load(&program_handler_runs) == 1);
    signal(SIGUSR2, SIG_DFL);
}

/* D: several loops, several threads. */
#define LOOPS 3
static pthread_barrier_t ready;
static struct counter loop_counters[LOOPS];

static void *loop_thread(void *arg)
{
    struct counter *c = arg;
    RLSignalRef s = watch(SIGUSR2, c);
    add_to_current(s);
    pthread_barrier_wait(&ready);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 20, false);
    RLSignalInvalidate(s);
    RLRelease(s);
    return NULL;
}

static void test_several_loops(void)
{
    pthread_t threads[LOOPS];
    pthread_barrier_init(&ready, NULL, LOOPS + 1);
    for (int i = 0; i < LOOPS; i++) pthread_create(&threads[i], NULL, loop_thread, &loop_counters[i]);
    pthread_barrier_wait(&ready);
    kill(getpid(), SIGUSR2);
    for (int i = 0; i < LOOPS; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < LOOPS; i++) {
        CHECK(atomic_load(&loop_counters[i].total) == 1);
        CHECK(loop_counters[i].last_signo == SIGUSR2);
    }
    pthread_barrier_destroy(&ready);
    CHECK(disposition(SIGUSR2) == (void *)SIG_DFL);
}

/* E: the counts. */
struct flood { int signo; int n; struct counter c; RLSignalRef s; };

static void *flood_loop(void *arg)
{
    struct flood *f = arg;
    add_to_current(f->s);
    pthread_barrier_wait(&ready);
    while (atomic_load(&f->c.total) < f->n)
        if (RLRunLoopRunInMode(kRLRunLoopDefaultMode, 30, false) == kRLRunLoopRunTimedOut) break;
    return NULL;
}

static void flood(int signo, int n, int from_child)
{
    struct flood f = { signo, n, { 0 }, NULL };
    f.c.stop_at = n;
    f.s = watch(signo, &f.c);
    CHECK(f.s != NULL);
    pthread_t t;
    pthread_barrier_init(&ready, NULL, 2);
    pthread_create(&t, NULL, flood_loop, &f);
    pthread_barrier_wait(&ready);
    if (from_child) {
        pid_t parent = getpid();
        pid_t child = fork();
        if (child == 0) {
            for (int i = 0; i < n; i++)
                while (kill(parent, signo) != 0 && errno == EAGAIN) usleep(100);  /* queue full */
            _exit(0);
        }
        int status = 0;
        waitpid(child, &status, 0);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    } else {
        for (int i = 0; i < n; i++) kill(getpid(), signo);
    }
    pthread_join(t, NULL);
    if (atomic_load(&f.c.total) != n) fprintf(stderr, "signal %d: %ld of %d counted\n", signo, atomic_load(&f.c.total), n);
    CHECK(atomic_load(&f.c.total) == n);
    pthread_barrier_destroy(&ready);
    RLSignalInvalidate(f.s);
    RLRelease(f.s);
}

/* F: fork. */
static void test_fork(void)
{
    struct counter c = { 0 };
    RLSignalRef s = watch(SIGUSR1, &c);
    add_to_current(s);
    pid_t child = fork();
    if (child == 0) {
        int bad = 0;
        if (disposition(SIGUSR1) != (void *)SIG_DFL) bad |= 1;
        RLClearLastError();
        if (RLSignalIsValid(s) != 0 || RLGetLastError() != kRLErrorForked) bad |= 2;
        struct counter cc = { 0 };
        RLSignalRef mine = watch(SIGUSR1, &cc);
        if (!mine) bad |= 4;
        else {
            add_to_current(mine);
            raise(SIGUSR1);
            RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5, false);
            if (atomic_load(&cc.total) != 1) bad |= 8;
            RLSignalInvalidate(mine);
            if (disposition(SIGUSR1) != (void *)SIG_DFL) bad |= 16;
        }
        _exit(bad);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) fprintf(stderr, "fork child: status %#x\n", status);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The parent still watches. */
    CHECK(disposition(SIGUSR1) != (void *)SIG_DFL);
    raise(SIGUSR1);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5, false);
    CHECK(atomic_load(&c.total) == 1);
    RLSignalInvalidate(s);
    RLRelease(s);
}

static void test_invalidate_in_callout(void)
{
    struct counter c = { 0 };
    c.invalidate = 1;
    releases = 0;
    RLSignalRef s = watch(SIGUSR1, &c);
    add_to_current(s);
    raise(SIGUSR1);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 5, false);
    CHECK(atomic_load(&c.callouts) == 1 && releases == 1);
    CHECK(disposition(SIGUSR1) == (void *)SIG_DFL);
    RLRelease(s);
    CHECK(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.02, false) != kRLRunLoopRunHandledSource);
    CHECK(atomic_load(&c.callouts) == 1 && releases == 1);
}

/* H. */
static atomic_int churning;
static int churn_rounds;

static void *churn(void *arg)
{
    (void)arg;
    for (int i = 0; i < churn_rounds; i++) {
        struct counter c = { 0 };
        RLSignalRef s = watch(SIGUSR2, &c);
        if (!s) { CHECK(s != NULL); break; }
        add_to_current(s);
        RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, false);
        RLSignalInvalidate(s);
        RLRelease(s);
    }
    atomic_fetch_sub(&churning, 1);
    return NULL;
}

static void test_churn(int rounds)
{
    struct counter keep = { 0 };
    RLSignalRef base = watch(SIGUSR2, &keep);  /* the flood never meets SIG_DFL */
    pthread_t threads[3];
    churn_rounds = rounds;
    atomic_store(&churning, 3);
    for (int i = 0; i < 3; i++) pthread_create(&threads[i], NULL, churn, NULL);
    while (atomic_load(&churning) > 0) kill(getpid(), SIGUSR2);
    for (int i = 0; i < 3; i++) pthread_join(threads[i], NULL);
    RLSignalInvalidate(base);
    RLRelease(base);
    CHECK(disposition(SIGUSR2) == (void *)SIG_DFL);
}

int main(void)
{
    int valgrind = getenv("RL_UNDER_VALGRIND") != NULL;
    alarm(valgrind ? 250 : 60);  /* a hang fails */
    test_bad_input();
    test_delivery();
    test_dispositions();
    test_several_loops();
    flood(SIGUSR1, valgrind ? 1000 : 10000, 0);
    flood(SIGRTMIN + 1, valgrind ? 1000 : 10000, 1);
    test_fork();
    test_invalidate_in_callout();
    test_churn(valgrind ? 100 : 2000);
    return harness_failures;
}
