/// The pass's calls into user code, one function per kind of callout.
/// Each is the one place the pass calls an item's callout of its kind, and
/// each is kept out of line so that a backtrace taken in a callback names
/// the kind, as CF's `__CFRUNLOOP_IS_CALLING_OUT_TO_…` functions do:
///
///     my_timer_callback
///     Timer.fire()
///     Loop.callOutToTimer(_:due:since:)
///     Loop.fireDueTimers(_:)
///     Loop.runPasses(…)
///
/// Each is timed by `timed` (Insight): from `mark`, a clock reading taken
/// just before the step's first callout and moved to the end of each, so a
/// step of n callouts reads the clock n + 1 times.
extension Loop {
    /// Calls `observer` for `activity`.
    @inline(never)
    package func callOutToObserver(_ observer: Observer, _ activity: UInt, since mark: inout UInt64) {
        timed(.observer, observer.handle, since: &mark) { _ in observer.callOut(activity) }
    }

    /// Fires `timer`, due at `deadline` (its lateness is counted from the
    /// callout's start).
    @inline(never)
    package func callOutToTimer(_ timer: Timer, due deadline: UInt64, since mark: inout UInt64) {
        timed(.timer, timer.handle, since: &mark) { start in
            insight.statistics.timerFired(lateNs: start > deadline ? start - deadline : 0, windowNs: timer.windowNs)
            timer.fire()
        }
    }

    /// Performs a signalled version-0 source.
    @inline(never)
    package func callOutToSource(_ source: Source, since mark: inout UInt64) {
        timed(.source, source.handle, since: &mark) { _ in source.perform() }
    }

    /// Performs a version-1 source whose descriptor is ready for `events`.
    @inline(never)
    package func callOutToDescriptor(_ source: Source, _ events: UInt32, since mark: inout UInt64) {
        timed(.descriptor, source.handle, since: &mark) { _ in source.handleReady(events) }
    }

    /// Runs queued blocks in order, each followed by its dispose (which
    /// may release a closure's captures: part of its callout).  Timed as
    /// one batch (two clock readings) unless a trace or the stall monitor
    /// needs each on its own (`Insight.timesEachCallout`).
    @inline(never)
    package func callOutToBlocks(_ blocks: [QueuedBlock]) {
        if insight.timesEachCallout {
            var mark = Clock.monotonicNow()
            for block in blocks {
                timed(.block, 0, since: &mark) { _ in
                    block.run()
                    block.dispose()
                }
            }
        } else {
            let start = Clock.monotonicNow()
            for block in blocks {
                block.run()
                block.dispose()
            }
            insight.statistics.callouts(.block, count: UInt64(blocks.count), took: Clock.monotonicNow() &- start)
        }
    }

    /// Calls `body` as a callout of `kind` on `item` (a handle, or 0),
    /// timed from `mark`, which it moves to the callout's end.  `body` gets
    /// the callout's start: `mark`, or a fresh reading when a trace or the
    /// stall monitor is on (Insight.calloutBegan).
    @inline(__always)
    private func timed(_ kind: CalloutKind, _ item: UInt64, since mark: inout UInt64,
                       _ body: (_ start: UInt64) -> Void) {
        let start = insight.calloutBegan(kind, item: UInt(item), mark: mark)
        body(start)
        mark = insight.calloutEnded(kind, item: UInt(item), start: start)
    }
}
