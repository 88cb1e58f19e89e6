/*
 * test_rl_fd_lazy — RLFileDescriptor's one-shot callbacks around the lazy
 * disable (runloop-only: CF's Linux port has no CFFileDescriptor;
 * hand-written trace).  A callback that fires is disabled before its
 * callout, but the wait set is brought in line only after the callout, so
 * a callout that re-enables costs no epoll_ctl.  What must not change:
 *   A. A callout that does not re-enable gets no further callout although
 *      data remains, and the loop sleeps (no pass spins on the descriptor).
 *   B. A run nested in that callout sees the descriptor ready but disabled:
 *      no callout, and the nested run is not told a source was handled.
 *   C. Re-enabled from another thread while the loop sleeps: the data left
 *      unread calls out at once.
 *   D. Invalidated (closeOnInvalidate) inside its callout, after
 *      re-enabling: no further callout, no error, the loop sleeps.
 *   E. Disabled from outside with data ready: no callout; re-enabled from
 *      outside: one.
 *   F. Its callout did not re-enable, then the descriptor is closed while
 *      the object is still valid: no error (the wait set let it go after
 *      the callout) and no callout.
 *   G. The usual round, many times: read and re-enable in the callout; one
 *      callout per write.
 *   H. Another thread disables and enables 20,000 times while the loop
 *      calls out, re-enables in the callout and disables from outside too:
 *      stores of the interest from both threads race; once both are done
 *      with read enabled, the descriptor is watched again (a write calls
 *      out).
 */
#include "harness.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int passes, errors;
static void count_passes(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o; (void)a; (void)info;
    passes++;
}

static void count_errors(RLErrorCode code, const char *function, const char *message, void *info)
{
    (void)code; (void)info;
    errors++;
    fprintf(stderr, "error from %s: %s\n", function, message);
}

enum { READ = 1, REENABLE = 2, NEST = 4, INVALIDATE = 8 };
static int mode_bits, calls;
static RLRunLoopRunResult nested;
static int nested_passes;

static void callout(RLFileDescriptorRef f, RLOptionFlags types, void *info)
{
    (void)info;
    calls++;
    CHECK(types == kRLFileDescriptorReadCallBack);
    if (mode_bits & NEST) {
        int before = passes;
        nested = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 1);
        nested_passes = passes - before;
    }
    if (mode_bits & READ) {
        eventfd_t v;
        (void)eventfd_read(RLFileDescriptorGetNativeDescriptor(f), &v);
    }
    if (mode_bits & REENABLE) RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
    if (mode_bits & INVALIDATE) RLFileDescriptorInvalidate(f);
}

static RLFileDescriptorRef make(int efd, RLBoolean close_on_invalidate)
{
    RLFileDescriptorRef f = RLFileDescriptorCreate(NULL, efd, close_on_invalidate, callout, NULL);
    RLRunLoopSourceRef s = RLFileDescriptorCreateRunLoopSource(NULL, f, 0);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), s, kRLRunLoopDefaultMode);
    RLRelease(s);
    RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
    return f;
}

static void drop(RLFileDescriptorRef f)
{
    RLFileDescriptorInvalidate(f);
    RLRelease(f);
}

/* Runs 50 ms with returnAfterSourceHandled; traces the result, callouts
 * and whether the loop slept (a spinning loop makes thousands of passes). */
static void run_traced(const char *what)
{
    calls = 0;
    passes = 0;
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 1);
    TRACE("%s: %s, callouts %d, slept %s", what, result_name(r), calls, passes <= 3 ? "yes" : "no");
}

struct enabler { RLFileDescriptorRef f; };
static atomic_int storm_done;
static void *storm(void *arg)
{
    RLFileDescriptorRef f = ((struct enabler *)arg)->f;
    for (int i = 0; i < 20000; i++) {
        RLFileDescriptorDisableCallBacks(f, kRLFileDescriptorReadCallBack);
        RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
    }
    atomic_store(&storm_done, 1);
    return NULL;
}
static void *enable_later(void *arg)
{
    sleep_s(0.03);
    RLFileDescriptorEnableCallBacks(((struct enabler *)arg)->f, kRLFileDescriptorReadCallBack);
    return NULL;
}

