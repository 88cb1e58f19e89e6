/*
 * test_misuse — bad values and wrong calls (issue 7 §3; runloop-only,
 * hand-written trace Tests/traces/misuse.trace).  Each case has a defined
 * outcome: the error code (RLGetLastError), what the call returned, and
 * that the loop keeps working afterwards (a timer or source still fires).
 *   A. times: NaN, ±inf, negative and huge fire dates and intervals;
 *      negative/NaN/inf tolerance; NaN, negative, -inf run times
 *   B. mode names: NULL, empty, 1024 and 2000 bytes
 *   C. Stop on a loop that is not running; a timer added to a second loop
 *   D. NULL callouts
 *   E. releasing a timer, an observer and a source inside its own callout
 *   F. a thread exits with items scheduled while another holds its loop
 *   G. RLRunLoopGetMain from a thread before the main thread touched its
 *      loop, and (in a forked child) after the main thread pthread_exit()ed
 */
#include "harness.h"

#include <math.h>
#include <sys/wait.h>
#include <unistd.h>

static void quiet(RLErrorCode c, const char *f, const char *m, void *i) { (void)c; (void)f; (void)m; (void)i; }

/* Traces "<what>: code N" and clears the last error. */
static void code(const char *what)
{
    TRACE("%s: code %d", what, (int)RLGetLastError());
    RLClearLastError();
}

static int fires;
static void count_timer(RLRunLoopTimerRef t, void *info) { (void)t; (void)info; fires++; }
static void noop_perform(void *info) { (void)info; }

/* The loop still works: a timer due now fires in one pass of `mode`. */
static void still_works(const char *label, const char *mode)
{
    fires = 0;
    RLRunLoopTimerRef t = new_timer(now() - 1, 0, count_timer, NULL);
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), t, mode);
    RLRunLoopRunResult r = RLRunLoopRunInMode(mode, 0, 0);
    TRACE("%s: loop still works: %s, timer fired %d", label, result_name(r), fires);
    RLRelease(t);
}

/* Creates a timer and reports: created?, repeats, interval, and whether it
 * fires in one pass of a private mode. */
static void timer_case(const char *label, RLAbsoluteTime fire, RLTimeInterval interval)
{
    fires = 0;
    RLRunLoopTimerRef t = new_timer(fire, interval, count_timer, NULL);
    int err = (int)RLGetLastError();
    RLClearLastError();
    if (!t) {
        TRACE("%s: NULL, code %d", label, err);
        return;
    }
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), t, "misuse.timers");
    RLRunLoopRunInMode("misuse.timers", 0, 0);
    TRACE("%s: created (code %d), repeats %s, interval %g, fired %d, valid after %s", label, err,
          yes_no(RLRunLoopTimerDoesRepeat(t)), RLRunLoopTimerGetInterval(t), fires, yes_no(RLRunLoopTimerIsValid(t)));
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
}

