/*
 * test_rl_fd_sources — version-1 sources and RLFileDescriptor on Linux
 * descriptors (runloop-only: CF's Linux port has neither; hand-written trace).
 *   A. A version-1 source on a pipe: the loop sleeps until the pipe is
 *      readable, then performs it (it reads); the library never reads.
 *   B. A readable descriptor of a mode not being run does not wake or spin
 *      the loop (one pass in 50 ms), and is performed once that mode runs.
 *   C. 1,000 pipes made readable at once are all performed in one pass.
 *   D. returnAfterSourceHandled counts a version-1 perform.
 *   E. RLFileDescriptor: read callback one-shot per enable, re-enabled in
 *      its callout; write readiness; eventfd and timerfd; closeOnInvalidate.
 *   F. Runs reuse the previous run's wait set only while nothing changed:
 *      sources removed, added back, invalidated or replaced between runs,
 *      and a run of another mode in between, all apply to the next run.
 *   G. A nested run from a version-1 perform: the outer pass's ready
 *      list survives the nested pass's (each pass reuses the arrays the
 *      previous one left), and the sources readable then are performed.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

static void noop_timer(RLRunLoopTimerRef t, void *info) { (void)t; (void)info; }

static int passes;
static void count_passes(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o; (void)a; (void)info;
    passes++;
}

struct pipe_source { int fds[2]; int performs; char last; };

static int pipe_port(void *info) { return ((struct pipe_source *)info)->fds[0]; }
static void pipe_perform(void *info)
{
    struct pipe_source *p = info;
    char c;
    if (read(p->fds[0], &c, 1) == 1) p->last = c;
    p->performs++;
}

static RLRunLoopSourceRef pipe_source(struct pipe_source *p, RLIndex order)
{
    CHECK(pipe2(p->fds, O_CLOEXEC | O_NONBLOCK) == 0);
    return new_fd_source(order, p, pipe_port, pipe_perform);
}

/* Invalidates and releases the source, then closes its pipe. */
static void drop_pipe_source(RLRunLoopSourceRef s, struct pipe_source *p)
{
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    close(p->fds[0]);
    close(p->fds[1]);
}

static void write_after(int fd, char c) { CHECK(write(fd, &c, 1) == 1); }

struct writer { int fd; char c; };
static void *delayed_write(void *arg)
{
    struct writer *w = arg;
    sleep_s(0.03);
    write_after(w->fd, w->c);
    return NULL;
}

/* E */
static int fd_calls;
static RLOptionFlags fd_types;
static void fd_callout(RLFileDescriptorRef f, RLOptionFlags types, void *info)
{
    (void)info;
    fd_calls++;
    fd_types |= types;
    int fd = RLFileDescriptorGetNativeDescriptor(f);
    uint64_t v;
    if (types & kRLFileDescriptorReadCallBack) {
        if (read(fd, &v, sizeof v) < 0) { char c; (void)!read(fd, &c, 1); }
    }
    TRACE("E: callout types%s%s", (types & kRLFileDescriptorReadCallBack) ? " read" : "",
          (types & kRLFileDescriptorWriteCallBack) ? " write" : "");
}

