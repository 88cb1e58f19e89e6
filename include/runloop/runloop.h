/*
 * runloop — Apple's CFRunLoop for Linux, with a Swift core and this C ABI.
 *
 * Every function of CoreFoundation's CFRunLoop.h has a twin here with the
 * prefix RL instead of CF, the same parameters and the same meaning.  Read
 * Apple's documentation of a CF function to learn its RL twin; this header
 * records what is specific to runloop.
 *
 * ----------------------------------------------------------------------------
 * Objects and ownership
 * ----------------------------------------------------------------------------
 * RLRunLoopRef, RLRunLoopSourceRef, RLRunLoopObserverRef, RLRunLoopTimerRef
 * and RLArrayRef are reference-counted handles.  CF's rule applies:
 *   - a function with Create or Copy in its name returns a reference the
 *     caller owns and must give back with RLRelease();
 *   - a function with Get in its name returns a borrowed reference, valid as
 *     long as the object it came from; RLRetain() it to keep it longer.
 * The library holds its own references while an item is scheduled, so an
 * item may be released right after it was added to a loop.
 *
 * Handles are not raw pointers: each one names a slot in a process-wide
 * table, checked on every call.  NULL, a released (stale) handle, or a
 * handle of the wrong type (a timer passed where a source is expected) is
 * detected — reliably, not by luck: a slot's 24-bit generation changes
 * when its object dies, so an old handle does not reach a new object
 * (unless that one slot was reused 16,777,216 times since) — and reported
 * (see "Errors" below); the call does nothing and returns 0 / NULL / false.
 * It never crashes the process.
 *
 * Mode names (RLRunLoopMode) are C strings compared by value, up to 1024
 * bytes (longer: kRLErrorInvalidArgument); "" is a valid name like any other.  The library
 * interns every name it is given: the pointers it returns for mode names
 * (RLRunLoopCopyCurrentMode, the elements of RLRunLoopCopyAllModes) stay
 * valid for the life of the process.  RLRelease() accepts such a pointer and
 * does nothing, so CF-style code that releases a copied mode keeps working.
 * RLModeNameCreate() interns a name built at run time the same way, and
 * RLEqual() compares names by text (cfcompat.h's CFStringCreateWithCString
 * and CFEqual).
 *
 * Strings returned by RLCopyDescription() are malloc()ed: free() them.
 *
 * Linking: librunloop.so.0 (symbols versioned RUNLOOP_0.1) carries the Swift
 * runtime inside it, hidden, and needs only libc, libm, libstdc++ and
 * libgcc_s: C programs and FFI users need no Swift toolchain.  A Swift
 * program should use the SwiftPM products (RunLoopKit, or `runloop` with
 * `import CRunLoop`) instead, which share the program's own runtime.  Each
 * copy of the library loaded into a process (another file loaded with
 * dlopen(RTLD_LOCAL), as ctypes loads a wheel's) is a separate engine with
 * its own loops and handles: pass a handle only to the copy that made it.
 * A copy given another copy's handle refuses it, always (kRLErrorStaleHandle,
 * nothing done): each copy claims a handle tag no other copy in the process
 * holds, by mapping one page of address space at a fixed address (one of
 * 127 pages from 0x7F000000).  127 copies in one process can make
 * objects; a copy loaded after that makes none (Create reports
 * kRLErrorResources).
 *
 * ----------------------------------------------------------------------------
 * Threads
 * ----------------------------------------------------------------------------
 * Each thread has at most one loop, created by its first
 * RLRunLoopGetCurrent() (or by RLRunLoopGetMain() for the main thread).
 * A loop opens its three descriptors (epoll, eventfd, timerfd) at its first
 * run (or RLRunLoopGetPollDescriptor), not before: a thread that only asks
 * for its loop, to add items or wake it, holds no descriptor.
 * Only the owning thread runs its loop (RLRunLoopRun, RLRunLoopRunInMode run
 * the calling thread's loop).  Every other function may be called from any
 * thread.  Callouts (perform, timer and observer callbacks, performed
 * functions and blocks) run on the loop's thread, with no library lock held:
 * they may add, remove, invalidate or release anything, including the item
 * being called, and may run the loop again (a nested run) in any mode.
 *
 * Wake-ups are never lost.  Work handed to a loop from another thread —
 * RLRunLoopPerformFunction, RLRunLoopSourceSignal or an add, followed by
 * RLRunLoopWakeUp, or RLRunLoopSourceSignalAndWakeUp alone — is looked at
 * by a pass that starts after the call: a loop asleep (or about to sleep)
 * wakes, a loop awake does not sleep before its next pass.  A call that
 * finds the work already pending (a wake-up pending, a source pending)
 * returns at once and still gets this guarantee: the pass that takes the
 * pending work comes after the call, whether the library function finds it
 * or the opt-in inline check of <runloop/fastpath.h> does.  Everything the
 * calling thread wrote before a call that queues work is visible to the
 * callout it causes; for a call that finds the work already pending (and
 * so writes nothing), data published with a lock or sequentially
 * consistent atomics before it is visible to the pending callout — the
 * contract of libuv's uv_async_send.
 * (The library fences where it publishes and where the loop looks:
 * docs/design.md, "The wake-up protocol"; Tests/c/test_rl_wake_pingpong.c
 * attacks every path.)
 *
 * A context's release(info) never runs while a callout using that info
 * runs or is about to run, and no callout starts after it: when another
 * thread invalidates or releases an item whose callout is in flight, the
 * release runs on the loop's thread as that callout returns.  A callout
 * that invalidates or releases its own item likewise sees the release when
 * it returns (CF's order for sources and timers).  Each release runs once.
 *
 * Ownership: RLRunLoopGetCurrent and RLRunLoopGetMain follow CF's Get rule:
 * the caller does not own the loop they return.  The library holds it for
 * the thread (for the main loop, for the life of the process).  RLRetain /
 * RLRelease it in pairs; an RLRelease that would drop the library's own
 * reference to the loop of a thread that has not exited (CF's classic
 * CFRelease(CFRunLoopGetCurrent())) is refused and reported as
 * kRLErrorOverRelease, so a loop is never destroyed under its thread or
 * while it runs.
 *
 * A thread's loop is torn down when the thread exits: its items are removed
 * (source cancel callbacks run on the exiting thread) and released, and its
 * three descriptors (if it ever ran) are closed, even while other
 * threads still retain handles to it.  Such a handle stays valid:
 * RLRunLoopStop, RLRunLoopWakeUp, RLRunLoopIsWaiting and the Contains /
 * Remove calls on it are harmless no-ops; adding to it or performing on it
 * reports kRLErrorLoopGone.  Nothing ever touches the closed descriptor
 * numbers, which later open()s may reuse.  (A poll descriptor handed out by
 * RLRunLoopGetPollDescriptor stays open, readable, until the last handle
 * goes: see "Driving a loop from another event loop".)
 *
 * ----------------------------------------------------------------------------
 * fork()
 * ----------------------------------------------------------------------------
 * A child made by fork() may not use its parent's loops, nor any other
 * object that existed at the fork: the child's copy of a loop would share
 * the parent's epoll set, eventfd and timerfd (the same open file
 * descriptions) and steal the parent's events.  In the child every handle
 * that was live at the fork is refused with kRLErrorForked (RLRetain and
 * RLRelease included); the library never touches such an object again,
 * nor its loop's inherited descriptors (they are close-on-exec: fork + exec
 * gives them back; they are not closed in the child).  The parent is never
 * disturbed.
 *
 * The child makes fresh loops: the forking thread is the child's main
 * thread, and RLRunLoopGetCurrent() and RLRunLoopGetMain() on it return a
 * new main loop (not the parent's, whether the fork was made on the
 * parent's main thread or another); RLRunLoopRun / RLRunLoopRunInMode run
 * that new loop, and threads the child starts get new loops as usual.  A
 * run of a parent's loop the child returns into (fork() called from a
 * callout, and the callout returns) ends before it would wait, with
 * kRLRunLoopRunFinished.  The child's main loop does not serve libdispatch's
 * main queue.
 *
 * fork() from any thread at any time is safe for the library: its
 * pthread_atfork handlers take its process-wide locks (and finish its
 * one-time initializations) around the fork, so the child never inherits
 * one held by a thread it does not have.  They are installed by the
 * library's first use.
 *
 * ----------------------------------------------------------------------------
 * Time
 * ----------------------------------------------------------------------------
 * RLAbsoluteTime is seconds since 2001-01-01 00:00:00 UTC (CF's epoch), read
 * from the wall clock; RLTimeInterval is seconds.  Timer deadlines are kept
 * on CLOCK_MONOTONIC.  A fire date is converted when it is set (created,
 * RLRunLoopTimerSetNextFireDate, or a repeating timer rescheduled after a
 * firing), through the wall clock as it is at that moment: after the wall
 * clock is stepped (by hand, NTP, an RTC correction at boot), a date
 * computed from RLAbsoluteTimeGetCurrent() fires when expected, and a timer
 * scheduled before the step keeps its monotonic deadline (as in CF) — its
 * reported next fire date catches up with the new wall clock at its next
 * reschedule.  Run timeouts are monotonic.  A date not in the future (the
 * past, -inf) means "now" at the moment it is set: the timer fires at once,
 * and a repeating one then every interval from that moment (CF's rule);
 * GetNextFireDate reports the date as set until the first firing.  NaN fire
 * dates and intervals are rejected with an error; negative intervals mean
 * one-shot; fire dates far in the future mean "never", and dates past
 * CF's limit (+inf, DBL_MAX) are clamped to it (4039289856.0).
 */