static void part_a_times(void)
{
    double nan = NAN, inf = INFINITY;
    timer_case("A1 fire date NaN", nan, 0);
    timer_case("A2 fire date +inf", inf, 0);
    timer_case("A3 fire date -inf", -inf, 0);
    timer_case("A4 fire date -1e9 (before 2001)", -1e9, 0);
    timer_case("A5 fire date 1e300", 1e300, 0);
    timer_case("A6 interval NaN", now() - 1, nan);
    timer_case("A7 interval +inf", now() - 1, inf);
    timer_case("A8 interval -inf", now() - 1, -inf);
    timer_case("A9 interval -5", now() - 1, -5);
    timer_case("A10 interval 1e300", now() - 1, 1e300);
    timer_case("A11 interval 1e-300", now() - 1, 1e-300);

    RLRunLoopTimerRef t = new_timer(now() + 1000, 0, count_timer, NULL);
    RLRunLoopTimerSetNextFireDate(t, nan);
    code("A12 SetNextFireDate(NaN)");
    RLRunLoopTimerSetNextFireDate(t, inf);
    code("A13 SetNextFireDate(+inf)");
    RLRunLoopTimerSetNextFireDate(t, -inf);
    code("A14 SetNextFireDate(-inf)");
    RLRunLoopTimerSetTolerance(t, -1);
    TRACE("A15 tolerance -1 -> %g", RLRunLoopTimerGetTolerance(t));
    code("A15 SetTolerance(-1)");
    RLRunLoopTimerSetTolerance(t, nan);
    TRACE("A16 tolerance NaN -> %g", RLRunLoopTimerGetTolerance(t));
    code("A16 SetTolerance(NaN)");
    RLRunLoopTimerSetTolerance(t, 0.5);
    RLRunLoopTimerSetTolerance(t, inf);
    TRACE("A17 tolerance +inf -> %g", RLRunLoopTimerGetTolerance(t));
    code("A17 SetTolerance(+inf)");
    fires = 0;
    RLRunLoopAddTimer(RLRunLoopGetCurrent(), t, "misuse.timers");
    RLRunLoopRunInMode("misuse.timers", 0, 0);
    TRACE("A18 timer moved to -inf fires at once: fired %d", fires);
    RLRelease(t);

    RLRunLoopSourceRef keep = new_source(0, NULL, noop_perform);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), keep, "misuse.run");
    TRACE("A19 RunInMode(seconds NaN) = %s", result_name(RLRunLoopRunInMode("misuse.run", nan, 0)));
    code("A19 RunInMode(NaN)");
    TRACE("A20 RunInMode(seconds -1) = %s", result_name(RLRunLoopRunInMode("misuse.run", -1, 0)));
    code("A20 RunInMode(-1)");
    TRACE("A21 RunInMode(seconds -inf) = %s", result_name(RLRunLoopRunInMode("misuse.run", -inf, 0)));
    code("A21 RunInMode(-inf)");
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
    still_works("A", "misuse.timers");
}

static void part_b_modes(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopSourceRef s = new_source(0, NULL, noop_perform);
    char *name1024 = malloc(1025), *name2000 = malloc(2001);
    memset(name1024, 'x', 1024);
    name1024[1024] = 0;
    memset(name2000, 'y', 2000);
    name2000[2000] = 0;

    RLRunLoopAddSource(rl, s, NULL);
    code("B1 AddSource(mode NULL)");
    TRACE("B2 ContainsSource(mode NULL) = %s", yes_no(RLRunLoopContainsSource(rl, s, NULL)));
    code("B2 ContainsSource(mode NULL)");
    TRACE("B3 RunInMode(NULL) = %s", result_name(RLRunLoopRunInMode(NULL, 0, 0)));
    code("B3 RunInMode(NULL)");
    RLRunLoopAddCommonMode(rl, NULL);
    code("B4 AddCommonMode(NULL)");
    RLRunLoopAddSource(rl, s, "");
    TRACE("B5 empty mode name: contains %s", yes_no(RLRunLoopContainsSource(rl, s, "")));
    code("B5 AddSource(\"\")");
    RLRunLoopAddSource(rl, s, name1024);
    TRACE("B6 1024-byte mode name: contains %s", yes_no(RLRunLoopContainsSource(rl, s, name1024)));
    code("B6 AddSource(1024 bytes)");
    RLRunLoopAddSource(rl, s, name2000);
    TRACE("B7 2000-byte mode name: contains %s", yes_no(RLRunLoopContainsSource(rl, s, name2000)));
    code("B7 AddSource(2000 bytes)");
    TRACE("B8 RunInMode(2000 bytes) = %s", result_name(RLRunLoopRunInMode(name2000, 0, 0)));
    code("B8 RunInMode(2000 bytes)");
    RLRunLoopPerformFunction(rl, name2000, noop_perform, NULL);
    code("B9 PerformFunction(2000-byte mode)");
    RLRunLoopSourceSignal(s);
    TRACE("B10 RunInMode(\"\") = %s", result_name(RLRunLoopRunInMode("", 0, 1)));
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    free(name1024);
    free(name2000);
    still_works("B", kRLRunLoopDefaultMode);
}

static RLRunLoopRef other;
static gate_t other_ready = GATE_INIT, other_done = GATE_INIT;
static void *other_thread(void *arg)
{
    (void)arg;
    other = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    gate_post(&other_ready);
    gate_wait(&other_done);
    return NULL;
}

static int stopper_runs;
static void stop_me(void *info) { (void)info; stopper_runs++; }