/* G */
static struct pipe_source g1, g2, g3;
static void nesting_perform(void *info)
{
    pipe_perform(info);
    write_after(g3.fds[1], 'g');
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
    TRACE("G: nested pass: %s, g3 performs %d", result_name(r), g3.performs);
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef obs = RLRunLoopObserverCreate(NULL, kRLRunLoopBeforeTimers, 1, 0, count_passes, NULL);
    RLRunLoopAddObserver(rl, obs, kRLRunLoopCommonModes);

    /* A */
    struct pipe_source a = {0};
    RLRunLoopSourceRef sa = pipe_source(&a, 0);
    RLRunLoopAddSource(rl, sa, kRLRunLoopDefaultMode);
    struct writer w = { 0, 'x' };
    w.fd = a.fds[1];
    pthread_t t = start_thread(delayed_write, &w);
    passes = 0;
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 2.0, 1);
    pthread_join(t, NULL);
    TRACE("A: result %s, performs %d, read '%c', passes %d", result_name(r), a.performs, a.last, passes);
    TRACE("A: nothing readable: %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.02, 1)));

    /* B */
    RLRunLoopRemoveSource(rl, sa, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, sa, MODE("other"));
    RLRunLoopTimerRef keep = new_timer(now() + 100, 0, noop_timer, NULL);
    RLRunLoopAddTimer(rl, keep, kRLRunLoopCommonModes);
    RLRunLoopAddCommonMode(rl, MODE("other"));
    RLRunLoopRemoveSource(rl, sa, MODE("other"));
    RLRunLoopAddSource(rl, sa, MODE("other"));
    write_after(a.fds[1], 'y');
    passes = 0;
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 0);
    TRACE("B: default mode: %s, passes %d, performs %d", result_name(r), passes, a.performs);
    r = RLRunLoopRunInMode(MODE("other"), 1.0, 1);
    TRACE("B: other mode: %s, performs %d, read '%c'", result_name(r), a.performs, a.last);
    RLRunLoopSourceInvalidate(sa);
    RLRelease(sa);
    close(a.fds[0]);
    close(a.fds[1]);

    /* C */
    enum { N = 1000 };
    static struct pipe_source many[N];
    RLRunLoopSourceRef srcs[N];
    for (int i = 0; i < N; i++) {
        srcs[i] = pipe_source(&many[i], i % 7);
        RLRunLoopAddSource(rl, srcs[i], kRLRunLoopDefaultMode);
    }
    for (int i = 0; i < N; i++) write_after(many[i].fds[1], 'z');
    passes = 0;
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 1);
    int total = 0;
    for (int i = 0; i < N; i++) total += many[i].performs;
    TRACE("C: %s after %d pass(es): %d of %d sources performed", result_name(r), passes, total, N);
    for (int i = 0; i < N; i++) {
        RLRunLoopSourceInvalidate(srcs[i]);
        RLRelease(srcs[i]);
        close(many[i].fds[0]);
        close(many[i].fds[1]);
    }

    /* D: covered by A and C (HandledSource); also a version-1 source is not signalled */
    struct pipe_source d = {0};
    RLRunLoopSourceRef sd = pipe_source(&d, 0);
    RLRunLoopSourceSignal(sd);
    TRACE("D: signal ignored on version 1: %s", yes_no(!RLRunLoopSourceIsSignalled(sd)));
    RLRunLoopSourceContext1 got = {0};
    RLRunLoopSourceGetContext(sd, (RLRunLoopSourceContext *)&got);
    TRACE("D: context version %ld, getPort kept: %s", (long)got.version, yes_no(got.getPort == pipe_port));
    RLRelease(sd);
    close(d.fds[0]);
    close(d.fds[1]);

    /* E: eventfd, one-shot read callbacks */
    int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    RLFileDescriptorRef f = RLFileDescriptorCreate(NULL, efd, 1, fd_callout, NULL);
    RLRunLoopSourceRef fs = RLFileDescriptorCreateRunLoopSource(NULL, f, 0);
    RLRunLoopSourceRef fs2 = RLFileDescriptorCreateRunLoopSource(NULL, f, 0);
    TRACE("E: same source twice: %s", yes_no(fs == fs2));
    RLRelease(fs2);
    RLRunLoopAddSource(rl, fs, kRLRunLoopDefaultMode);
    uint64_t one = 1;
    CHECK(write(efd, &one, sizeof one) == sizeof one);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.02, 1);
    TRACE("E: not enabled: %s, calls %d", result_name(r), fd_calls);
    RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.5, 1);
    TRACE("E: enabled: %s, calls %d", result_name(r), fd_calls);
    CHECK(write(efd, &one, sizeof one) == sizeof one);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.02, 1);
    TRACE("E: readable again but one-shot: %s, calls %d", result_name(r), fd_calls);
    RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack | kRLFileDescriptorWriteCallBack);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.5, 1);
    TRACE("E: re-enabled read+write: %s, calls %d", result_name(r), fd_calls);
    RLFileDescriptorInvalidate(f);
    errno = 0;
    TRACE("E: closeOnInvalidate closed it: %s", yes_no(fcntl(efd, F_GETFD) == -1 && errno == EBADF));
    TRACE("E: source invalid too: %s", yes_no(!RLRunLoopSourceIsValid(fs)));
    RLRelease(fs);
    RLRelease(f);

    /* E: a timerfd, not closed on invalidate */
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    struct itimerspec its = {{0, 0}, {0, 20 * 1000 * 1000}};
    timerfd_settime(tfd, 0, &its, NULL);
    f = RLFileDescriptorCreate(NULL, tfd, 0, fd_callout, NULL);
    fs = RLFileDescriptorCreateRunLoopSource(NULL, f, 0);
    RLRunLoopAddSource(rl, fs, kRLRunLoopDefaultMode);
    RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
    TRACE("E: timerfd: %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 1)));
    RLRelease(fs);
    RLRelease(f);   /* the loop still holds the source, which holds f */
    TRACE("E: timerfd still open after release: %s", yes_no(fcntl(tfd, F_GETFD) != -1));
    RLRunLoopRemoveSource(rl, fs, kRLRunLoopDefaultMode);  /* the last reference: source and f go */
    close(tfd);

    /* F: a run reuses the previous run's wait set when nothing changed;
     * whatever changed between runs applies to the next one. */
    struct pipe_source f1 = {0};
    RLRunLoopSourceRef sf = pipe_source(&f1, 0);
    RLRunLoopAddSource(rl, sf, kRLRunLoopDefaultMode);
    write_after(f1.fds[1], 'a');
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 1);
    TRACE("F: added, readable: %s, performs %d", result_name(r), f1.performs);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.02, 1);
    TRACE("F: same mode again, nothing readable: %s, performs %d", result_name(r), f1.performs);
    RLRunLoopRemoveSource(rl, sf, kRLRunLoopDefaultMode);
    write_after(f1.fds[1], 'b');
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 1);
    TRACE("F: removed between runs, readable: %s, performs %d", result_name(r), f1.performs);
    RLRunLoopAddSource(rl, sf, kRLRunLoopDefaultMode);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 1);
    TRACE("F: added back between runs: %s, performs %d, read '%c'", result_name(r), f1.performs, f1.last);
    /* invalidated between runs; a new pipe (most likely on the same
     * descriptor numbers) in a new source */
    drop_pipe_source(sf, &f1);
    struct pipe_source f2 = {0};
    RLRunLoopSourceRef sf2 = pipe_source(&f2, 0);
    RLRunLoopAddSource(rl, sf2, kRLRunLoopDefaultMode);
    write_after(f2.fds[1], 'c');
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 1);
    TRACE("F: a new source on a new pipe: %s, performs %d, read '%c'", result_name(r), f2.performs, f2.last);
    /* a run of another mode in between: the default mode's set comes back */
    RLRunLoopAddSource(rl, sf2, "f.other");
    write_after(f2.fds[1], 'd');
    r = RLRunLoopRunInMode("f.other", 1.0, 1);
    TRACE("F: other mode: %s, performs %d, read '%c'", result_name(r), f2.performs, f2.last);
    RLRunLoopRemoveSource(rl, sf2, "f.other");
    RLRunLoopAddTimer(rl, keep, "f.other");  /* the mode is not empty without it */
    write_after(f2.fds[1], 'e');
    r = RLRunLoopRunInMode("f.other", 0.05, 1);
    TRACE("F: other mode without it, readable: %s, performs %d", result_name(r), f2.performs);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 1);
    TRACE("F: default mode again: %s, performs %d, read '%c'", result_name(r), f2.performs, f2.last);
    drop_pipe_source(sf2, &f2);

    /* G: g1's perform runs a nested pass, which finds g2 (not read yet)
     * and g3 (written just before it) */
    RLRunLoopSourceRef sg1 = pipe_source(&g1, 0), sg2 = pipe_source(&g2, 1), sg3 = pipe_source(&g3, 2);
    RLRunLoopSourceContext1 nesting;
    RLRunLoopSourceGetContext(sg1, (RLRunLoopSourceContext *)&nesting);
    RLRunLoopSourceInvalidate(sg1);
    RLRelease(sg1);
    nesting.perform = nesting_perform;
    sg1 = RLRunLoopSourceCreate(NULL, 0, (RLRunLoopSourceContext *)&nesting);
    RLRunLoopAddSource(rl, sg1, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, sg2, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, sg3, kRLRunLoopDefaultMode);
    write_after(g1.fds[1], '1');
    write_after(g2.fds[1], '2');
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 1);
    TRACE("G: outer run: %s, g1 performs %d, read '%c'; g2 read '%c'", result_name(r), g1.performs, g1.last, g2.last);
    /* g2 is in the outer pass's list too: performed again, with nothing to read */
    CHECK(g2.performs >= 1 && g3.performs == 1);
    drop_pipe_source(sg1, &g1);
    drop_pipe_source(sg2, &g2);
    drop_pipe_source(sg3, &g3);

    RLRunLoopTimerInvalidate(keep);
    RLRelease(keep);
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_fd_sources") | harness_failures;
}
