import CRunLoopShims

/// The queued work of a pass: blocks/functions performed onto the loop and
/// signalled version-0 sources, and how a run that sources keep busy gives
/// way to other threads.
extension Loop {
    /// Runs the queued blocks meant for this mode, in the order queued.
    /// Blocks queued meanwhile wait for the next call.
    package func runBlocks(_ mode: Mode) {
        guard mayHaveWork(.blocks, in: mode) else { return }
        var ready: [QueuedBlock] = []
        swap(&ready, &spareBlocks)  // empty: a nested run may have it
        lock.withLock { work.takeBlocks(for: mode.name, common: commonModes, from: inbox, into: &ready) }
        if !ready.isEmpty {
            var timing = CalloutTiming(.block, insightReference)
            for block in ready { callOutToBlock(block, &timing) }
            timing.finish()
            ready.removeAllKeepingStorage()
        }
        swap(&ready, &spareBlocks)
    }

    /// Performs the signalled sources of the run's mode by order (ties:
    /// first signalled first).  Returns whether any was performed.  With
    /// `returnAfterSourceHandled`, performs one and leaves the rest pending.
    /// A run whose passes keep performing sources gives way now and then
    /// (`giveWay`).
    package func performSignalledSources(_ mode: Mode, returnAfterSourceHandled: Bool,
                                         busySince: inout UInt64) -> Bool {
        let handled = performSignalled(mode, returnAfterSourceHandled: returnAfterSourceHandled)
        busySince = handled ? giveWay(busySince: busySince) : 0
        return handled
    }

    /// Performs the signalled sources of `mode` (see
    /// `performSignalledSources`); returns whether any was performed.
    private func performSignalled(_ mode: Mode, returnAfterSourceHandled: Bool) -> Bool {
        var ready: [Source] = []
        swap(&ready, &spareSources)  // empty: a nested run may have it
        lock.withLock { work.takePending(into: &ready) { pendingEntryLocked($0, mode) } }
        var handled = false
        if !ready.isEmpty {
            if ready.count > 1 {
                ready.sort { $0.order != $1.order ? $0.order < $1.order : $0.pendingSince < $1.pendingSince }
            }
            var timing = CalloutTiming(.source, insightReference)
            for index in ready.indices {
                if handled && returnAfterSourceHandled {
                    let rest = ready[index...]
                    lock.withLock { work.addPending(rest) }
                    break
                }
                // `ready` holds a reference to each until it is emptied below.
                Unmanaged.passUnretained(ready[index])._withUnsafeGuaranteedRef { source in
                    guard source.isValid, source.claimPerform() else { return }
                    callOutToSource(source, &timing)
                    handled = true
                }
            }
            timing.finish()
            ready.removeAllKeepingStorage()
        }
        swap(&ready, &spareSources)
        return handled
    }

    /// Version-0 sources have kept this run busy (every pass since
    /// `busySince` performed one, so none waited): once that has lasted
    /// `giveWayAfterNs`, the loop's thread gives its CPU to any thread
    /// waiting for one (`sched_yield`) before the pass goes on (it will
    /// poll, not sleep), and the streak starts again.  Returns the
    /// streak's new start.
    ///
    /// Signals coalesce: a pass performs a source once however many times
    /// it was signalled, so a loop that drains a flood as fast as it can
    /// buys nothing by it, and on a machine with more runnable threads
    /// than CPUs it takes a CPU share from the threads doing the
    /// signalling (two producers and a loop on two CPUs: the loop had ~25%
    /// of the samples, ~500 signals a perform).  Given way, a later pass
    /// performs the source once for all the signals sent meanwhile.  With
    /// no other thread waiting the call returns at once (one system call,
    /// ~0.7 µs on our VMs, at most once per `giveWayAfterNs` of busy
    /// passes: ~1.5%).  Queued blocks and descriptors do not count: each
    /// block is work of its own, and a ready descriptor stays ready.
    private func giveWay(busySince: UInt64) -> UInt64 {
        let now = Clock.monotonicNow()
        guard busySince != 0 else { return now }
        guard now &- busySince >= Self.giveWayAfterNs else { return busySince }
        rl_yield()
        withInsight { $0.statistics.bump(.busyYields) }
        return Clock.monotonicNow()
    }

    /// How long sources may keep a run busy before it gives way (50 µs).
    package static let giveWayAfterNs: UInt64 = 50_000

    /// Whether a pass in `mode` would find queued work: a block for it or
    /// a signalled source it holds.  Lock held.
    package func hasQueuedWorkLocked(_ mode: Mode) -> Bool {
        work.hasWork(for: mode.name, common: commonModes, from: inbox) { pendingEntryLocked($0, mode) == true }
    }

    /// A `pending` entry: nil if it no longer counts (not signalled,
    /// invalid, or in none of this loop's modes: a stale duplicate),
    /// otherwise whether `mode` holds it.  A source in one mode knows which
    /// (its membership's `soleMode`), so the usual check reads only the
    /// source, not the mode's set.  Lock held.
    private func pendingEntryLocked(_ source: Source, _ mode: Mode) -> Bool? {
        guard source.isSignalled, source.isValid, let membership = source.membership(in: self),
              membership.modes > 0 else { return nil }
        if let sole = membership.soleMode { return sole.toOpaque() == Unmanaged.passUnretained(mode).toOpaque() }
        return mode.containsSource(source)
    }
}