#ifndef RUNLOOP_RUNLOOP_H
#define RUNLOOP_RUNLOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "version.h" /* RL_VERSION_* (same folder) */

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Basic types (CF's, renamed)
 * ------------------------------------------------------------------------- */

typedef unsigned char RLBoolean;          /* CF's Boolean: 0 or 1 */
typedef long RLIndex;                     /* CFIndex */
typedef unsigned long RLOptionFlags;      /* CFOptionFlags */
typedef unsigned long RLHashCode;         /* CFHashCode */
typedef unsigned long RLTypeID;           /* CFTypeID */
typedef const void *RLTypeRef;            /* any runloop handle */
typedef const void *RLAllocatorRef;       /* accepted and ignored; pass NULL */
typedef double RLTimeInterval;            /* seconds */
typedef double RLAbsoluteTime;            /* seconds since 2001-01-01 UTC */

/* A mode name.  Compared by value; see "Mode names" above. */
typedef const char *RLRunLoopMode;

typedef struct __RLRunLoop *RLRunLoopRef;
typedef struct __RLRunLoopSource *RLRunLoopSourceRef;
typedef struct __RLRunLoopObserver *RLRunLoopObserverRef;
typedef struct __RLRunLoopTimer *RLRunLoopTimerRef;
typedef struct __RLArray *RLArrayRef;

/* The mode RLRunLoopRun() runs; common from the start.  Same text as CF's. */
#define kRLRunLoopDefaultMode ((RLRunLoopMode)"kCFRunLoopDefaultMode")
/* The pseudo-mode naming every mode marked common.  Same text as CF's. */
#define kRLRunLoopCommonModes ((RLRunLoopMode)"kCFRunLoopCommonModes")

/* Results of RLRunLoopRunInMode (CF's values). */
typedef int32_t RLRunLoopRunResult;
enum {
    kRLRunLoopRunFinished = 1,      /* the mode has no sources and no timers
                                     * (never a common mode of the main loop:
                                     * see RLRunLoopRunInMode) */
    kRLRunLoopRunStopped = 2,       /* RLRunLoopStop() was called */
    kRLRunLoopRunTimedOut = 3,      /* the time limit passed */
    kRLRunLoopRunHandledSource = 4  /* a source was handled and the caller asked to return */
};

/* Points of a loop's pass that observers can watch (CF's bits). */
typedef RLOptionFlags RLRunLoopActivity;
enum {
    kRLRunLoopEntry = (1UL << 0),
    kRLRunLoopBeforeTimers = (1UL << 1),
    kRLRunLoopBeforeSources = (1UL << 2),
    kRLRunLoopBeforeWaiting = (1UL << 5),
    kRLRunLoopAfterWaiting = (1UL << 6),
    kRLRunLoopExit = (1UL << 7),
    kRLRunLoopAllActivities = 0x0FFFFFFFU
};

/* ---------------------------------------------------------------------------
 * Errors
 *
 * The CF-shaped signatures stay; misuse is reported through one channel.
 * Each failing call records its error as the calling thread's last error
 * (like errno: kept until the next error or RLClearLastError, not cleared
 * by successful calls) and passes it to the process-wide error handler.
 * The default handler writes one line to stderr:
 *     runloop: RLRunLoopAddTimer: stale or unknown handle
 * ------------------------------------------------------------------------- */

typedef int32_t RLErrorCode;
enum {
    kRLErrorNone = 0,
    kRLErrorNullHandle = 1,       /* a NULL handle where one is required */
    kRLErrorStaleHandle = 2,      /* a released handle, or not a runloop handle */
    kRLErrorWrongType = 3,        /* e.g. a timer passed where a source is expected */
    kRLErrorInvalidArgument = 4,  /* NaN time, NULL callout or context, NULL or over-long
                                     (> 1024 bytes) mode name, bad context version,
                                     negative descriptor, index out of range, ... */
    kRLErrorWrongLoop = 5,        /* a timer or observer already scheduled on another loop */
    kRLErrorLoopGone = 6,         /* adding to / performing on the loop of an exited thread */
    kRLErrorOverRelease = 7,      /* RLRelease on an object with no references left, or
                                     one that would drop the library's own reference
                                     to a live thread's loop (see "Threads") */
    kRLErrorResources = 8,        /* out of descriptors, handles or memory */
    kRLErrorForked = 9,           /* in a fork() child: an object created before the
                                     fork (it is the parent's; see "fork()") */
    kRLErrorWrongThread = 10      /* a call only the loop's own thread may make
                                     (RLRunLoopRunPending, RLRunLoopGetTimeout) */
};

/* The calling thread's last error code (kRLErrorNone if none yet). */
RLErrorCode RLGetLastError(void);
/* The calling thread's last error as "Function: problem: detail", or NULL if
 * none.  malloc()ed: free() it. */
char *RLCopyLastErrorDescription(void);
/* Resets the calling thread's last error to kRLErrorNone. */
void RLClearLastError(void);

/* Called for every error, on the thread that made the failing call, with no
 * library lock held; `function` and `message` are valid during the call. */
typedef void (*RLErrorHandler)(RLErrorCode code, const char *function, const char *message, void *info);
/* Replaces the error handler (process-wide).  NULL restores the default
 * (one line on stderr); a handler that does nothing silences errors. */
void RLSetErrorHandler(RLErrorHandler handler, void *info);

/* ---------------------------------------------------------------------------
 * Objects: retain, release, type, description
 * ------------------------------------------------------------------------- */

/* Adds a reference to any runloop handle; returns it.  A mode name returned
 * by the library is accepted and returned unchanged. */
RLTypeRef RLRetain(RLTypeRef object);
/* Drops a reference.  The last release of an item that is not scheduled
 * calls its context's release(info) (for sources; timers and observers
 * release their info when invalidated, as CF does).
 * The last release takes effect even while other threads are inside calls
 * naming the object: from that moment the handle is stale (later calls
 * with it fail with kRLErrorStaleHandle, RLRetain included), and the
 * object is finalized as soon as the calls already inside the library are
 * done with it (at once if none is; then on the thread of the last one).
 * Such a call never keeps the object alive. */
void RLRelease(RLTypeRef object);
/* The number of references to the object, counting the library's own
 * (a scheduled item is referenced by each mode holding it), not calls in
 * progress that use it. 0 on error. */
RLIndex RLGetRetainCount(RLTypeRef object);
/* The type of a handle: one of the RL...GetTypeID() values; 0 on error. */
RLTypeID RLGetTypeID(RLTypeRef object);
/* A readable, multi-line description of a loop (current mode, common modes,
 * common mode items, and each mode's sources, observers and timers) or of a
 * single item.  Returns a malloc()ed string: free() it.  NULL on error.
 * The description of a source, observer or timer includes what its
 * context's copyDescription returns (as CF's).  Those callbacks run on the
 * calling thread with no lock held: a loop's contents are copied first,
 * each item held until the description is made, so a copyDescription may
 * call into the loop being described (RLRunLoopContainsSource, add or
 * remove items, invalidate its own item).  An item removed meanwhile is
 * still described, and the reference the description held is dropped
 * when it returns. */
char *RLCopyDescription(RLTypeRef object);
/* A mode name made at run time (cfcompat.h's CFStringCreateWithCString and
 * CFStringCreateCopy): the library's interned copy of `name`, the same
 * pointer for equal names, valid for the life of the process like every
 * mode name the library returns.  The caller may change or free its own
 * text at once, and may RLRelease() the result (accepted, does nothing):
 * a loop running in the mode is not affected.  Each distinct name stays
 * allocated until the process exits (as the modes a CF loop has seen do):
 * meant for mode and port names, not for text in bulk.  Any thread.  NULL
 * with kRLErrorInvalidArgument when name is NULL or longer than 1024 bytes. */
RLRunLoopMode RLModeNameCreate(const char *name);
/* CF's CFEqual on what runloop hands out.  Two mode names (any C strings)
 * are equal when their text is; a mode name never equals a handle.  Two
 * sources made from contexts (RLRunLoopSourceCreate, version 0 or 1) are
 * equal by CF's rule: both valid or both invalidated, the same order and
 * version, the same perform, equal and hash functions (NULL matching only
 * NULL; the hash values are not compared, nor the other callbacks), and
 * then equal(info1, info2) — called here, on the calling thread, with no
 * lock held — or, with no equal function, the same info.  Any other handle
 * equals only itself.  Any thread.  false with kRLErrorNullHandle when
 * either is NULL (CF crashes there), with the lookup's error for a stale
 * or foreign handle. */
RLBoolean RLEqual(RLTypeRef a, RLTypeRef b);

RLTypeID RLRunLoopGetTypeID(void);
RLTypeID RLRunLoopSourceGetTypeID(void);
RLTypeID RLRunLoopObserverGetTypeID(void);
RLTypeID RLRunLoopTimerGetTypeID(void);
RLTypeID RLArrayGetTypeID(void);

/* The current wall-clock time in RLAbsoluteTime. */
RLAbsoluteTime RLAbsoluteTimeGetCurrent(void);

/* ---------------------------------------------------------------------------
 * Arrays (what RLRunLoopCopyAllModes returns)
 * ------------------------------------------------------------------------- */

/* Number of elements; 0 on error. */
RLIndex RLArrayGetCount(RLArrayRef array);
/* Borrowed element at index (a mode name for mode arrays); NULL when index
 * is out of range. */
const void *RLArrayGetValueAtIndex(RLArrayRef array, RLIndex index);
/* An array of mode names, usable as the mode argument of
 * RLRunLoopPerformFunction / RLRunLoopPerformBlock.  Each name is copied
 * (interned).  Caller releases. */
RLArrayRef RLArrayCreateWithModes(const RLRunLoopMode *modes, RLIndex count);

/* ---------------------------------------------------------------------------
 * Run loops
 * ------------------------------------------------------------------------- */

/* The calling thread's loop, created on first use.  Borrowed (Get rule, not
 * owned: never RLRelease it without an RLRetain of your own): valid until
 * the thread exits (RLRetain it to use it from elsewhere after that).  In a
 * fork() child, a new loop (see "fork()"). */
RLRunLoopRef RLRunLoopGetCurrent(void);
/* The main thread's loop, from any thread.  Borrowed (Get rule, not owned);
 * lives forever.  In a fork() child, the child's own (see "fork()").  While
 * the main thread runs it in a common mode it also serves libdispatch's main
 * queue (dispatch_async(dispatch_get_main_queue(), ...)), as on Darwin; see
 * insight.h.  So its common modes are never empty (never
 * kRLRunLoopRunFinished), with or without libdispatch in the process; the
 * queue is not an item of any mode (RLRunLoopCopyAllModes and
 * RLCopyDescription do not show it). */
RLRunLoopRef RLRunLoopGetMain(void);

/* The mode the loop is running now (the innermost run), or NULL when it is
 * not running.  Interned: see "Mode names"; RLRelease() is optional. */
RLRunLoopMode RLRunLoopCopyCurrentMode(RLRunLoopRef rl);
/* The names of every mode the loop has (modes are created by the Add*
 * functions and by Perform*; never destroyed).  Caller releases the array;
 * the names inside are interned. */
RLArrayRef RLRunLoopCopyAllModes(RLRunLoopRef rl);
/* Marks a mode common: every item in the common mode items is added to it,
 * now and whenever an item is added to kRLRunLoopCommonModes later. */
void RLRunLoopAddCommonMode(RLRunLoopRef rl, RLRunLoopMode mode);
/* The earliest fire date among the valid timers of the mode, or 0 if none. */
RLAbsoluteTime RLRunLoopGetNextTimerFireDate(RLRunLoopRef rl, RLRunLoopMode mode);

/* Runs the current thread's loop in the default mode until it is stopped or
 * the mode has no sources and no timers (on the main thread: until it is
 * stopped, see RLRunLoopRunInMode). */
void RLRunLoopRun(void);
/* Runs the current thread's loop in `mode` for at most `seconds` (0 or less:
 * one pass without sleeping).  Returns a kRLRunLoopRun... value.  Returns
 * kRLRunLoopRunFinished at once, with no Entry/Exit notifications, when the
 * mode has no sources, no timers and no queued work, or does not exist.
 * kRLRunLoopCommonModes is not a mode a loop runs in: the call reports
 * kRLErrorInvalidArgument and returns kRLRunLoopRunFinished (CF returns
 * Finished and logs "invalid mode"), as RLRunLoopGetTimeout and
 * RLRunLoopRunPending refuse it.  On the main
 * thread, a common mode of the main loop is never empty, as in CF, whose
 * main loop always serves libdispatch's main queue there: a run of it
 * with nothing in it (or after its only timer fired) lasts its `seconds`
 * and returns kRLRunLoopRunTimedOut, whether or not the process has
 * libdispatch.  Other modes of the main loop end as on any thread, and so
 * does a run nested in a block of the dispatch main queue, which does not
 * serve the queue (as in CF; see insight.h).
 * May be called from inside a callout (nested run).
 * The loop's first run opens its descriptors: if the system refuses them
 * (out of descriptors), the run reports kRLErrorResources and returns
 * kRLRunLoopRunFinished, and a later run tries again. */
RLRunLoopRunResult RLRunLoopRunInMode(RLRunLoopMode mode, RLTimeInterval seconds, RLBoolean returnAfterSourceHandled);
/* Whether the loop is waiting for an event (between its BeforeWaiting and
 * AfterWaiting notifications): asleep, or spinning briefly before sleeping.
 * A loop whose recent waits were ended by quick wake-ups polls for up to
 * 50 us before it sleeps, so such a wake-up needs no syscall; waits ended by
 * timers, descriptors or timeouts turn that off, and so does being able to
 * run on one CPU only.  RUNLOOP_SPIN_US in the environment sets the limit (0: never
 * spin; read once per process). */
RLBoolean RLRunLoopIsWaiting(RLRunLoopRef rl);
/* Makes a sleeping loop wake and run a pass; if it is running but awake,
 * its next sleep returns at once.  Bursts of calls coalesce into one
 * wake-up.  As in CF, a wake-up is dropped when the loop is not running,
 * and between the moment it wakes and the top of its next pass (that pass
 * looks at every source and block anyway, including anything queued
 * before this call: see "Wake-ups are never lost" above).  A call that
 * changes nothing (a wake-up already pending, or dropped as above) costs a
 * few loads: it writes no memory another thread reads.
 * <runloop/fastpath.h> (opt-in) makes the already-pending check inline in
 * the caller. */
void RLRunLoopWakeUp(RLRunLoopRef rl);
/* Makes the innermost running RLRunLoopRunInMode of the loop return
 * kRLRunLoopRunStopped, from any thread: the run returns after the pass in
 * progress (a sleeping run wakes at once), however close the call comes to
 * the run's start or to its sleep.  Dropped when the loop is not running
 * (between runs, or its thread has exited): no error. */
void RLRunLoopStop(RLRunLoopRef rl);

/* ---------------------------------------------------------------------------
 * Driving a loop from another event loop (not in CF)
 * ---------------------------------------------------------------------------
 * A loop can be run by another event loop (GLib, libuv, asyncio, ...) on
 * the loop's thread instead of by RLRunLoopRun: the other loop waits on the
 * loop's poll descriptor, with the loop's timeout, and calls
 * RLRunLoopRunPending when the descriptor is readable or the timeout has
 * passed (sd-event's get_fd/prepare/dispatch, libuv's backend fd and
 * timeout).  One round:
 *
 *     int fd = RLRunLoopGetPollDescriptor(rl);               // once
 *     for (;;) {
 *         RLTimeInterval t = RLRunLoopGetTimeout(rl, mode);   // prepare
 *         struct pollfd p = { fd, POLLIN, 0 };
 *         poll(&p, 1, isinf(t) ? -1 : (int)ceil(t * 1000));
 *         RLRunLoopRunPending(rl, mode);                      // dispatch
 *     }
 *
 * The descriptor is readable while the loop has work in the mode it is
 * prepared for: a block queued for the mode, a source of the mode signalled,
 * a timer of the mode due, a descriptor of a version-1 source of the mode
 * ready, or a wake-up (RLRunLoopWakeUp, RLRunLoopSourceSignalAndWakeUp).
 * Work of the other modes (a ready descriptor, a due timer) does not make
 * it readable, nor does anything while the mode does not exist.
 * Readiness is level-triggered: it is not consumed by the caller's poll,
 * only by RLRunLoopRunPending, and RLRunLoopRunPending leaves the
 * descriptor readable if work remains after it (a callout signalled a
 * source, queued a block, left a descriptor unread, or a timer is due), so
 * work cannot be stranded behind a consumed readiness.  It may be readable
 * once with nothing to do (a wake-up that raced a run, or one made while
 * the mode is empty or missing): a run then finds nothing, returns
 * kRLRunLoopRunTimedOut (kRLRunLoopRunFinished if the mode is empty or
 * missing) and consumes it.
 *
 * The loop is *prepared* for a mode by RLRunLoopGetTimeout and by each
 * RLRunLoopRunPending: from then on, until it runs again, wake-ups from
 * any thread make the descriptor readable, as they wake a sleeping loop
 * (so RLRunLoopIsWaiting is true meanwhile), and so does a timer added to
 * (or moved in) that mode from any thread.  As in CF, a signal or a
 * queued block without a wake-up is seen only by the next prepare or run:
 * pair it with RLRunLoopWakeUp() (or RLRunLoopSourceSignalAndWakeUp) from
 * other threads.  Prepare before each wait, as in the round above; a run of
 * the loop by RLRunLoopRunInMode in between un-prepares it.  One mode at a
 * time: preparing for another mode replaces the first.
 *
 * Observers and results are those of RLRunLoopRunInMode(mode, 0, false):
 * Entry, BeforeTimers, BeforeSources, Exit (no BeforeWaiting / AfterWaiting:
 * the waiting is the other loop's), kRLRunLoopRunFinished without Entry and
 * Exit when the mode is empty, otherwise kRLRunLoopRunTimedOut (or
 * kRLRunLoopRunStopped / kRLRunLoopRunFinished as CF defines them).
 *
 * Bad input, each reported through the error channel:
 *   - RLRunLoopRunPending or RLRunLoopGetTimeout from another thread:
 *     kRLErrorWrongThread; nothing is run, the loop is not changed.
 *   - kRLRunLoopCommonModes as the mode of RLRunLoopGetTimeout or
 *     RLRunLoopRunPending: it names a set of modes, not a mode a loop runs
 *     in (RLRunLoopRunInMode, as CFRunLoopRunInMode, finishes at once in
 *     it; CF logs "invalid mode"): kRLErrorInvalidArgument, nothing is
 *     run, and the loop is left prepared for no mode, its descriptor quiet
 *     (not readable for the mode it was prepared for before, nor for
 *     wake-ups) until it is prepared for a mode again.  From a callout
 *     nothing is changed.
 *   - The loop's thread has exited: RLRunLoopGetPollDescriptor returns -1,
 *     RLRunLoopGetTimeout returns 0 and RLRunLoopRunPending returns
 *     kRLRunLoopRunFinished, each with kRLErrorLoopGone.  A descriptor handed
 *     out before the thread exited is not closed with the loop's other
 *     descriptors: it stays open and readable for good until the loop's last
 *     handle is released (so a driver still waiting on it wakes up, is told
 *     kRLErrorLoopGone, and never waits on a number reused by another file);
 *     then it is closed.  Hold a reference (RLRetain) while a driver uses it.
 *   - Closing the descriptor (it is the loop's: do not close it): the loop
 *     itself is not harmed (the descriptor is a wait set of its own around
 *     the loop's), no work is lost, and the next RLRunLoopGetPollDescriptor,
 *     RLRunLoopGetTimeout or RLRunLoopRunPending, whichever comes first,
 *     reports kRLErrorInvalidArgument ("poll descriptor N is no longer the
 *     loop's"), once; RLRunLoopGetPollDescriptor then returns (or, if it
 *     noticed, returns at once) a new descriptor, never with the old number,
 *     though an open() since may own it (a driver that compares numbers sees
 *     the change).  The library never closes or touches the old number
 *     again.  Until the driver moves to the new descriptor it hears of the
 *     loop's work only through its timeout.
 *   - RLRunLoopRunPending from inside a callout of the same loop is a nested
 *     run (as RLRunLoopRunInMode from a callout), allowed; the outermost
 *     run prepares the loop when it returns.  RLRunLoopGetTimeout from a
 *     callout only reports (it does not prepare a running loop).
 */

/* The loop's poll descriptor: readable while the loop has work in the mode
 * it was last prepared for (see above).  Made on first call; the same number
 * afterwards, unless the caller closed it: then a new one, with
 * kRLErrorInvalidArgument (see above).  Owned by the loop: do not close it,
 * read it or change its flags; poll it (poll, epoll, select, a GSource,
 * uv_poll_t, asyncio's add_reader) for reading.  It is close-on-exec.  Any thread.  -1 with an
 * error on a bad handle, a loop whose thread has exited (kRLErrorLoopGone),
 * or when out of descriptors (kRLErrorResources). */
int RLRunLoopGetPollDescriptor(RLRunLoopRef rl);
/* Prepares the loop to be waited for in `mode` and returns how long the
 * caller may wait before running it: 0 if work is pending in the mode or a
 * timer is due, the seconds until its earliest timer's window ends
 * otherwise, or INFINITY (isinf) if no timer is scheduled in the mode (only
 * the descriptor will tell).  Round up when converting to milliseconds.  The
 * loop's thread only (kRLErrorWrongThread otherwise; returns 0 on every
 * error).  From a callout it reports without preparing.  `mode` may name a
 * mode with no items yet: the first item added to it makes the descriptor
 * readable, so the caller prepares again and learns of it.
 * kRLRunLoopCommonModes is refused (kRLErrorInvalidArgument; see above). */
RLTimeInterval RLRunLoopGetTimeout(RLRunLoopRef rl, RLRunLoopMode mode);
/* Runs the work pending in `mode` without waiting — one pass, exactly
 * RLRunLoopRunInMode(mode, 0, false) on `rl` — and then prepares the loop
 * for `mode` again.  `rl` must be the calling thread's loop
 * (kRLErrorWrongThread otherwise, nothing run); kRLRunLoopCommonModes is
 * refused (kRLErrorInvalidArgument, see above).  Returns a kRLRunLoopRun...
 * value (kRLRunLoopRunFinished on error). */
RLRunLoopRunResult RLRunLoopRunPending(RLRunLoopRef rl, RLRunLoopMode mode);

/* A function to run on a loop's thread. */
typedef void (*RLRunLoopPerformCallBack)(void *info);
/* Queues fn(info) to run once on the loop's thread, the next time the loop
 * runs a pass in `mode`.  `mode` is a mode name, kRLRunLoopCommonModes, or
 * an RLArrayRef of mode names (any of them matches).  Does not wake the
 * loop: follow with RLRunLoopWakeUp() when calling from another thread.
 * The library does not retain or release `info`.  Any thread, and
 * lock-free in the usual case: one mode name the loop already has (the
 * default mode, kRLRunLoopCommonModes, or the mode of the last queued
 * block that named another mode) and fewer than 64 functions waiting to
 * be taken by the loop; then it takes no lock, pins nothing and allocates
 * nothing.  Otherwise it takes a lock (and creates the mode).  Queued
 * work runs in the order it was queued (from one thread: call order). */
void RLRunLoopPerformFunction(RLRunLoopRef rl, RLTypeRef mode, RLRunLoopPerformCallBack fn, void *info);
#if defined(__BLOCKS__)
/* Same as RLRunLoopPerformFunction with a block, copied by the library (one
 * allocation, freed after it runs); lock-free in the same usual case. */
void RLRunLoopPerformBlock(RLRunLoopRef rl, RLTypeRef mode, void (^block)(void));
#endif

RLBoolean RLRunLoopContainsSource(RLRunLoopRef rl, RLRunLoopSourceRef source, RLRunLoopMode mode);
/* Adds a source to a mode (creating the mode) or to kRLRunLoopCommonModes.
 * Adding an item already there does nothing.  The source's schedule
 * callback runs once per concrete mode it joins.  A source may be in
 * several loops.  As in CF, two sources made from version-0 contexts are
 * the same item when RLEqual says they are equal and their hashes match
 * (hash(info), or without hash the info pointer, as a CFSet of sources
 * looks only under the hash): Add, Remove and Contains then act on the one
 * the loop holds.  Other sources (version 1 included) are held by
 * identity. */
void RLRunLoopAddSource(RLRunLoopRef rl, RLRunLoopSourceRef source, RLRunLoopMode mode);
/* Removes a source; its cancel callback runs once per mode it leaves.
 * Removing from kRLRunLoopCommonModes removes it from every common mode. */
void RLRunLoopRemoveSource(RLRunLoopRef rl, RLRunLoopSourceRef source, RLRunLoopMode mode);

RLBoolean RLRunLoopContainsObserver(RLRunLoopRef rl, RLRunLoopObserverRef observer, RLRunLoopMode mode);
/* An observer belongs to one loop: adding it to a second loop fails with an
 * error. */
void RLRunLoopAddObserver(RLRunLoopRef rl, RLRunLoopObserverRef observer, RLRunLoopMode mode);
void RLRunLoopRemoveObserver(RLRunLoopRef rl, RLRunLoopObserverRef observer, RLRunLoopMode mode);

RLBoolean RLRunLoopContainsTimer(RLRunLoopRef rl, RLRunLoopTimerRef timer, RLRunLoopMode mode);
/* A timer belongs to one loop: adding it to a second loop fails with an
 * error. */
void RLRunLoopAddTimer(RLRunLoopRef rl, RLRunLoopTimerRef timer, RLRunLoopMode mode);
void RLRunLoopRemoveTimer(RLRunLoopRef rl, RLRunLoopTimerRef timer, RLRunLoopMode mode);

/* ---------------------------------------------------------------------------
 * Sources (version 0)
 * ------------------------------------------------------------------------- */

/* CF's CFRunLoopSourceContext, field for field.  `version` must be 0.
 * retain(info) is called once at creation and release(info) once when the
 * source is destroyed.  copyDescription, if set, returns a malloc()ed
 * string the library frees (shown by RLCopyDescription).  equal and hash
 * decide which sources are equal (RLEqual, RLRunLoopAddSource); hash is
 * called once, at creation.  schedule/cancel run on the thread calling
 * Add/Remove/Invalidate (or the exiting thread at loop teardown); perform
 * runs on the loop's thread. */
typedef struct {
    RLIndex version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    char *(*copyDescription)(const void *info);
    RLBoolean (*equal)(const void *info1, const void *info2);
    RLHashCode (*hash)(const void *info);
    void (*schedule)(void *info, RLRunLoopRef rl, RLRunLoopMode mode);
    void (*cancel)(void *info, RLRunLoopRef rl, RLRunLoopMode mode);
    void (*perform)(void *info);
} RLRunLoopSourceContext;

/* A version-1 source (CF's CFRunLoopSourceContext1, Linux flavour): set
 * `version` to 1 and pass a pointer to this struct, cast to
 * RLRunLoopSourceContext *, to RLRunLoopSourceCreate.  getPort(info) is
 * called once, at creation, and returns the file descriptor to watch.
 * While the loop runs a mode holding the source and the descriptor is
 * readable, the loop calls perform(info) on its thread — every pass while
 * it stays readable (level-triggered), all ready sources in one pass.
 * The library never reads from or closes the descriptor.  Signal() has
 * no effect on a version-1 source.
 *
 * Descriptor ownership (version-1 sources and RLFileDescriptor alike): a
 * descriptor must stay open until its source is invalidated (or removed
 * from every mode); close it only after that.  epoll watches the open
 * file, not the number: a descriptor closed while watched, whose file
 * stays open elsewhere (a dup, a forked child), would keep reporting under
 * its number, also for a new descriptor that reuses the number.  The
 * library detects that case when it meets it, reports it through the error
 * channel (kRLErrorInvalidArgument, naming the descriptor) and rebuilds
 * the loop's wait set without it, so the loop never spins on it; closing
 * a watched descriptor is reported the same way.
 *
 * Descriptors epoll cannot watch (regular files, /dev/null: epoll_ctl
 * fails with EPERM) are always ready, as poll(2) reports them and as CF
 * does on Darwin: a version-1 source on one is performed on every pass
 * while the loop runs a mode holding it (the loop does not sleep), and an
 * RLFileDescriptor's enabled callbacks fire on the next pass, once per
 * enable (they are one-shot).  Any other epoll_ctl failure is reported
 * through the error channel. */
typedef struct {
    RLIndex version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    char *(*copyDescription)(const void *info);
    RLBoolean (*equal)(const void *info1, const void *info2);
    RLHashCode (*hash)(const void *info);
    int (*getPort)(void *info);
    void (*perform)(void *info);
} RLRunLoopSourceContext1;

/* Creates a source (caller releases).  `order` sorts performs within a
 * pass, lowest first; ties run in the order the sources were signalled.
 * `context` is an RLRunLoopSourceContext (version 0) or a cast
 * RLRunLoopSourceContext1 (version 1).  NULL (with an error) if context is
 * NULL, its version is not 0 or 1, or a version-1 getPort returns a
 * negative descriptor. */
RLRunLoopSourceRef RLRunLoopSourceCreate(RLAllocatorRef allocator, RLIndex order, RLRunLoopSourceContext *context);
RLIndex RLRunLoopSourceGetOrder(RLRunLoopSourceRef source);
/* Removes the source from every loop and mode (cancel runs for each) and
 * makes it inert.  Safe from inside any callout, including its own. */
void RLRunLoopSourceInvalidate(RLRunLoopSourceRef source);
RLBoolean RLRunLoopSourceIsValid(RLRunLoopSourceRef source);
/* Copies the source's context into *context (an RLRunLoopSourceContext1
 * for a version-1 source). */
void RLRunLoopSourceGetContext(RLRunLoopSourceRef source, RLRunLoopSourceContext *context);
/* Marks the source pending: the next pass of any loop running a mode that
 * holds it performs it once (several signals before that pass give one
 * perform).  Does not wake the loop: pair with RLRunLoopWakeUp().
 * Signalling a source that is already pending costs a few loads (see
 * "Wake-ups are never lost" above for what the perform then sees); making
 * a source of one loop pending takes no lock (it is queued on that loop's
 * lock-free ring, like RLRunLoopPerformFunction's blocks).
 * <runloop/fastpath.h> (opt-in) makes the already-pending check inline in
 * the caller. */
void RLRunLoopSourceSignal(RLRunLoopSourceRef source);
/* Not in CF: RLRunLoopSourceSignal() and RLRunLoopWakeUp() of every loop
 * holding the source, in one call (what libuv's uv_async_send does).  From
 * any thread.  Use it where CF code writes the pair with the source's one
 * loop: there is no loop to name, and a source that is already pending
 * and woken costs one load (the pair costs two calls).  A source in no
 * loop is only marked pending, like RLRunLoopSourceSignal(); an
 * invalidated or version-1 source is left alone.  Mixes freely with the
 * CF pair: it wakes the loops even when an RLRunLoopSourceSignal() (which
 * does not wake) made the source pending first.  A source added to a loop
 * of another thread while it is pending from this call wakes that loop
 * (the wake-up went to the loops it was in before).
 * <runloop/fastpath.h> (opt-in) makes the pending-and-woken check inline
 * in the caller. */
void RLRunLoopSourceSignalAndWakeUp(RLRunLoopSourceRef source);
/* Whether the source is signalled and not yet performed. */
RLBoolean RLRunLoopSourceIsSignalled(RLRunLoopSourceRef source);

/* ---------------------------------------------------------------------------
 * Observers
 * ------------------------------------------------------------------------- */

/* CF's CFRunLoopObserverContext.  retain(info) at creation; release(info)
 * when the observer is invalidated (or destroyed while still valid).
 * copyDescription, if set, returns a malloc()ed string the library frees
 * (shown by RLCopyDescription while the observer is valid). */
typedef struct {
    RLIndex version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    char *(*copyDescription)(const void *info);
} RLRunLoopObserverContext;

typedef void (*RLRunLoopObserverCallBack)(RLRunLoopObserverRef observer, RLRunLoopActivity activity, void *info);

/* Creates an observer (caller releases) called on the loop's thread at the
 * activities in the mask.  Within one activity observers run by `order`,
 * lowest first, ties in the order they were added.  A non-repeating
 * observer invalidates itself after its first callout.  An observer that is
 * running is not called again by a nested run.  A NULL callout is valid,
 * as in CF: the observer is scheduled and "called" for nothing (a
 * placeholder); a non-repeating one still invalidates itself. */
RLRunLoopObserverRef RLRunLoopObserverCreate(RLAllocatorRef allocator, RLOptionFlags activities, RLBoolean repeats, RLIndex order, RLRunLoopObserverCallBack callout, RLRunLoopObserverContext *context);
#if defined(__BLOCKS__)
RLRunLoopObserverRef RLRunLoopObserverCreateWithHandler(RLAllocatorRef allocator, RLOptionFlags activities, RLBoolean repeats, RLIndex order, void (^block)(RLRunLoopObserverRef observer, RLRunLoopActivity activity));
#endif
RLOptionFlags RLRunLoopObserverGetActivities(RLRunLoopObserverRef observer);
RLBoolean RLRunLoopObserverDoesRepeat(RLRunLoopObserverRef observer);
RLIndex RLRunLoopObserverGetOrder(RLRunLoopObserverRef observer);
/* Removes the observer from its loop and releases its info. */
void RLRunLoopObserverInvalidate(RLRunLoopObserverRef observer);
RLBoolean RLRunLoopObserverIsValid(RLRunLoopObserverRef observer);
void RLRunLoopObserverGetContext(RLRunLoopObserverRef observer, RLRunLoopObserverContext *context);

/* ---------------------------------------------------------------------------
 * Timers
 * ------------------------------------------------------------------------- */

/* CF's CFRunLoopTimerContext.  retain(info) at creation; release(info)
 * when the timer is invalidated (or destroyed while still valid).
 * copyDescription, if set, returns a malloc()ed string the library frees
 * (shown by RLCopyDescription while the timer is valid). */
typedef struct {
    RLIndex version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    char *(*copyDescription)(const void *info);
} RLRunLoopTimerContext;

typedef void (*RLRunLoopTimerCallBack)(RLRunLoopTimerRef timer, void *info);

/* Creates a timer (caller releases) that fires first at `fireDate`, then
 * every `interval` seconds if interval > 0 (0 or negative: one-shot, which
 * invalidates itself after firing).  A repeating timer keeps its original
 * schedule: if the loop was busy past one or more fire dates, the timer
 * fires once and continues with the next future slot (no bursts).  Timers
 * due at the same moment fire in the order they were scheduled.  `flags`
 * is ignored (as in CF).  `order` is stored and reported.  A fire date
 * past CF's limit 4039289856.0 (2128-12-31; DBL_MAX and +inf included) is
 * stored and reported as that limit, which never comes.  A repeating
 * timer steps at most 504,911,232 s (about 16 years; CF's cap) between two
 * fire dates: after a timer with a longer interval (DBL_MAX and +inf
 * included) fires, its next fire date is 504,911,232 s after the one it
 * fired for — never +inf, never past the limit — and RLRunLoopTimerGetInterval
 * still reports the interval as given.  A NULL callout
 * is valid, as in CF: the timer fires, calls nothing, and a one-shot one is
 * invalidated.  NaN fire date or NaN interval: error, NULL.  Out of
 * memory (or of handles): kRLErrorResources, NULL; RLRunLoopAddTimer
 * reports the same when a mode cannot grow to hold one more timer. */
RLRunLoopTimerRef RLRunLoopTimerCreate(RLAllocatorRef allocator, RLAbsoluteTime fireDate, RLTimeInterval interval, RLOptionFlags flags, RLIndex order, RLRunLoopTimerCallBack callout, RLRunLoopTimerContext *context);
#if defined(__BLOCKS__)
RLRunLoopTimerRef RLRunLoopTimerCreateWithHandler(RLAllocatorRef allocator, RLAbsoluteTime fireDate, RLTimeInterval interval, RLOptionFlags flags, RLIndex order, void (^block)(RLRunLoopTimerRef timer));
#endif
/* The next fire date; 0 once the timer is invalid (as in CF). */
RLAbsoluteTime RLRunLoopTimerGetNextFireDate(RLRunLoopTimerRef timer);
/* Moves the next fire date (also from inside the timer's own callout, where
 * it replaces the automatic reschedule of a repeating timer); clamped to
 * 4039289856.0 like RLRunLoopTimerCreate's.  Ignored once the timer is
 * invalid (as in CF). */
void RLRunLoopTimerSetNextFireDate(RLRunLoopTimerRef timer, RLAbsoluteTime fireDate);
RLTimeInterval RLRunLoopTimerGetInterval(RLRunLoopTimerRef timer);
RLBoolean RLRunLoopTimerDoesRepeat(RLRunLoopTimerRef timer);
RLIndex RLRunLoopTimerGetOrder(RLRunLoopTimerRef timer);
/* Removes the timer from its loop and releases its info.  Safe from inside
 * any callout, including its own. */
void RLRunLoopTimerInvalidate(RLRunLoopTimerRef timer);
RLBoolean RLRunLoopTimerIsValid(RLRunLoopTimerRef timer);
void RLRunLoopTimerGetContext(RLRunLoopTimerRef timer, RLRunLoopTimerContext *context);
/* How late the timer may fire, to let the loop coalesce wake-ups: it fires
 * within [fire date, fire date + tolerance], and the loop wakes once for
 * every timer whose window has opened; see insight.h.  For a repeating
 * timer the tolerance is clamped to half its interval when set, and
 * GetTolerance reports the clamped value (Darwin's CF; CF on Linux ignores
 * tolerance).  Negative or NaN values are stored as 0 with an error;
 * +infinity is stored as 3.2e9 s (about 100 years), or half the interval. */
RLTimeInterval RLRunLoopTimerGetTolerance(RLRunLoopTimerRef timer);
void RLRunLoopTimerSetTolerance(RLRunLoopTimerRef timer, RLTimeInterval tolerance);

/* ---------------------------------------------------------------------------
 * File descriptors (CF's CFFileDescriptor)
 * ------------------------------------------------------------------------- */

typedef struct __RLFileDescriptor *RLFileDescriptorRef;
typedef int RLFileDescriptorNativeDescriptor;

enum {
    kRLFileDescriptorReadCallBack = 1UL << 0,
    kRLFileDescriptorWriteCallBack = 1UL << 1
};

/* Called on the loop's thread with the callback types that fired. */
typedef void (*RLFileDescriptorCallBack)(RLFileDescriptorRef f, RLOptionFlags callBackTypes, void *info);

/* retain(info) at creation, release(info) at invalidation. */
typedef struct {
    RLIndex version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    char *(*copyDescription)(const void *info);
} RLFileDescriptorContext;

RLTypeID RLFileDescriptorGetTypeID(void);
/* Wraps `fd` (caller releases).  No callbacks are enabled at first.  With
 * closeOnInvalidate the library closes fd when the object is invalidated
 * (or destroyed while valid); otherwise it never closes it, and the caller
 * must keep it open until the object is invalidated (see "Descriptor
 * ownership" at RLRunLoopSourceContext1).  Works with any pollable
 * descriptor: pipes, sockets, eventfds, timerfds, signalfds; a regular
 * file or /dev/null is always ready (its enabled callbacks fire at once).
 * NULL (with an error) for a negative fd or a NULL callout. */
RLFileDescriptorRef RLFileDescriptorCreate(RLAllocatorRef allocator, RLFileDescriptorNativeDescriptor fd, RLBoolean closeOnInvalidate, RLFileDescriptorCallBack callout, const RLFileDescriptorContext *context);
RLFileDescriptorNativeDescriptor RLFileDescriptorGetNativeDescriptor(RLFileDescriptorRef f);
void RLFileDescriptorGetContext(RLFileDescriptorRef f, RLFileDescriptorContext *context);
/* Enables callbacks (kRLFileDescriptorReadCallBack, ...WriteCallBack).  As
 * in CF they are one-shot: a callback type is disabled again just before
 * its callout, which re-enables it to hear about the next readiness.  Any
 * thread. */
void RLFileDescriptorEnableCallBacks(RLFileDescriptorRef f, RLOptionFlags callBackTypes);
void RLFileDescriptorDisableCallBacks(RLFileDescriptorRef f, RLOptionFlags callBackTypes);
/* Invalidates its run loop source, releases info, closes the descriptor if
 * asked to at creation.  Safe from inside its own callout. */
void RLFileDescriptorInvalidate(RLFileDescriptorRef f);
RLBoolean RLFileDescriptorIsValid(RLFileDescriptorRef f);
/* The source that delivers the callbacks on a loop (caller releases; the
 * same source each time while it lives).  NULL if invalid. */
RLRunLoopSourceRef RLFileDescriptorCreateRunLoopSource(RLAllocatorRef allocator, RLFileDescriptorRef f, RLIndex order);

#ifdef __cplusplus
}
#endif

/* Message ports, data and keep-alive worker threads. */
#include "ports.h"
/* Sockets (CF's CFSocket). */
#include "socket.h"
/* Unix signals as sources. */
#include "watch.h"
#include "insight.h"
/* Not included: <runloop/fastpath.h>, the opt-in inline fast paths of
 * RLRunLoopSourceSignal, RLRunLoopWakeUp and RLRunLoopSourceSignalAndWakeUp,
 * which compile the library's internal layout into the caller (that
 * header says when that is worth it). */

#endif /* RUNLOOP_RUNLOOP_H */
