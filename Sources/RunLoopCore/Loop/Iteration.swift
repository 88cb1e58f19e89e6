import CRunLoopShims
/// How a run ended (CF's values).
package enum RunResult: Int32, Sendable {
    case finished = 1
    case stopped = 2
    case timedOut = 3
    case handledSource = 4
}

/// Running a loop: `runPasses` reads as the step list of docs/design.md
/// ("A run").  Only the owning thread gets here.  No lock is held while
/// user code runs.
extension Loop {
    /// Runs the loop in `name` for at most `seconds` (0 or less: one pass
    /// without sleeping).
    package func run(_ name: ModeName, seconds: Double, returnAfterSourceHandled: Bool) -> RunResult {
        if isMain { ensureMainQueueSource() }
        let started: RunFrame? = lock.withLock {
            guard !isDead, !name.isCommonModes, let mode = existingModeLocked(name), !isEmptyLocked(mode) else { return nil }
            let frame = RunFrame(mode: mode)
            runs.append(frame)
            reconcileDescriptorsLocked(mode)
            return frame
        }
        guard let frame = started else { return .finished }
        // 0 means "one pass, do not sleep".
        let deadline = seconds > 0 ? Clock.deadline(after: seconds, from: Clock.monotonicNow()) : 0

        let saved = insight.runBegins(name)
        poller.acceptWakeUps()
        step(.entry, frame.mode)
        let result = runPasses(frame, deadline: deadline, returnAfterSourceHandled: returnAfterSourceHandled)
        step(.exit, frame.mode)
        insight.runEnds(saved)

        let outermost = lock.withLock { () -> Bool in
            _ = runs.popLast()
            if let outer = runs.last { reconcileDescriptorsLocked(outer.mode) }
            return runs.isEmpty
        }
        // A nested run returns into a callout of the outer run, which must
        // not miss a wake-up before it sleeps.
        if outermost { poller.ignoreWakeUps() } else { poller.acceptWakeUps() }
        return result
    }

    /// The passes of a run, until one decides that the run ends.
    private func runPasses(_ frame: RunFrame, deadline: UInt64, returnAfterSourceHandled: Bool) -> RunResult {
        let mode = frame.mode
        // When this run's passes began to handle signalled sources back to
        // back (0: the last pass handled none).  See `giveWay`.
        var busySince: UInt64 = 0
        while true {
            insight.statistics.bump(.passes)
            poller.acceptWakeUps()
            step(.beforeTimers, mode)
            step(.beforeSources, mode)
            step(.blocks, mode)
            runBlocks(mode)
            step(.sources, mode)
            let handledSource = performSignalledSources(mode, returnAfterSourceHandled: returnAfterSourceHandled)
            if handledSource {
                step(.blocks, mode)
                runBlocks(mode)
            }

            // A loop whose every run is stopped (`stopEveryRun`) makes this
            // pass its last: it does not sleep either; nor with a ready
            // descriptor epoll cannot watch (Poller.alwaysReady).
            let poll = handledSource || deadline == 0 || stopsEveryRun.load(ordering: .acquiring)
                || poller.hasAlwaysReady.load(ordering: .acquiring)
            busySince = handledSource ? giveWay(busySince: busySince) : 0
            if !poll { step(.beforeWaiting, mode) }
            let runLimit = deadline == 0 ? Clock.never : deadline
            let timerWake = timerWakeDeadline(mode)
            step(.waiting, mode)
            // A parent's loop in a fork child (fork() from a callout of
            // this run): its descriptors are the parent's (Fork.swift).
            if forkGeneration != Fork.generation { return .finished }
            let ready = poller.wait(until: min(timerWake, runLimit), poll: poll)
            if !poll {
                let cause = poller.wokeBy ?? .wakeUp
                insight.woke(cause == .timer && runLimit <= timerWake ? .timeout : cause)
                step(.afterWaiting, mode)
            }

            step(.timers, mode)
            fireDueTimers(mode)
            step(.descriptors, mode)
            let handledDescriptor = performReadyDescriptors(mode, ready)
            step(.blocks, mode)
            runBlocks(mode)

            let handled = handledSource || handledDescriptor
            if let result = outcome(frame, deadline: deadline, handledSource: handled && returnAfterSourceHandled) {
                return result
            }
        }
    }

