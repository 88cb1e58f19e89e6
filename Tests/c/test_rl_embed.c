/*
 * test_rl_embed — driving a loop from outside (RLRunLoopGetPollDescriptor,
 * RLRunLoopGetTimeout, RLRunLoopRunPending), each scenario on a thread of
 * its own:
 *   A. the descriptor: one number per loop; an empty mode has timeout
 *      INFINITY and the descriptor is not readable;
 *   B. level-triggered by construction: two signalled sources make it
 *      readable (timeout 0); a run whose callout signals again leaves it
 *      readable; the run after that leaves it quiet; observers and result
 *      are those of a zero-second run (no BeforeWaiting/AfterWaiting);
 *   C. a timer: the timeout is the time to it, the descriptor becomes
 *      readable by itself when it is due (no timeout given to poll);
 *   D. work from another thread: a queued function + wake-up, and
 *      SignalAndWakeUp, make a waiting poll() return;
 *   E. a version-1 source's descriptor: readable while unread;
 *   F. a timer added from another thread to the prepared mode wakes the
 *      poll;
 *   G. another thread's RunPending / GetTimeout: kRLErrorWrongThread,
 *      nothing run, the work still pending;
 *   H. a loop whose thread exited: the descriptor stays readable while a
 *      handle is held, the calls report kRLErrorLoopGone, the last release
 *      closes it;
 *   I. the descriptor closed by mistake (and its number reused): no work
 *      lost, kRLErrorInvalidArgument, a new descriptor works, the reused
 *      number is not touched;
 *   J. RunPending from a callout is a nested run; GetTimeout from a
 *      callout reports 0 without preparing;
 *   K. the loop's wait set rebuilt to drop a ghost registration: the poll
 *      descriptor follows the new set;
 *   L. an RLFileDescriptor's callbacks enabled from another thread while
 *      the loop is prepared: the descriptor reports its readiness;
 *   M. prepared for a mode that does not exist yet (timeout INFINITY): a
 *      timer added to it afterwards makes the descriptor readable, and the
 *      next prepare reports the timer;
 *   N. the descriptor closed by mistake and its number taken by an open():
 *      RLRunLoopGetPollDescriptor itself notices (before any prepare or
 *      run), reports kRLErrorInvalidArgument once, and returns a new,
 *      working descriptor, never the stolen number.
 * No trace file: the checks are the test.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

static RLErrorCode g_last_code;
static void record(RLErrorCode code, const char *fn, const char *msg, void *info) { g_last_code = code; }

static int readable(int fd, int ms)
{
    struct pollfd p = { fd, POLLIN, 0 };
    int n = poll(&p, 1, ms);
    return n == 1 && (p.revents & POLLIN);
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void embed_thread(void *(*fn)(void *))
{
    pthread_t t;
    pthread_create(&t, NULL, fn, NULL);
    pthread_join(t, NULL);
}

#define M MODE("embed")

/* A version-0 source whose perform counts and may signal another. */
typedef struct {
    int performed;
    RLRunLoopSourceRef resignal;  /* signalled by the first perform, if set */
    RLRunLoopRef nested_rl;       /* J: run pending nested from the perform */
    int nested_result;
    double nested_timeout;
} counter_t;

static void counter_perform(void *info)
{
    counter_t *c = info;
    c->performed++;
    if (c->resignal && c->performed == 1) RLRunLoopSourceSignal(c->resignal);
    if (c->nested_rl) {
        c->nested_timeout = RLRunLoopGetTimeout(c->nested_rl, M);
        c->nested_result = RLRunLoopRunPending(c->nested_rl, M);
    }
}

static RLRunLoopSourceRef counter_source(counter_t *c, RLIndex order)
{
    RLRunLoopSourceContext ctx = { 0 };
    ctx.info = c;
    ctx.perform = counter_perform;
    return RLRunLoopSourceCreate(NULL, order, &ctx);
}

/* ---- A ------------------------------------------------------------------ */