static void part_c_wrong_calls(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopStop(rl);
    code("C1 Stop(not running)");
    RLRunLoopSourceRef s = new_source(0, NULL, stop_me);
    RLRunLoopAddSource(rl, s, "misuse.stop");
    RLRunLoopSourceSignal(s);
    RLRunLoopRunResult r = RLRunLoopRunInMode("misuse.stop", 0, 0);
    TRACE("C2 the next run is not stopped: %s, performed %d", result_name(r), stopper_runs);
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);

    pthread_t th = start_thread(other_thread, NULL);
    gate_wait(&other_ready);
    RLRunLoopTimerRef t = new_timer(now() - 1, 0, count_timer, NULL);
    RLRunLoopAddTimer(rl, t, "misuse.second");
    RLRunLoopAddTimer(other, t, kRLRunLoopDefaultMode);
    code("C3 AddTimer(second loop)");
    TRACE("C4 in second loop: %s, still in first: %s", yes_no(RLRunLoopContainsTimer(other, t, kRLRunLoopDefaultMode)),
          yes_no(RLRunLoopContainsTimer(rl, t, "misuse.second")));
    RLRunLoopObserverRef o = activity_logger(kRLRunLoopEntry, "never");
    RLRunLoopAddObserver(rl, o, "misuse.second");
    RLRunLoopAddObserver(other, o, kRLRunLoopDefaultMode);
    code("C5 AddObserver(second loop)");
    RLRunLoopObserverInvalidate(o);
    RLRelease(o);
    fires = 0;
    RLRunLoopRunInMode("misuse.second", 0, 0);
    TRACE("C6 the timer fires on its own loop: %d", fires);
    RLRelease(t);
    gate_post(&other_done);
    pthread_join(th, NULL);
}

static void null_observer_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) { (void)o; (void)a; (void)info; }

static void part_d_null_callouts(void)
{
    /* NULL timer and observer callouts are valid, as in CF (placeholder
     * items whose callout is skipped): an object and no error. */
    RLRunLoopTimerRef placeholder_t = RLRunLoopTimerCreate(NULL, now(), 0, 0, 0, NULL, NULL);
    TRACE("D1 TimerCreate(NULL callout) = %s", placeholder_t ? "object" : "NULL");
    code("D1 TimerCreate(NULL callout)");
    RLRunLoopObserverRef placeholder_o = RLRunLoopObserverCreate(NULL, kRLRunLoopAllActivities, 1, 0, NULL, NULL);
    TRACE("D2 ObserverCreate(NULL callout) = %s", placeholder_o ? "object" : "NULL");
    code("D2 ObserverCreate(NULL callout)");
    if (placeholder_t) RLRelease(placeholder_t);
    if (placeholder_o) RLRelease(placeholder_o);
    TRACE("D3 SourceCreate(NULL context) = %s", RLRunLoopSourceCreate(NULL, 0, NULL) ? "object" : "NULL");
    code("D3 SourceCreate(NULL context)");
    /* a version-0 source without perform: signalling it is harmless */
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    RLRunLoopSourceRef s = RLRunLoopSourceCreate(NULL, 0, &ctx);
    code("D4 SourceCreate(NULL perform)");
    RLRunLoopAddSource(RLRunLoopGetCurrent(), s, "misuse.null");
    RLRunLoopSourceSignal(s);
    RLRunLoopRunResult r = RLRunLoopRunInMode("misuse.null", 0, 1);
    TRACE("D5 a pass with it signalled = %s, signalled after: %s", result_name(r), yes_no(RLRunLoopSourceIsSignalled(s)));
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);
    RLRunLoopPerformFunction(RLRunLoopGetCurrent(), kRLRunLoopDefaultMode, NULL, NULL);
    code("D6 PerformFunction(NULL function)");
    RLRunLoopObserverRef o = RLRunLoopObserverCreate(NULL, 0, 1, 0, null_observer_cb, NULL);
    TRACE("D7 ObserverCreate(NULL context, no activities) = %s", o ? "object" : "NULL");
    code("D7 ObserverCreate(NULL context)");
    if (o) RLRelease(o);
    still_works("D", kRLRunLoopDefaultMode);
}

