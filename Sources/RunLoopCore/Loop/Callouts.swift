/// The pass's calls into user code, one function per kind of callout.
/// Each is the one place the pass calls an item's callout of its kind, and
/// each is kept out of line so that a backtrace taken in a callback names
/// the kind, as CF's `__CFRUNLOOP_IS_CALLING_OUT_TO_…` functions do:
///
///     my_timer_callback
///     Timer.fire()
///     Loop.callOutToTimer(_:due:_:)
///     Loop.fireDueTimers(_:)
///     Loop.runPasses(…)
///
/// Each is timed by the step's `CalloutTiming`.
extension Loop {
    /// Calls `observer` for `activity`.
    @inline(never)
    package func callOutToObserver(_ observer: Observer, _ activity: UInt, _ timing: inout CalloutTiming) {
        timing.time(observer.handle) { _ in observer.callOut(activity) }
    }

    /// Fires `timer`, due at `deadline` (its lateness is counted from the
    /// callout's start).
    @inline(never)
    package func callOutToTimer(_ timer: Timer, due deadline: UInt64, _ timing: inout CalloutTiming) {
        timing.time(timer.handle) { start in
            withInsight { $0.statistics.timerFired(lateNs: start > deadline ? start - deadline : 0, windowNs: timer.windowNs) }
            timer.fire()
        }
    }

    /// Performs a signalled version-0 source.
    @inline(never)
    package func callOutToSource(_ source: Source, _ timing: inout CalloutTiming) {
        timing.time(source.handle) { _ in source.perform() }
    }

    /// Performs a version-1 source whose descriptor is ready for `events`;
    /// whether it called out.
    @inline(never)
    package func callOutToDescriptor(_ source: Source, _ events: UInt32, _ timing: inout CalloutTiming) -> Bool {
        var called = false
        timing.time(source.handle) { _ in called = source.handleReady(events) }
        return called
    }

    /// Runs a queued block, then its dispose (which may release a
    /// closure's captures: part of its callout).
    @inline(never)
    package func callOutToBlock(_ block: QueuedBlock, _ timing: inout CalloutTiming) {
        timing.time(0) { _ in
            block.run()
            block.dispose()
        }
    }
}

/// How one step of a pass times its callouts of one kind, for the
/// statistics (and, with a trace or the stall monitor on, for those).
///
/// A clock reading costs ~36 ns on our VMs, as much as the rest of a
/// descriptor's callout path: so a step's callouts are timed as one batch,
/// two readings however many callouts, and the batch counts as one callout
/// for the longest-callout statistic (an upper bound on each, exact when
/// the batch held one).  Each callout is timed on its own, from a mark
/// (the end of the previous one: n + 1 readings for n callouts), when
/// a trace or the stall monitor is on (`Insight.timesEachCallout`: they
/// need each callout's bounds), and always for timers, whose lateness is
/// counted from their own start.  (Timing each descriptor callout cost
/// 7% on the fds 1000 row of scripts/bench.sh, 5% of its instructions.)
package struct CalloutTiming {
    private let kind: CalloutKind
    private let each: Bool
    /// The loop's insight (held by the loop while its run lasts).
    private let insight: Unmanaged<Insight>
    /// Each on its own: the end of the previous callout.  A batch: its start.
    private var mark: UInt64
    /// A batch: the callouts made so far.
    private var count: UInt64 = 0

    /// Starts timing a step's callouts of `kind` (the first clock reading).
    @inline(__always)
    package init(_ kind: CalloutKind, _ insight: Unmanaged<Insight>) {
        self.kind = kind
        self.insight = insight
        each = kind == .timer || insight._withUnsafeGuaranteedRef { $0.timesEachCallout }
        mark = Clock.monotonicNow()
    }

    /// Calls `body`, one callout of `item` (a handle, or 0), timed.  `body`
    /// gets the callout's start: the mark, or a fresh reading when a trace
    /// or the stall monitor is on (Insight.calloutBegan); a batch's start
    /// for a callout in a batch.
    @inline(__always)
    package mutating func time(_ item: UInt64, _ body: (_ start: UInt64) -> Void) {
        if each {
            let (kind, mark) = (kind, mark)
            let start = insight._withUnsafeGuaranteedRef { $0.calloutBegan(kind, item: UInt(item), mark: mark) }
            body(start)
            self.mark = insight._withUnsafeGuaranteedRef { $0.calloutEnded(kind, item: UInt(item), start: start) }
        } else {
            body(mark)
            count += 1
        }
    }

    /// Leaves out of the next callout's time what the step did since the
    /// last one (work of its own, such as invalidating an item).  For a
    /// callout timed on its own: a batch includes it.
    @inline(__always)
    package mutating func skip() {
        if each { mark = Clock.monotonicNow() }
    }

    /// The latest clock reading: the start, or the end of the last callout
    /// timed on its own (a batch's start for a batch).
    package var latestReading: UInt64 { mark }

    /// The step's callouts are done: records a batch (the second reading).
    @inline(__always)
    package func finish() {
        guard !each, count > 0 else { return }
        let (kind, count, took) = (kind, count, Clock.monotonicNow() &- mark)
        insight._withUnsafeGuaranteedRef { $0.statistics.callouts(kind, count: count, took: took) }
    }
}