static void *scenario_a(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    CHECK(fd >= 0);
    CHECK(RLRunLoopGetPollDescriptor(rl) == fd);
    CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    CHECK(isinf(RLRunLoopGetTimeout(rl, M)));
    CHECK(!readable(fd, 0));
    CHECK(RLRunLoopRunPending(rl, M) == kRLRunLoopRunFinished);
    CHECK(!readable(fd, 0));
    RLClearLastError();
    CHECK(RLRunLoopGetPollDescriptor(NULL) == -1 && RLGetLastError() == kRLErrorNullHandle);
    CHECK(RLRunLoopRunPending(rl, NULL) == kRLRunLoopRunFinished && RLGetLastError() == kRLErrorInvalidArgument);
    return NULL;
}

/* ---- B ------------------------------------------------------------------ */

static char b_log[256];
static void b_observe(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    const char *name = a == kRLRunLoopEntry ? "E" : a == kRLRunLoopBeforeTimers ? "T" : a == kRLRunLoopBeforeSources ? "S"
                     : a == kRLRunLoopBeforeWaiting ? "W" : a == kRLRunLoopAfterWaiting ? "A" : a == kRLRunLoopExit ? "X" : "?";
    strncat(b_log, name, sizeof b_log - strlen(b_log) - 1);
}

static void *scenario_b(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    counter_t c1 = { 0 }, c2 = { 0 };
    RLRunLoopSourceRef s1 = counter_source(&c1, 0), s2 = counter_source(&c2, 1);
    c2.resignal = s1;  /* s2's perform (order 1) signals s1 again, after s1's perform */
    RLRunLoopAddSource(rl, s1, M);
    RLRunLoopAddSource(rl, s2, M);
    RLRunLoopObserverRef o = RLRunLoopObserverCreate(NULL, kRLRunLoopAllActivities, 1, 0, b_observe, NULL);
    RLRunLoopAddObserver(rl, o, M);

    CHECK(isinf(RLRunLoopGetTimeout(rl, M)));
    CHECK(!readable(fd, 0));
    RLRunLoopSourceSignal(s1);
    RLRunLoopSourceSignal(s2);
    CHECK(RLRunLoopGetTimeout(rl, M) == 0);  /* prepare sees the signals */
    CHECK(readable(fd, 0));
    CHECK(readable(fd, 0));  /* polling does not consume it */

    CHECK(RLRunLoopRunPending(rl, M) == kRLRunLoopRunTimedOut);
    CHECK(c1.performed == 1 && c2.performed == 1);
    CHECK(strcmp(b_log, "ETSX") == 0);
    /* s1 was signalled again by s2's perform, after the pass performed it */
    CHECK(readable(fd, 0));
    CHECK(RLRunLoopGetTimeout(rl, M) == 0);
    CHECK(RLRunLoopRunPending(rl, M) == kRLRunLoopRunTimedOut);
    CHECK(c1.performed == 2 && c2.performed == 1);
    CHECK(!readable(fd, 0));
    CHECK(isinf(RLRunLoopGetTimeout(rl, M)));
    CHECK(!readable(fd, 0));

    /* a source that signals itself: left for the next run, readable meanwhile */
    RLRunLoopSourceSignal(s1);
    c2.resignal = NULL;
    c1.resignal = s1;  /* performs once per run, signals itself on the first */
    c1.performed = 0;
    RLRunLoopRunPending(rl, M);
    CHECK(c1.performed == 1);
    CHECK(readable(fd, 0));
    RLRunLoopRunPending(rl, M);
    CHECK(c1.performed == 2);
    CHECK(!readable(fd, 0));

    RLRunLoopSourceInvalidate(s1);
    RLRunLoopSourceInvalidate(s2);
    RLRunLoopObserverInvalidate(o);
    RLRelease(s1);
    RLRelease(s2);
    RLRelease(o);
    return NULL;
}

/* ---- C ------------------------------------------------------------------ */

static int c_fired;
static void c_timer(RLRunLoopTimerRef t, void *info) { c_fired++; }