/* E: each item releases the caller's reference and invalidates itself in its
 * own callout: the last references go while the callout runs.  Inside the
 * callout only "not valid" is traced: whether the handle is already stale
 * there differs between builds (see the issue 7 report); after the run it
 * must be stale (E4). */
static RLTypeRef self_item;
static void self_release_timer(RLRunLoopTimerRef t, void *info)
{
    (void)info;
    TRACE("E1 timer callout: releasing and invalidating itself");
    RLRelease(t);
    RLRunLoopTimerInvalidate(t);
    TRACE("E1 after: valid %s", yes_no(RLRunLoopTimerIsValid(t)));
    RLClearLastError();
}
static void self_release_observer(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)info;
    TRACE("E2 observer %s: releasing and invalidating itself", activity_name(a));
    RLRelease(o);
    RLRunLoopObserverInvalidate(o);
    TRACE("E2 after: valid %s", yes_no(RLRunLoopObserverIsValid(o)));
    RLClearLastError();
}
static void self_release_source(void *info)
{
    (void)info;
    RLRunLoopSourceRef s = (RLRunLoopSourceRef)self_item;
    TRACE("E3 source perform: releasing and invalidating itself");
    RLRelease(s);
    RLRunLoopSourceInvalidate(s);
    TRACE("E3 after: valid %s", yes_no(RLRunLoopSourceIsValid(s)));
    RLClearLastError();
}

static void part_e_release_in_callout(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopTimerRef t = new_timer(now() - 1, 1000, self_release_timer, NULL);
    RLRunLoopAddTimer(rl, t, "misuse.self");
    TRACE("E1 run = %s", result_name(RLRunLoopRunInMode("misuse.self", 0, 0)));

    RLRunLoopObserverRef o = new_observer(kRLRunLoopEntry | kRLRunLoopExit, 1, 0, self_release_observer, NULL);
    RLRunLoopAddObserver(rl, o, "misuse.self");
    RLRunLoopSourceRef keep = new_source(0, NULL, noop_perform);
    RLRunLoopAddSource(rl, keep, "misuse.self");
    TRACE("E2 run = %s", result_name(RLRunLoopRunInMode("misuse.self", 0, 0)));

    RLRunLoopSourceRef s = new_source(0, NULL, self_release_source);
    self_item = s;
    RLRunLoopAddSource(rl, s, "misuse.self");
    RLRunLoopSourceSignal(s);
    TRACE("E3 run = %s", result_name(RLRunLoopRunInMode("misuse.self", 0, 1)));
    TRACE("E4 stale handles: timer %s, observer %s, source %s", yes_no(RLRunLoopTimerIsValid(t)),
          yes_no(RLRunLoopObserverIsValid(o)), yes_no(RLRunLoopSourceIsValid(s)));
    code("E4 IsValid(released source)");
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
    still_works("E", "misuse.self");
}

/* F: a thread schedules items and exits while this thread holds its loop. */
static RLRunLoopRef exited;
static RLRunLoopSourceRef exited_source;
static void cancel_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode) { (void)info; (void)rl; TRACE("F cancel in %s", mode); }
static void exiting_thread(void)
{
    exited = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.perform = noop_perform;
    ctx.cancel = cancel_cb;
    exited_source = RLRunLoopSourceCreate(NULL, 0, &ctx);
    RLRunLoopAddSource(exited, exited_source, kRLRunLoopDefaultMode);
    RLRunLoopTimerRef t = new_timer(now() + 1000, 1, count_timer, NULL);
    RLRunLoopAddTimer(exited, t, kRLRunLoopCommonModes);
    RLRelease(t);
    RLRunLoopPerformFunction(exited, kRLRunLoopDefaultMode, noop_perform, NULL);
    TRACE("F thread exits with a source, a timer and a block scheduled");
}

