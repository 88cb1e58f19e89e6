/*
 * runloop/insight.h — seeing what a loop does: stall monitor, statistics,
 * Chrome/Perfetto traces, and what timer tolerance means here.
 *
 * Included by <runloop/runloop.h> (and includes it).  None of this exists in
 * CoreFoundation.  The rules of runloop.h apply: handles are checked on every
 * call (NULL, stale and wrong-type handles are reported on stderr and the
 * call does nothing / returns 0).
 *
 * ----------------------------------------------------------------------------
 * Phases
 * ----------------------------------------------------------------------------
 * A running loop is always in one step of its pass (see docs/design.md):
 * the stall monitor reports the step, traces show each step as a slice.
 * Observer callouts happen in the step named after their activity (Entry,
 * BeforeTimers, BeforeSources, BeforeWaiting, AfterWaiting, Exit).
 *
 * ----------------------------------------------------------------------------
 * Timer tolerance (RLRunLoopTimerSetTolerance)
 * ----------------------------------------------------------------------------
 * Unlike CoreFoundation on Linux, where tolerance is stored and ignored, a
 * timer with tolerance T fires somewhere in [fire date, fire date + T]:
 * never early, never after its window (unless the loop's thread is busy
 * elsewhere — a callout that blocks delays everything, as in CF).  When it
 * goes to sleep the loop wakes at the earliest "fire date + tolerance"
 * among its timers and fires every timer that is due by then, so timers
 * with overlapping windows share one wake-up.  With tolerance 0 (the
 * default) a timer fires as soon as it is due, as before.  For a repeating
 * timer the window is at most half its interval (as on Darwin), so
 * tolerance never makes it skip a slot.  RLRunLoopTimerGetTolerance
 * reports the value that was set.  Measured (Tests/c/test_rl_tolerance.c):
 * 1,000 repeating 100 ms timers with spread-out phases woke a loop 9,988
 * times in one second with tolerance 0 and 99 times with 10 ms (10%); none
 * early, the latest 2.3 ms past its window (100 callouts in a row).
 */
/*
 * ----------------------------------------------------------------------------
 * libdispatch's main queue
 * ----------------------------------------------------------------------------
 * As CoreFoundation does on Darwin, the main thread's loop serves the main
 * dispatch queue: work sent with dispatch_async(dispatch_get_main_queue(),
 * ...) (Swift: DispatchQueue.main.async, @MainActor jobs) runs on the main
 * thread while it runs its loop in a common mode, woken by the queue's
 * descriptor (no polling).  runloop does not link libdispatch: if it is in
 * the process when the main loop first runs, every common mode of the main
 * loop watches the queue's descriptor from then on, for the life of the
 * process (the queue is not an item: it makes no mode exist, and shows in
 * no mode).  A common mode of the main loop never returns
 * kRLRunLoopRunFinished, as with CF, and that holds whether or not the
 * process has libdispatch (see RLRunLoopRunInMode).  Other modes, and other
 * threads' loops, do not serve it; nor does a run nested in a block of the
 * queue (libdispatch's drain is not re-entrant; CF's neither), where a
 * common mode with nothing else in it returns kRLRunLoopRunFinished as on
 * any thread.
 */
#ifndef RUNLOOP_INSIGHT_H
#define RUNLOOP_INSIGHT_H

#include "runloop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The step of the pass a loop is in. */
typedef int32_t RLRunLoopPhase;
enum {
    kRLRunLoopPhaseIdle = 0,           /* not running */
    kRLRunLoopPhaseEntry = 1,          /* Entry observers */
    kRLRunLoopPhaseBeforeTimers = 2,   /* BeforeTimers observers */
    kRLRunLoopPhaseBeforeSources = 3,  /* BeforeSources observers */
    kRLRunLoopPhaseBlocks = 4,         /* queued blocks / functions */
    kRLRunLoopPhaseSources = 5,        /* signalled version-0 sources */
    kRLRunLoopPhaseBeforeWaiting = 6,  /* BeforeWaiting observers */
    kRLRunLoopPhaseWaiting = 7,        /* asleep (never a stall) */
    kRLRunLoopPhaseAfterWaiting = 8,   /* AfterWaiting observers */
    kRLRunLoopPhaseTimers = 9,         /* firing due timers */
    kRLRunLoopPhaseDescriptors = 10,   /* version-1 sources with ready descriptors */
    kRLRunLoopPhaseExit = 11           /* Exit observers */
};