static void *scenario_c(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    double start = mono();
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, now() + 0.1, 0, 0, 0, c_timer, NULL);
    RLRunLoopAddTimer(rl, t, M);
    double timeout = RLRunLoopGetTimeout(rl, M);
    int early = mono() - start < 0.05;  /* bounds, not a race: valgrind may be slow */
    CHECK(timeout >= 0 && timeout <= 0.1);
    if (early) CHECK(timeout > 0.04);
    if (early) CHECK(!readable(fd, 0));
    CHECK(readable(fd, 2000));  /* the descriptor alone tells: the timerfd */
    double waited = mono() - start;
    CHECK(waited >= 0.09 && waited < (getenv("RL_UNDER_VALGRIND") ? 10 : 1.5));
    CHECK(RLRunLoopGetTimeout(rl, M) == 0);
    CHECK(RLRunLoopRunPending(rl, M) == kRLRunLoopRunTimedOut);
    CHECK(c_fired == 1);
    CHECK(!readable(fd, 0));
    /* a repeating timer: re-armed after each run */
    RLRunLoopTimerRef r = RLRunLoopTimerCreate(NULL, now() + 0.02, 0.02, 0, 0, c_timer, NULL);
    RLRunLoopAddTimer(rl, r, M);
    RLRunLoopGetTimeout(rl, M);
    int runs = 0;
    start = mono();
    while (c_fired < 4 && mono() - start < 3) {
        CHECK(readable(fd, 2000));
        RLRunLoopRunPending(rl, M);
        runs++;
    }
    CHECK(c_fired == 4);
    CHECK(runs <= (getenv("RL_UNDER_VALGRIND") ? 8 : 4));  /* at most one spare run: the add's wake-up */
    RLRunLoopTimerInvalidate(r);
    RLRelease(r);
    RLRelease(t);
    return NULL;
}

/* ---- D, F, G: another thread ---------------------------------------------- */

static RLRunLoopRef g_rl;
static RLRunLoopSourceRef g_source;
static volatile int g_fn_ran;
static RLErrorCode g_other_code[2];
static int g_other_result;
static double g_other_timeout;

static void d_fn(void *info) { g_fn_ran++; }

static void *d_producer(void *arg)
{
    long what = (long)arg;
    /* the gate: the loop is prepared (waited for from outside) with
     * nothing pending, so the calls below take the eventfd path */
    if (what < 3) CHECK(wait_until_waiting(g_rl));
    if (what == 0) {
        RLRunLoopPerformFunction(g_rl, M, d_fn, NULL);
        RLRunLoopWakeUp(g_rl);
    } else if (what == 1) {
        RLRunLoopSourceSignalAndWakeUp(g_source);
    } else if (what == 2) {
        RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, now() + 0.05, 0, 0, 0, c_timer, NULL);
        RLRunLoopAddTimer(g_rl, t, M);
        RLRelease(t);
    } else {
        RLClearLastError();
        g_other_result = RLRunLoopRunPending(g_rl, M);
        g_other_code[0] = RLGetLastError();
        RLClearLastError();
        g_other_timeout = RLRunLoopGetTimeout(g_rl, M);
        g_other_code[1] = RLGetLastError();
    }
    return NULL;
}

static void other_thread(long what)
{
    pthread_t t;
    pthread_create(&t, NULL, d_producer, (void *)what);
    if (what == 3) pthread_join(t, NULL);
    else {
        int fd = RLRunLoopGetPollDescriptor(g_rl);
        CHECK(readable(fd, 5000));
        pthread_join(t, NULL);
    }
}

static void *scenario_dfg(void *arg)
{
    g_rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(g_rl);
    counter_t c = { 0 };
    g_source = counter_source(&c, 0);
    RLRunLoopAddSource(g_rl, g_source, M);

    CHECK(isinf(RLRunLoopGetTimeout(g_rl, M)));
    other_thread(0);
    RLRunLoopRunPending(g_rl, M);
    CHECK(g_fn_ran == 1);
    CHECK(!readable(fd, 0));

    other_thread(1);
    RLRunLoopRunPending(g_rl, M);
    CHECK(c.performed == 1);
    CHECK(!readable(fd, 0));

    c_fired = 0;
    other_thread(2);  /* F */
    double start = mono();
    while (c_fired == 0 && mono() - start < 5) {
        readable(fd, 1000);
        RLRunLoopRunPending(g_rl, M);
    }
    CHECK(c_fired == 1);

    /* G */
    RLRunLoopSourceSignal(g_source);
    CHECK(RLRunLoopGetTimeout(g_rl, M) == 0);
    other_thread(3);
    CHECK(g_other_result == kRLRunLoopRunFinished && g_other_code[0] == kRLErrorWrongThread);
    CHECK(g_other_timeout == 0 && g_other_code[1] == kRLErrorWrongThread);
    CHECK(c.performed == 1);  /* nothing run there */
    CHECK(readable(fd, 0));
    RLRunLoopRunPending(g_rl, M);
    CHECK(c.performed == 2);

    RLRunLoopSourceInvalidate(g_source);
    RLRelease(g_source);
    return NULL;
}