static void scenario(void)
{
    RLSetErrorHandler(count_errors, NULL);
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopObserverRef obs = RLRunLoopObserverCreate(NULL, kRLRunLoopBeforeTimers, 1, 0, count_passes, NULL);
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    /* keeps the mode from being empty once every descriptor is gone */
    RLRunLoopTimerRef keep = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 1e6, 0, 0, 0, NULL, NULL);
    RLRunLoopAddTimer(rl, keep, kRLRunLoopDefaultMode);

    /* A */
    int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    RLFileDescriptorRef f = make(efd, 1);
    mode_bits = 0;
    CHECK(eventfd_write(efd, 1) == 0);
    run_traced("A: first run");
    run_traced("A: data left, not re-enabled");
    CHECK(RLFileDescriptorIsValid(f));

    /* B: the same descriptor, still readable */
    mode_bits = NEST | READ | REENABLE;
    RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
    passes = 0;
    run_traced("B: outer run");
    TRACE("B: nested run %s, slept %s", result_name(nested), nested_passes <= 3 ? "yes" : "no");
    run_traced("B: after, read and re-enabled");

    /* C */
    mode_bits = 0;
    CHECK(eventfd_write(efd, 1) == 0);
    run_traced("C: not re-enabled");
    struct enabler en = { f };
    pthread_t t = start_thread(enable_later, &en);
    calls = 0;
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 2.0, 1);
    pthread_join(t, NULL);
    TRACE("C: enabled from another thread: %s, callouts %d", result_name(r), calls);
    drop(f);

    /* D */
    efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    f = make(efd, 1);
    mode_bits = REENABLE | INVALIDATE;
    CHECK(eventfd_write(efd, 1) == 0);
    run_traced("D: invalidated in its callout");
    TRACE("D: valid %d", RLFileDescriptorIsValid(f));
    run_traced("D: after");
    RLRelease(f);

    /* E */
    efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    f = make(efd, 1);
    mode_bits = READ | REENABLE;
    RLFileDescriptorDisableCallBacks(f, kRLFileDescriptorReadCallBack);
    CHECK(eventfd_write(efd, 1) == 0);
    run_traced("E: disabled from outside");
    RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
    run_traced("E: re-enabled from outside");
    run_traced("E: read in the callout");
    drop(f);

    /* F */
    efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    f = make(efd, 0);
    mode_bits = 0;
    CHECK(eventfd_write(efd, 1) == 0);
    run_traced("F: not re-enabled");
    close(efd);
    run_traced("F: closed while disabled");
    drop(f);

    /* G */
    efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    f = make(efd, 1);
    mode_bits = READ | REENABLE;
    int total = 0, handled = 0;
    for (int i = 0; i < 200; i++) {
        CHECK(eventfd_write(efd, 1) == 0);
        calls = 0;
        if (RLRunLoopRunInMode(kRLRunLoopDefaultMode, 1.0, 1) == kRLRunLoopRunHandledSource) handled++;
        total += calls;
    }
    TRACE("G: 200 rounds: %d callouts, %d handled", total, handled);
    drop(f);

    /* H */
    efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    f = make(efd, 1);
    mode_bits = READ | REENABLE;
    struct enabler st = { f };
    t = start_thread(storm, &st);
    while (!atomic_load(&storm_done)) {
        CHECK(eventfd_write(efd, 1) == 0);
        RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.001, 1);
        RLFileDescriptorDisableCallBacks(f, kRLFileDescriptorReadCallBack);
        RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
    }
    pthread_join(t, NULL);
    eventfd_t drained;
    (void)eventfd_read(efd, &drained);
    CHECK(eventfd_write(efd, 1) == 0);
    calls = 0;
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 2.0, 1);
    TRACE("H: after the storm: %s, callouts %d", result_name(r), calls);
    drop(f);

    TRACE("errors reported: %d", errors);
    RLRunLoopTimerInvalidate(keep);
    RLRelease(keep);
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
    RLSetErrorHandler(NULL, NULL);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_fd_lazy") | harness_failures;
}