/* What kind of user code the loop is calling, if any. */
typedef int32_t RLRunLoopCalloutKind;
enum {
    kRLRunLoopCalloutNone = 0,
    kRLRunLoopCalloutObserver = 1,
    kRLRunLoopCalloutTimer = 2,
    kRLRunLoopCalloutSource = 3,       /* a version-0 source's perform */
    kRLRunLoopCalloutDescriptor = 4,   /* a version-1 source (descriptor ready) */
    kRLRunLoopCalloutBlock = 5         /* a block or function performed on the loop */
};

/* A short English name of a phase or callout kind ("BeforeWaiting",
 * "timer"; "?" for an unknown value).  Static storage, never NULL. */
const char *RLRunLoopPhaseGetName(RLRunLoopPhase phase);
const char *RLRunLoopCalloutKindGetName(RLRunLoopCalloutKind kind);

/* ---------------------------------------------------------------------------
 * Stall monitor
 * ------------------------------------------------------------------------- */

typedef struct {
    RLRunLoopPhase phase;              /* the step the loop is stuck in */
    RLRunLoopCalloutKind callout;      /* the user code it is stuck in, or None */
    /* The observer, timer or source being called out (borrowed, for
     * identification only: it may be gone when you look); NULL for None,
     * blocks, and callouts the library cannot name. */
    RLTypeRef item;
    RLRunLoopMode mode;                /* the mode being run (interned, permanent) */
    RLTimeInterval elapsed;            /* seconds spent in this step so far */
} RLRunLoopStall;

/* Called on the watchdog thread — NOT on the loop's thread, which is the
 * one that is stuck.  Do not run the loop from here; RLRunLoopGetStatistics,
 * RLRunLoopWakeUp, RLRunLoopStop and RLRunLoopSetStallHandler are fine. */
typedef void (*RLRunLoopStallHandler)(RLRunLoopRef rl, const RLRunLoopStall *stall, void *info);

/* Watches `rl`: when it stays in one step of a pass (a phase) or in one
 * callout for longer than `threshold` seconds, `handler(rl, &stall, info)`
 * is called from a single watchdog thread shared by every monitored loop.
 * Sleeping (kRLRunLoopPhaseWaiting) and not running are never stalls.  A
 * stall is reported once, when it crosses the threshold, however long it
 * lasts; the next step or callout starts a new count.  Detection is at the
 * threshold (the watchdog sleeps until the current step would become a
 * stall, and wakes at most once per threshold per monitored loop).
 *
 * threshold <= 0 (or NaN) or a NULL handler turns monitoring off; a new call
 * replaces the previous handler.  When this returns, the previous handler is
 * not running and will not be called again (unless called from inside that
 * handler, which is allowed).  `info` is not retained: keep it valid until
 * the handler is replaced or turned off.  Any thread.  Off by default; when
 * off the loop pays one relaxed atomic load per step. */
void RLRunLoopSetStallHandler(RLRunLoopRef rl, RLTimeInterval threshold, RLRunLoopStallHandler handler, void *info);

/* ---------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------- */

/* Lateness buckets: bucket 0 holds timers fired less than 1 µs after their
 * fire date, bucket i (1..22) those late by [2^(i-1), 2^i) µs, bucket 23
 * 2^22 µs (about 4 s) or more. */
#define RL_RUN_LOOP_LATENESS_BUCKETS 24

/* Counters since the loop was created or last reset.  Set `size` to
 * sizeof(RLRunLoopStatistics) before the call: fields the library knows
 * beyond `size` are not written (so the struct can grow at its end). */