/* ---- E ------------------------------------------------------------------ */

static int e_pipe[2];
static int e_performed;
static int e_get_port(void *info) { return e_pipe[0]; }
static void e_perform(void *info) { e_performed++; }

static void *scenario_e(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    CHECK(pipe(e_pipe) == 0);
    RLRunLoopSourceRef s = new_fd_source(0, NULL, e_get_port, e_perform);
    RLRunLoopAddSource(rl, s, M);
    CHECK(isinf(RLRunLoopGetTimeout(rl, M)));
    CHECK(!readable(fd, 0));
    CHECK(write(e_pipe[1], "x", 1) == 1);
    CHECK(readable(fd, 1000));
    RLRunLoopRunPending(rl, M);
    CHECK(e_performed == 1);
    CHECK(readable(fd, 0));  /* unread: still ready */
    RLRunLoopRunPending(rl, M);
    CHECK(e_performed == 2);
    char byte;
    CHECK(read(e_pipe[0], &byte, 1) == 1);
    RLRunLoopGetTimeout(rl, M);
    CHECK(!readable(fd, 0));
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    close(e_pipe[0]);
    close(e_pipe[1]);
    return NULL;
}

/* ---- H ------------------------------------------------------------------ */

static RLRunLoopRef h_rl;
static int h_fd;

static void *h_thread(void *arg)
{
    h_rl = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    h_fd = RLRunLoopGetPollDescriptor(h_rl);
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, now() + 100, 0, 0, 0, c_timer, NULL);
    RLRunLoopAddTimer(h_rl, t, M);
    RLRelease(t);
    RLRunLoopGetTimeout(h_rl, M);
    CHECK(!readable(h_fd, 0));
    return NULL;
}

static void *scenario_h(void *arg)
{
    embed_thread(h_thread);
    CHECK(h_fd >= 0);
    CHECK(readable(h_fd, 0));  /* readable for good: the driver hears of it */
    CHECK(readable(h_fd, 0));
    RLClearLastError();
    CHECK(RLRunLoopGetPollDescriptor(h_rl) == -1 && RLGetLastError() == kRLErrorLoopGone);
    RLClearLastError();
    CHECK(RLRunLoopRunPending(h_rl, M) == kRLRunLoopRunFinished && RLGetLastError() == kRLErrorLoopGone);
    RLClearLastError();
    CHECK(RLRunLoopGetTimeout(h_rl, M) == 0 && RLGetLastError() == kRLErrorLoopGone);
    CHECK(fcntl(h_fd, F_GETFD) >= 0);
    RLRelease(h_rl);  /* the last handle: the descriptor is closed */
    CHECK(fcntl(h_fd, F_GETFD) == -1 && errno == EBADF);
    return NULL;
}

/* ---- I ------------------------------------------------------------------ */