static void part_f_thread_exit(void)
{
    run_on_thread(exiting_thread);
    TRACE("F loop handle still valid: retain count %ld", (long)RLGetRetainCount(exited));
    TRACE("F contains the source: %s", yes_no(RLRunLoopContainsSource(exited, exited_source, kRLRunLoopDefaultMode)));
    RLRunLoopAddSource(exited, exited_source, kRLRunLoopDefaultMode);
    code("F AddSource(exited thread's loop)");
    RLRunLoopPerformFunction(exited, kRLRunLoopDefaultMode, noop_perform, NULL);
    code("F PerformFunction(exited thread's loop)");
    RLRunLoopWakeUp(exited);
    RLRunLoopStop(exited);
    code("F WakeUp + Stop");
    TRACE("F current mode: %s, waiting: %s", mode_name(RLRunLoopCopyCurrentMode(exited)), yes_no(RLRunLoopIsWaiting(exited)));
    RLRelease(exited);
    RLRelease(exited_source);
}

/* G: RLRunLoopGetMain from another thread before the main thread used it. */
static RLRunLoopRef main_seen_from_thread;
static void ask_main(void) { main_seen_from_thread = RLRunLoopGetMain(); }

/* In a forked child: main pthread_exit()s; a thread waits for it and then
 * uses RLRunLoopGetMain.  Lines go to the parent through a pipe.  The wait
 * is a thread-specific-data destructor of a key made after the library's
 * own: glibc runs destructors in key order, so the main loop's teardown
 * has finished when it posts.  (pthread_join on the main thread would do,
 * but ASan and TSan refuse it.) */
static int child_pipe;
static gate_t main_gone = GATE_INIT;
static void main_exited(void *value) { (void)value; gate_post(&main_gone); }
static void child_line(const char *s) { if (write(child_pipe, s, strlen(s)) < 0) _exit(3); }
static void *after_main(void *arg)
{
    (void)arg;
    gate_wait(&main_gone);
    RLSetErrorHandler(quiet, NULL);
    RLRunLoopRef m = RLRunLoopGetMain();
    char buf[256];
    snprintf(buf, sizeof buf, "G3 after main exited: GetMain %s\n", m ? "returns a handle" : "NULL");
    child_line(buf);
    RLRunLoopTimerRef t = new_timer(RLAbsoluteTimeGetCurrent() + 1000, 0, count_timer, NULL);
    RLRunLoopAddTimer(m, t, kRLRunLoopDefaultMode);
    snprintf(buf, sizeof buf, "G4 AddTimer(main loop after exit): code %d\n", (int)RLGetLastError());
    child_line(buf);
    RLClearLastError();
    RLRunLoopWakeUp(m);
    RLRunLoopStop(m);
    snprintf(buf, sizeof buf, "G5 WakeUp + Stop: code %d\n", (int)RLGetLastError());
    child_line(buf);
    RLRelease(t);
    _exit(0);
}

static void part_g_main(void)
{
    run_on_thread(ask_main);
    RLRunLoopRef m = RLRunLoopGetMain();
    TRACE("G1 GetMain from a thread before main used it = main's own: %s", yes_no(m && m == main_seen_from_thread));
    TRACE("G2 main's GetCurrent is GetMain: %s", yes_no(RLRunLoopGetCurrent() == m));
    int fds[2];
    if (pipe(fds) != 0) { perror("pipe"); exit(2); }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child_pipe = fds[1];
        pthread_key_t key;
        pthread_key_create(&key, main_exited);
        pthread_setspecific(key, &key);
        RLRunLoopTimerRef t = new_timer(RLAbsoluteTimeGetCurrent() + 1000, 0, count_timer, NULL);
        RLRunLoopAddTimer(RLRunLoopGetMain(), t, kRLRunLoopDefaultMode);
        RLRelease(t);
        pthread_t th;
        pthread_create(&th, NULL, after_main, NULL);
        pthread_exit(NULL);
    }
    close(fds[1]);
    char buf[1024];
    size_t len = 0;
    ssize_t n;
    while ((n = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0) len += (size_t)n;
    buf[len] = 0;
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) TRACE("%s", line);
    TRACE("G child exit: %s", WIFEXITED(status) ? (WEXITSTATUS(status) == 0 ? "status 0" : "nonzero") : "killed by a signal");
}

int main(void)
{
    RLSetErrorHandler(quiet, NULL);
    part_g_main();        /* first: before this thread's loop exists */
    part_a_times();
    part_b_modes();
    part_c_wrong_calls();
    part_d_null_callouts();
    part_e_release_in_callout();
    part_f_thread_exit();
    return trace_check("misuse") | harness_failures;
}