typedef struct {
    uint32_t size;                     /* in: sizeof(RLRunLoopStatistics) */
    uint32_t reserved;
    uint64_t passes;                   /* passes started (all runs, nested too) */
    uint64_t sleeps;                   /* waits that could block (not polls) */
    /* Each sleep that ended counts once, under the first of: */
    uint64_t wakeUpsByDescriptor;      /* a version-1 source's descriptor ready */
    uint64_t wakeUpsByWakeUp;          /* RLRunLoopWakeUp / a source signalled / a block queued / Stop */
    uint64_t wakeUpsByTimer;           /* a timer became due */
    uint64_t wakeUpsByTimeout;         /* the run's time limit */
    uint64_t timersFired;
    /* Fired more than 1 ms after fire date + tolerance. */
    uint64_t timersLate;
    /* Slots of repeating timers that were skipped because the loop was
     * late (missed slots are skipped, never fired in a burst). */
    uint64_t timerSlotsSkipped;
    /* Time from a timer's fire date to its callout (tolerance included). */
    uint64_t latenessHistogram[RL_RUN_LOOP_LATENESS_BUCKETS];
    uint64_t version0Performed;        /* version-0 source performs */
    uint64_t version1Performed;        /* version-1 source callouts */
    uint64_t observersCalled;
    uint64_t blocksRun;
    /* The longest callout.  Each callout is timed on its own, from the
     * end of the previous callout of the same step (or the step's start),
     * so a callout's time includes the library's bookkeeping between the
     * two (tens of nanoseconds; for a timer, the removal or rescheduling
     * of the timer before it), and a timer's lateness is measured from
     * the reading that starts it. */
    uint64_t longestCalloutNanoseconds;
    RLRunLoopCalloutKind longestCalloutKind;
    uint32_t reserved2;
    /* Times the loop's thread gave its CPU away (sched_yield) because
     * signalled version-0 sources kept a run busy, every pass performing
     * one, for 50 µs: signals coalesce, so on a machine with more runnable
     * threads than CPUs the threads signalling get the CPU, and a later
     * pass performs once for all their signals.  With no thread waiting
     * for the CPU the yield returns at once. */
    uint64_t busyYields;
} RLRunLoopStatistics;

/* Copies the loop's counters into *stats (see `size` above).  Any thread:
 * the loop's thread updates the counters with plain (relaxed) stores and
 * this reads each one atomically, so a copy taken while the loop runs may
 * mix counters from two adjacent moments.  stats NULL, or size smaller than
 * the fields up to `passes`: error, nothing written.  Counting is always
 * on; it costs a few relaxed stores per pass, two clock readings per step
 * that calls out, and one more per timer fired; see
 * longestCalloutNanoseconds. */
void RLRunLoopGetStatistics(RLRunLoopRef rl, RLRunLoopStatistics *stats);
/* Sets every counter to 0.  Any thread (a pass in progress on the loop's
 * thread may add to the fresh counters a value it read before the reset). */
void RLRunLoopResetStatistics(RLRunLoopRef rl);

/* ---------------------------------------------------------------------------
 * Traces (Chrome trace-event JSON: open in https://ui.perfetto.dev or
 * chrome://tracing)
 * ------------------------------------------------------------------------- */

/* Starts recording `rl`'s steps and callouts into a new file at `path`
 * (truncated if it exists): one complete ("X") event per step of each pass
 * and per callout, with the loop's thread as tid and timestamps in µs on
 * the monotonic clock.  Events are buffered in memory and written in 64 KiB
 * chunks.  Returns true if recording started; false (with an error) if the
 * file cannot be created (kRLErrorResources when out of descriptors), path
 * is NULL, or the loop is already recording.
 * Any thread.  Costs nothing while not recording beyond the stall monitor's
 * one atomic load per step. */
RLBoolean RLRunLoopTraceStart(RLRunLoopRef rl, const char *path);
/* Stops recording, writes the rest and closes the file, which is then
 * valid JSON.  Any thread: from another thread the file is closed at once
 * and the step the loop is in when it happens is not recorded.  A loop
 * still recording when its thread exits, or when the process exits through
 * exit() or a return from main, stops on its own.  Returns whether the loop
 * was recording. */
RLBoolean RLRunLoopTraceStop(RLRunLoopRef rl);

#ifdef __cplusplus
}
#endif

#endif /* RUNLOOP_INSIGHT_H */