static void *scenario_i(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    counter_t c = { 0 };
    RLRunLoopSourceRef s = counter_source(&c, 0);
    RLRunLoopAddSource(rl, s, M);
    RLRunLoopGetTimeout(rl, M);

    close(fd);  /* the mistake */
    int reused = open("/dev/null", O_RDONLY);  /* takes the number, most likely */
    RLRunLoopSourceSignalAndWakeUp(s);
    g_last_code = 0;
    CHECK(RLRunLoopRunPending(rl, M) == kRLRunLoopRunTimedOut);
    CHECK(c.performed == 1);  /* the work was not lost */
    CHECK(g_last_code == kRLErrorInvalidArgument);
    CHECK(fcntl(reused, F_GETFD) >= 0);  /* not touched */
    g_last_code = 0;
    int fresh = RLRunLoopGetPollDescriptor(rl);
    CHECK(fresh >= 0 && fresh != reused);
    RLRunLoopGetTimeout(rl, M);
    CHECK(g_last_code == 0);
    CHECK(!readable(fresh, 0));
    RLRunLoopSourceSignalAndWakeUp(s);
    CHECK(readable(fresh, 0));
    RLRunLoopRunPending(rl, M);
    CHECK(c.performed == 2);
    CHECK(fcntl(reused, F_GETFD) >= 0);
    close(reused);
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    return NULL;
}

/* ---- J ------------------------------------------------------------------ */

static void *scenario_j(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    counter_t outer = { 0 }, inner = { 0 };
    RLRunLoopSourceRef so = counter_source(&outer, 0), si = counter_source(&inner, 1);
    outer.resignal = si;
    outer.nested_rl = rl;
    RLRunLoopAddSource(rl, so, M);
    RLRunLoopAddSource(rl, si, M);
    RLRunLoopSourceSignal(so);
    RLRunLoopRunPending(rl, M);
    CHECK(outer.performed == 1);
    CHECK(outer.nested_timeout == 0);  /* si pending */
    CHECK(outer.nested_result == kRLRunLoopRunTimedOut);
    CHECK(inner.performed == 1);  /* by the nested run */
    CHECK(!readable(fd, 0));
    /* the loop still runs natively */
    RLRunLoopSourceSignal(si);
    CHECK(RLRunLoopRunInMode(M, 0, false) == kRLRunLoopRunTimedOut);
    CHECK(inner.performed == 2);
    RLRunLoopSourceInvalidate(so);
    RLRunLoopSourceInvalidate(si);
    RLRelease(so);
    RLRelease(si);
    return NULL;
}

/* ---- K: the wait set rebuilt for a ghost keeps the poll descriptor ------ */

static int k_dup;
static int k_get_port(void *info) { return k_dup; }
static void k_perform(void *info) {}

static void *scenario_k(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    int p[2];
    CHECK(pipe(p) == 0);
    k_dup = dup(p[0]);
    RLRunLoopSourceRef v1 = new_fd_source(0, NULL, k_get_port, k_perform);
    counter_t c = { 0 };
    RLRunLoopSourceRef s = counter_source(&c, 0);
    RLRunLoopAddSource(rl, v1, M);
    RLRunLoopAddSource(rl, s, M);
    RLRunLoopGetTimeout(rl, M);
    close(k_dup);                  /* misuse: closed while watched, file open via p[0] */
    RLRunLoopSourceInvalidate(v1); /* its registration is now a ghost */
    CHECK(write(p[1], "x", 1) == 1);
    CHECK(readable(fd, 2000));     /* the ghost reports */
    RLRunLoopRunPending(rl, M);    /* finds the ghost: the loop's wait set is rebuilt */
    char byte;
    CHECK(read(p[0], &byte, 1) == 1);
    RLRunLoopGetTimeout(rl, M);
    CHECK(!readable(fd, 0));
    RLRunLoopSourceSignalAndWakeUp(s);
    CHECK(readable(fd, 2000));     /* the poll descriptor watches the new set */
    RLRunLoopRunPending(rl, M);
    CHECK(c.performed == 1);
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    RLRelease(v1);
    close(p[0]);
    close(p[1]);
    return NULL;
}

/* ---- L: an RLFileDescriptor enabled from another thread while prepared --- */

static RLFileDescriptorRef l_file;
static int l_called;
static void l_callback(RLFileDescriptorRef f, RLOptionFlags types, void *info) { l_called++; }
static void *l_enable(void *arg)
{
    RLFileDescriptorEnableCallBacks(l_file, kRLFileDescriptorReadCallBack);
    return NULL;
}

