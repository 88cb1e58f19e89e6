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
/// Each is timed by the step's `CalloutTiming`.  The timer's,
/// `callOutToTimer`, is with the rest of a timer's life in
/// Timers/Loop+Timers.swift.
extension Loop {
    /// Calls `observer` for `activity`.
    @inline(never)
    package func callOutToObserver(_ observer: Observer, _ activity: UInt, _ timing: inout CalloutTiming) {
        timing.time(observer.handle) { _ in observer.callOut(activity) }
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
/// Each callout is timed from a mark, the end of the previous one (or a
/// reading just before the first): n callouts read the clock n + 1 times.
/// With a trace or the stall monitor on, each also reads its exact start
/// (Insight.calloutBegan).
package struct CalloutTiming {
    private let kind: CalloutKind
    /// The loop's insight (held by the loop while its run lasts).
    private let insight: Unmanaged<Insight>
    /// The end of the previous callout.
    private var mark: UInt64

    /// Starts timing a step's callouts of `kind` (the first clock reading).
    @inline(__always)
    package init(_ kind: CalloutKind, _ insight: Unmanaged<Insight>) {
        self.kind = kind
        self.insight = insight
        mark = Clock.monotonicNow()
    }

    /// Calls `body`, one callout of `item` (a handle, or 0), timed.  `body`
    /// gets the callout's start: the mark, or a fresh reading when a trace
    /// or the stall monitor is on (Insight.calloutBegan).
    @inline(__always)
    package mutating func time(_ item: UInt64, _ body: (_ start: UInt64) -> Void) {
        let (kind, mark) = (kind, mark)
        let start = insight._withUnsafeGuaranteedRef { $0.calloutBegan(kind, item: UInt(item), mark: mark) }
        body(start)
        self.mark = insight._withUnsafeGuaranteedRef { $0.calloutEnded(kind, item: UInt(item), start: start) }
    }

    /// Leaves out of the next callout's time what the step did since the
    /// last one (work of its own, such as invalidating an item).
    @inline(__always)
    package mutating func skip() { mark = Clock.monotonicNow() }

    /// The latest clock reading: the start, or the end of the last callout.
    package var latestReading: UInt64 { mark }
}
