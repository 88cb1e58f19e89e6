import Glibc

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
        // The first run makes the wait set and the insight (Loop.pollerOnce).
        guard makeRunParts() else {
            reportError("RLRunLoopRunInMode", .resources,
                        "the loop's wait set (epoll, eventfd, timerfd) could not be made: \(String(cString: strerror(errno)))")
            return .finished
        }
        let started: (mode: Mode, depth: Int)? = lock.withLock {
            guard !isDead, !name.isCommonModes, let mode = existingModeLocked(name), !isEmptyLocked(mode) else { return nil }
            runs.append(RunFrame(mode: mode))
            reconcileDescriptorsLocked(mode)
            return (mode, runs.count - 1)
        }
        guard let (mode, depth) = started else { return .finished }
        // 0 means "one pass, do not sleep".
        let deadline = seconds > 0 ? Clock.deadline(after: seconds, from: Clock.monotonicNow()) : 0

        let saved = withInsight { $0.runBegins(name) }
        withPoller { $0.acceptWakeUps() }
        step(.entry, mode)
        let result = runPasses(mode, depth: depth, deadline: deadline, returnAfterSourceHandled: returnAfterSourceHandled)
        step(.exit, mode)
        withInsight { $0.runEnds(saved) }

        let outermost = lock.withLock { () -> Bool in
            _ = runs.popLast()
            if let outer = runs.last { reconcileDescriptorsLocked(outer.mode) }
            return runs.isEmpty
        }
        // A nested run returns into a callout of the outer run, which must
        // not miss a wake-up before it sleeps.
        withPoller { outermost ? $0.ignoreWakeUps() : $0.acceptWakeUps() }
        return result
    }

    /// The passes of a run, until one decides that the run ends.
    /// `depth`: the run's frame in `runs`.
    private func runPasses(_ mode: Mode, depth: Int, deadline: UInt64, returnAfterSourceHandled: Bool) -> RunResult {
        // When the passes began to perform signalled sources back to back
        // (0: the last pass performed none).  See `giveWay`.
        var busySince: UInt64 = 0
        while true {
            withInsight { $0.statistics.bump(.passes) }
            withPoller { $0.acceptWakeUps() }
            step(.beforeTimers, mode)
            step(.beforeSources, mode)
            step(.blocks, mode)
            runBlocks(mode)
            step(.sources, mode)
            let handledSource = performSignalledSources(mode, returnAfterSourceHandled: returnAfterSourceHandled,
                                                        busySince: &busySince)
            if handledSource {
                step(.blocks, mode)
                runBlocks(mode)
            }
            let poll = handledSource || mustPoll(deadline)
            if !poll { step(.beforeWaiting, mode) }
            guard let ready = sleep(mode, depth: depth, until: deadline, poll: poll) else { return .finished }
            if !poll { step(.afterWaiting, mode) }
            step(.timers, mode)
            fireDueTimers(mode)
            step(.descriptors, mode)
            let handledDescriptor = performReadyDescriptors(mode, ready)
            withPoller { $0.recycle(ready) }
            step(.blocks, mode)
            runBlocks(mode)
            let handled = (handledSource || handledDescriptor) && returnAfterSourceHandled
            if let result = outcome(mode, depth: depth, deadline: deadline, handledSource: handled) { return result }
        }
    }

    /// The run moves to `phase`: records it (Insight) and calls the mode's
    /// observers of its activity, if the mode's hint says it may have some.
    @inline(__always)
    private func step(_ phase: Phase, _ mode: Mode) {
        withInsight { $0.enter(phase) }
        if let activity = phase.activity, mayHaveWork(.observers(activity), in: mode) { notifyObservers(mode, activity) }
    }

    /// Whether the pass must poll (not sleep) whatever it handled: a run of
    /// one pass (deadline 0); a loop whose every run is stopped
    /// (`stopEveryRun`), where this pass is the last; a ready descriptor
    /// epoll cannot watch (Poller.alwaysReady).
    private func mustPoll(_ deadline: UInt64) -> Bool {
        deadline == 0 || stopsEveryRun.load(ordering: .acquiring) || withPoller { $0.hasAlwaysReady.load(ordering: .acquiring) }
    }

    /// Sleeps in epoll_wait (or, with `poll`, only looks) until the end of
    /// the earliest timer window of the mode or the run's `deadline`, a
    /// wake-up or a ready descriptor, and returns the ready descriptors.
    /// The Waiting phase starts once the wake-up time is known.  Nil: this
    /// loop is a parent's copy in a fork child (fork() from a callout of
    /// this run), whose descriptors are the parent's (Fork.swift); the run
    /// ends.  `depth`: the run's frame, whose stop is looked at last
    /// (`wakeUpIfStopped`).
    private func sleep(_ mode: Mode, depth: Int, until deadline: UInt64, poll: Bool) -> [Poller.Ready]? {
        let runLimit = deadline == 0 ? Clock.never : deadline
        let timerWake = timerWakeDeadline(mode)
        step(.waiting, mode)
        if forkGeneration != Fork.generation { return nil }
        if !poll { wakeUpIfStopped(depth) }
        let ready = withPoller { $0.wait(until: min(timerWake, runLimit), poll: poll) }
        if !poll { withInsight { $0.woke(wakeCause(timerWake: timerWake, runLimit: runLimit)) } }
        return ready
    }

    /// The loop's side of a stop (see `Loop.stop` for why no stop is
    /// lost): right before it sleeps, after its last callout of the pass
    /// and after it last accepted wake-ups (and fenced), the run looks at
    /// its frame's mark; if RLRunLoopStop marked it, the loop makes the
    /// stop's wake-up itself, which the stop may have found ignored.  The
    /// sleep then returns at once, with the observers a stop's wake-up
    /// gives (BeforeWaiting, AfterWaiting), and `outcome` ends the run.
    /// One uncontended lock per sleep (~64 instructions, 2.3% of a
    /// timer-driven pass: below the 10% a hint to skip it would need).
    private func wakeUpIfStopped(_ depth: Int) {
        if lock.withLock({ runs[depth].stopped }) { wakeUp() }
    }

    /// Why the sleep that just ended ended.  The timerfd was armed for the
    /// earlier of the timers' wake-up and the run's limit: if it fired and
    /// the run's limit was the earlier (or the same), the run timed out.
    private func wakeCause(timerWake: UInt64, runLimit: UInt64) -> WakeCause {
        let cause = withPoller { $0.wokeBy } ?? .wakeUp
        return cause == .timer && runLimit <= timerWake ? .timeout : cause
    }

    /// The pass's last step: whether this run ends after it, and how.
    private func outcome(_ mode: Mode, depth: Int, deadline: UInt64, handledSource: Bool) -> RunResult? {
        if handledSource { return .handledSource }
        if deadline == 0 || Clock.monotonicNow() >= deadline { return .timedOut }
        return lock.withLock {
            if runs[depth].stopped || stopsEveryRun.load(ordering: .acquiring) {
                runs[depth].stopped = false
                return .stopped
            }
            if isDead || isEmptyLocked(mode) { return .finished }
            return nil
        }
    }

    /// A mode with no sources, no timers and no queued blocks cannot
    /// produce work, except a common mode of the main loop: that one
    /// serves libdispatch's main queue (CF's main loop always does), so it
    /// is never empty, whether or not the process has libdispatch
    /// (DispatchMainQueue.swift) — but for a run nested in a block of the
    /// queue, which does not serve it (CF neither).  Lock held.
    private func isEmptyLocked(_ mode: Mode) -> Bool {
        if mode.hasSourcesOrTimers { return false }
        if servesMainQueueLocked(mode) { return false }
        return !work.hasBlocks(for: mode.name, common: commonModes, from: inbox)
    }

    // MARK: the steps

    /// Calls the mode's observers interested in `activity`, by order.  An
    /// observer already running (we are in a nested run from its callout)
    /// is skipped; a non-repeating one is invalidated after its callout.
    package func notifyObservers(_ mode: Mode, _ activity: UInt) {
        let interested: [Observer] = lock.withLock {
            guard mode.observerMask & activity != 0 else { return [] }
            return mode.observers.compactMap { $0.observer.activities & activity != 0 ? $0.observer : nil }
        }
        guard !interested.isEmpty else { return }
        var timing = CalloutTiming(.observer, insightReference)
        for observer in interested where observer.isValid && !observer.firing {
            observer.firing = true
            callOutToObserver(observer, activity, &timing)
            observer.firing = false
            if !observer.repeats {
                observer.invalidate()
                timing.skip()
            }
        }
    }

    /// Performs the version-1 sources whose descriptors are ready, all of
    /// them in this pass (by order).  Returns whether any called out.
    package func performReadyDescriptors(_ mode: Mode, _ ready: [Poller.Ready]) -> Bool {
        reportDescriptorProblems()
        guard !ready.isEmpty || withPoller({ $0.hasAlwaysReady.load(ordering: .acquiring) }) else { return false }
        var found: [ReadySource] = []
        swap(&found, &spareReadySources)  // empty: a nested run may have it
        lock.withLock { readySourcesLocked(mode, ready, into: &found) }
        reportDescriptorProblems()
        var handled = false
        if !found.isEmpty {
            var timing = CalloutTiming(.descriptor, insightReference)
            for entry in found {
                entry.take { source in
                    if source.isValid && callOutToDescriptor(source, entry.events, &timing) { handled = true }
                }
            }
        }
        found.removeAll(keepingCapacity: true)
        swap(&found, &spareReadySources)
        return handled
    }
}