static void *scenario_l(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    int p[2];
    CHECK(pipe(p) == 0);
    RLFileDescriptorContext ctx = { 0, NULL, NULL, NULL, NULL };
    l_file = RLFileDescriptorCreate(NULL, p[0], false, l_callback, &ctx);
    RLRunLoopSourceRef src = RLFileDescriptorCreateRunLoopSource(NULL, l_file, 0);
    RLRunLoopAddSource(rl, src, M);
    CHECK(write(p[1], "x", 1) == 1);
    RLRunLoopGetTimeout(rl, M);
    CHECK(!readable(fd, 0));       /* no callback enabled: not watched */
    pthread_t t;
    pthread_create(&t, NULL, l_enable, NULL);
    pthread_join(t, NULL);
    CHECK(readable(fd, 2000));     /* the prepared wait set follows the change */
    RLRunLoopRunPending(rl, M);
    CHECK(l_called == 1);
    RLFileDescriptorInvalidate(l_file);
    RLRelease(src);
    RLRelease(l_file);
    close(p[0]);
    close(p[1]);
    return NULL;
}

/* M */
static int m_fired;
static void m_timer(RLRunLoopTimerRef t, void *info) { m_fired++; }

static void *scenario_m(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    RLRunLoopMode later = MODE("embed.later");
    CHECK(isinf(RLRunLoopGetTimeout(rl, later)));  /* parked in a mode with nothing */
    CHECK(!readable(fd, 0));
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, now() + 0.05, 0, 0, 0, m_timer, NULL);
    RLRunLoopAddTimer(rl, t, later);  /* makes the mode */
    CHECK(readable(fd, 1000));       /* the driver hears of it at once */
    double start = mono();
    while (m_fired == 0 && mono() - start < 5) {
        double timeout = RLRunLoopGetTimeout(rl, later);
        CHECK(!isinf(timeout));
        readable(fd, (int)(timeout * 1000) + 1);
        RLRunLoopRunPending(rl, later);
    }
    CHECK(m_fired == 1);
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    return NULL;
}

/* ---- N: RLRunLoopGetPollDescriptor right after the descriptor was closed -- */

static void *scenario_n(void *arg)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    int fd = RLRunLoopGetPollDescriptor(rl);
    counter_t c = { 0 };
    RLRunLoopSourceRef s = counter_source(&c, 0);
    RLRunLoopAddSource(rl, s, M);
    RLRunLoopGetTimeout(rl, M);

    close(fd);  /* the mistake */
    int stolen = open("/dev/null", O_RDONLY);  /* the lowest free number: fd's */
    CHECK(stolen == fd);
    g_last_code = 0;
    int fresh = RLRunLoopGetPollDescriptor(rl);
    CHECK(g_last_code == kRLErrorInvalidArgument);
    CHECK(fresh >= 0 && fresh != stolen);
    g_last_code = 0;
    CHECK(RLRunLoopGetPollDescriptor(rl) == fresh);  /* reported once */
    CHECK(RLRunLoopGetTimeout(rl, M) != 0 && g_last_code == 0);
    CHECK(!readable(fresh, 0));
    RLRunLoopSourceSignalAndWakeUp(s);
    CHECK(readable(fresh, 1000));  /* it works */
    CHECK(RLRunLoopRunPending(rl, M) == kRLRunLoopRunTimedOut);
    CHECK(c.performed == 1);
    CHECK(!readable(fresh, 0));
    CHECK(fcntl(stolen, F_GETFD) >= 0);  /* not touched */
    close(stolen);
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    return NULL;
}

int main(void)
{
    alarm(getenv("RL_UNDER_VALGRIND") ? 250 : 60);  /* a hang fails */
    RLSetErrorHandler(record, NULL);
    embed_thread(scenario_a);
    embed_thread(scenario_b);
    embed_thread(scenario_c);
    embed_thread(scenario_dfg);
    embed_thread(scenario_e);
    embed_thread(scenario_h);
    embed_thread(scenario_i);
    embed_thread(scenario_j);
    embed_thread(scenario_k);
    embed_thread(scenario_l);
    embed_thread(scenario_m);
    embed_thread(scenario_n);
    if (harness_failures) fprintf(stderr, "%d check(s) failed\n", harness_failures);
    return harness_failures;
}
