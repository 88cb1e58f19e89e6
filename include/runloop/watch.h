/*
 * runloop/watch.h — Unix signals as run-loop sources.
 *
 * Included by <runloop/runloop.h> (and includes it).  The rules of
 * runloop.h apply: handles are checked on every call (NULL, stale and
 * wrong-type handles are reported through the error channel and the call
 * returns 0 / NULL); Create results are released with RLRelease(); Get
 * results are borrowed.
 *
 * Signals (dispatch's DISPATCH_SOURCE_TYPE_SIGNAL, GLib's
 * g_unix_signal_add, libuv's uv_signal_t).  An RLSignal catches one signal
 * from its creation until it is invalidated (or its last reference goes),
 * and its run loop source (RLSignalCreateRunLoopSource) calls the callout
 * on the loop's thread, with no library lock held, with the signal number
 * and how many times the signal arrived since the previous callout (at
 * least 1).
 *
 *   - Masks: nothing is required.  While a signal has an RLSignal, the
 *     library's handler is its disposition (sigaction, SA_RESTART); the
 *     kernel runs it on any thread that does not block the signal.  A
 *     signal blocked in every thread stays pending, as for any handler,
 *     and is counted when a thread unblocks it; so does a signal sent to
 *     one thread (raise, pthread_kill) that blocks it, as libdispatch's
 *     worker threads block every signal: send to the process (kill).  The
 *     library never changes a thread's mask.
 *   - Several RLSignals may catch the same signal, in one loop or in
 *     loops of several threads: each counts every arrival (from its
 *     creation on).  One RLSignal counts each arrival once: to have
 *     several loops each hear a signal, give each loop its own RLSignal.
 *   - Nothing is lost: every run of the handler is counted.  (The kernel
 *     itself merges a standard signal sent again while one is pending;
 *     real-time signals, SIGRTMIN..SIGRTMAX, are queued.)
 *   - Dispositions: the first RLSignal of a signal saves the disposition
 *     it replaces; when the last one of that signal is invalidated the
 *     saved disposition is put back (SIG_DFL, SIG_IGN or the program's
 *     handler).  A signal nobody watches keeps its disposition.  The
 *     previous handler is not called while the library's is installed.
 *   - fork(): the child starts with no watchers: the dispositions the
 *     library replaced are put back in the child, and the parent's
 *     RLSignals are refused there (kRLErrorForked), as every parent
 *     object.
 *   - The handler is async-signal-safe and does nothing but count the
 *     arrival and wake the loops of the signal's RLSignals (a write to an
 *     eventfd each; errno is preserved).
 *
 * Signals that cannot be caught: 0, SIGKILL and SIGSTOP, the synchronous
 * fault signals SIGSEGV, SIGBUS, SIGFPE and SIGILL (a handler that returns
 * would restart the faulting instruction forever), the C library's own
 * real-time signals below SIGRTMIN, and numbers outside 1..SIGRTMAX:
 * RLSignalCreate returns NULL with kRLErrorInvalidArgument.  At most 1024
 * RLSignals live at a time in a process (kRLErrorResources beyond).
 */
#ifndef RUNLOOP_WATCH_H
#define RUNLOOP_WATCH_H

#include "runloop.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __RLSignal *RLSignalRef;

/* Called on the loop's thread: `count` arrivals of `signo` (at least 1)
 * since the previous callout of this RLSignal (or its creation). */
typedef void (*RLSignalCallBack)(RLSignalRef s, int32_t signo, RLIndex count, void *info);

/* retain(info) at creation, release(info) at invalidation (after a
 * callout in flight returns). */
typedef struct {
    RLIndex version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    char *(*copyDescription)(const void *info);
} RLSignalContext;

RLTypeID RLSignalGetTypeID(void);
/* Starts catching `signo` (see the top of this file; caller releases).
 * Arrivals are counted from now on and delivered once the source is in a
 * running loop.  NULL, with an error, for a signal that cannot be caught,
 * a NULL callout, or when the system refuses an eventfd
 * (kRLErrorResources). */
RLSignalRef RLSignalCreate(RLAllocatorRef allocator, int32_t signo, RLSignalCallBack callout, const RLSignalContext *context);
/* The signal it catches; 0 on error. */
int32_t RLSignalGetSignal(RLSignalRef s);
void RLSignalGetContext(RLSignalRef s, RLSignalContext *context);
/* Stops catching: invalidates the source, puts the saved disposition back
 * if this was the signal's last RLSignal, and releases info (now, or when
 * a callout in flight returns).  Arrivals not yet delivered are dropped.
 * Idempotent; any thread, also from its own callout.  Releasing the last
 * reference invalidates it too. */
void RLSignalInvalidate(RLSignalRef s);
RLBoolean RLSignalIsValid(RLSignalRef s);
/* The source delivering the callouts (caller releases; the same source
 * each time while it lives).  NULL if invalid. */
RLRunLoopSourceRef RLSignalCreateRunLoopSource(RLAllocatorRef allocator, RLSignalRef s, RLIndex order);

#ifdef __cplusplus
}
#endif

#endif /* RUNLOOP_WATCH_H */