    /// The run moves to `phase`: records it (Insight) and calls the mode's
    /// observers of its activity, if it has one.
    @inline(__always)
    private func step(_ phase: Phase, _ mode: Mode) {
        insight.enter(phase)
        if let activity = phase.activity { notifyObservers(mode, activity) }
    }

    /// Version-0 sources have kept this run busy (every pass since
    /// `busySince` performed one, so none waited): once that has lasted
    /// `giveWayAfterNs`, the loop's thread gives its CPU to any thread
    /// waiting for one (`sched_yield`) before it polls, and the streak
    /// starts again.  Returns the streak's new start.
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
        insight.statistics.bump(.busyYields)
        return Clock.monotonicNow()
    }

    /// How long sources may keep a run busy before it gives way (50 µs).
    package static let giveWayAfterNs: UInt64 = 50_000

    /// The pass's last step: whether this run ends after it, and how.
    private func outcome(_ frame: RunFrame, deadline: UInt64, handledSource: Bool) -> RunResult? {
        if handledSource { return .handledSource }
        if deadline == 0 || Clock.monotonicNow() >= deadline { return .timedOut }
        return lock.withLock {
            if frame.stopped || stopsEveryRun.load(ordering: .acquiring) {
                frame.stopped = false
                return .stopped
            }
            if isDead || isEmptyLocked(frame.mode) { return .finished }
            return nil
        }
    }

    /// A mode with no sources, no timers and no queued blocks cannot
    /// produce work.  Lock held.
    private func isEmptyLocked(_ mode: Mode) -> Bool {
        if mode.hasSourcesOrTimers { return false }
        collectQueuedLocked()
        return !blocks.contains { blockMatchesLocked($0, mode.name) }
    }

    @inline(__always)
    package func blockMatchesLocked(_ block: QueuedBlock, _ name: ModeName) -> Bool {
        block.matches(name, common: commonModes)
    }

    // MARK: the steps

    /// Calls the mode's observers interested in `activity`, by order.  An
    /// observer already running (we are in a nested run from its callout)
    /// is skipped; a non-repeating one is invalidated after its callout.
    package func notifyObservers(_ mode: Mode, _ activity: UInt) {
        guard mode.observerHint.load(ordering: .acquiring) & activity != 0 else { return }
        let interested: [Observer] = lock.withLock {
            guard mode.observerMask & activity != 0 else { return [] }
            return mode.observers.compactMap { $0.observer.activities & activity != 0 ? $0.observer : nil }
        }
        guard !interested.isEmpty else { return }
        var mark = Clock.monotonicNow()
        for observer in interested where observer.isValid && !observer.firing {
            observer.firing = true
            callOutToObserver(observer, activity, since: &mark)
            observer.firing = false
            if !observer.repeats {
                observer.invalidate()
                mark = Clock.monotonicNow()  // not part of the next callout
            }
        }
    }

    /// Performs the version-1 sources whose descriptors are ready, all of
    /// them in this pass (by order).  Returns whether any was performed.
    package func performReadyDescriptors(_ mode: Mode, _ ready: [Poller.Ready]) -> Bool {
        reportDescriptorProblems()
        guard !ready.isEmpty || poller.hasAlwaysReady.load(ordering: .acquiring) else { return false }
        let found = lock.withLock { readySourcesLocked(mode, ready) }
        reportDescriptorProblems()
        guard !found.isEmpty else { return false }
        var mark = Clock.monotonicNow()
        for entry in found where entry.source.isValid {
            callOutToDescriptor(entry.source, entry.events, since: &mark)
        }
        return !found.isEmpty
    }
}
