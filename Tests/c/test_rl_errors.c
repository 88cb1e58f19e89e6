/*
 * test_rl_errors — the error channel (runloop-only; hand-written trace):
 * every misuse is reported with its code as the thread's last error and
 * through the error handler, and the call does nothing: NULL, stale and
 * wrong-type handles, NaN times, bad mode names, NULL callouts, a timer
 * added to a second loop, work for the loop of an exited thread, an extra
 * release.  The lock-free fast paths of SourceSignal (source already
 * pending), SourceSignalAndWakeUp (pending and woken) and WakeUp (wake-up
 * pending or ignored) check handles as well.  Successful calls keep the last error (errno-like) until
 * RLClearLastError; the default handler comes back with NULL.
 */
#include "harness.h"

static int handled;
static void handler(RLErrorCode code, const char *function, const char *message, void *info)
{
    handled++;
    TRACE("  handler(%d, %s, \"%s\", info %s)", (int)code, function, message, info == &handled ? "ok" : "wrong");
}

static void last(const char *what)
{
    char *d = RLCopyLastErrorDescription();
    TRACE("%s -> code %d: %s", what, (int)RLGetLastError(), d ? d : "(none)");
    free(d);
    RLClearLastError();
}

static void noop_timer(RLRunLoopTimerRef t, void *info) { (void)t; (void)info; }
static void noop(void *info) { (void)info; }

static RLRunLoopRef other_loop;
static gate_t ready = GATE_INIT, done = GATE_INIT;
static void *other_thread(void *arg)
{
    (void)arg;
    other_loop = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    gate_post(&ready);
    gate_wait(&done);
    return NULL;
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    TRACE("fresh thread: code %d, description %s", (int)RLGetLastError(), RLCopyLastErrorDescription() ? "set" : "NULL");
    RLSetErrorHandler(handler, &handled);

    RLRunLoopAddTimer(rl, NULL, kRLRunLoopDefaultMode);
    last("AddTimer(NULL)");
    RLRunLoopTimerRef t = new_timer(now() + 10, 0, noop_timer, NULL);
    RLRunLoopSourceSignal((RLRunLoopSourceRef)t);
    last("SourceSignal(timer)");
    RLRunLoopAddTimer(rl, t, NULL);
    last("AddTimer(mode NULL)");
    char *longname = malloc(2000);
    memset(longname, 'm', 1999);
    longname[1999] = 0;
    RLRunLoopAddTimer(rl, t, longname);
    last("AddTimer(2000-byte mode)");
    free(longname);
    RLRunLoopTimerSetNextFireDate(t, 0.0 / 0.0);
    last("SetNextFireDate(NaN)");
    TRACE("timer still valid: %s", yes_no(RLRunLoopTimerIsValid(t)));
    TRACE("RunInMode(NaN seconds) = %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.0 / 0.0, 0)));
    last("RunInMode(NaN)");
    /* A NULL callout is not an error (CF makes a timer that calls nothing). */
    RLRunLoopTimerRef placeholder = RLRunLoopTimerCreate(NULL, now(), 0, 0, 0, NULL, NULL);
    TRACE("TimerCreate(NULL callout) = %s", placeholder ? "object" : "NULL");
    last("TimerCreate(NULL callout)");
    if (placeholder) RLRelease(placeholder);
    RLRunLoopPerformFunction(rl, kRLRunLoopDefaultMode, NULL, NULL);
    last("PerformFunction(NULL fn)");

    RLRunLoopTimerIsValid(NULL);
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    TRACE("a successful call keeps the last error: code %d", (int)RLGetLastError());
    RLClearLastError();
    pthread_t th = start_thread(other_thread, NULL);
    gate_wait(&ready);
    RLRunLoopAddTimer(other_loop, t, kRLRunLoopDefaultMode);
    last("AddTimer(timer of this loop, other loop)");
    gate_post(&done);
    pthread_join(th, NULL);
    RLRunLoopPerformFunction(other_loop, kRLRunLoopDefaultMode, noop, NULL);
    last("PerformFunction(exited thread's loop)");
    RLRunLoopWakeUp(other_loop);
    RLRunLoopStop(other_loop);
    TRACE("WakeUp/Stop on it are fine: code %d", (int)RLGetLastError());
    RLRelease(other_loop);
    RLRunLoopWakeUp(other_loop);
    last("WakeUp(released loop)");

    /* A pending source's state and a loop's wake-up state are read without
     * pinning the handle: a handle of the other type, a released one and
     * NULL are still errors, and a pending source stays pending once. */
    RLRunLoopSourceRef s = new_source(0, NULL, noop);
    RLRunLoopSourceSignal(s);
    RLRunLoopSourceSignal(s);
    TRACE("SourceSignal twice: code %d, signalled %s", (int)RLGetLastError(), yes_no(RLRunLoopSourceIsSignalled(s)));
    RLRunLoopWakeUp((RLRunLoopRef)s);
    last("WakeUp(pending source)");
    RLRunLoopWakeUp(rl);  /* not running: wake-ups are ignored */
    TRACE("WakeUp(loop not running): code %d", (int)RLGetLastError());
    RLRunLoopSourceSignal((RLRunLoopSourceRef)rl);
    last("SourceSignal(loop)");
    RLRelease(s);
    RLRunLoopSourceSignal(s);
    last("SourceSignal(released pending source)");
    RLRunLoopSourceSignal(NULL);
    last("SourceSignal(NULL)");
    RLRunLoopWakeUp(NULL);
    last("WakeUp(NULL)");
    /* SignalAndWakeUp reads the same word first (pending and woken) */
    RLRunLoopSourceRef w = new_source(0, NULL, noop);
    RLRunLoopSourceSignalAndWakeUp(w);
    RLRunLoopSourceSignalAndWakeUp(w);
    TRACE("SourceSignalAndWakeUp twice: code %d, signalled %s", (int)RLGetLastError(), yes_no(RLRunLoopSourceIsSignalled(w)));
    RLRunLoopSourceSignalAndWakeUp((RLRunLoopSourceRef)rl);
    last("SourceSignalAndWakeUp(loop)");
    RLRunLoopSourceSignalAndWakeUp((RLRunLoopSourceRef)t);
    last("SourceSignalAndWakeUp(timer)");
    RLRelease(w);
    RLRunLoopSourceSignalAndWakeUp(w);
    last("SourceSignalAndWakeUp(released pending source)");
    RLRunLoopSourceSignalAndWakeUp(NULL);
    last("SourceSignalAndWakeUp(NULL)");

    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    RLRelease(t);
    last("second release of a timer");
    RLRunLoopTimerIsValid(t);
    last("IsValid(released timer)");

    TRACE("handler calls: %d", handled);
    RLSetErrorHandler(NULL, NULL);
    RLClearLastError();
    TRACE("after clear: code %d", (int)RLGetLastError());
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_errors") | harness_failures;
}
