import CRunLoopShims
/// How a run ended (CF's values).
package enum RunResult: Int32, Sendable {
    case finished = 1
    case stopped = 2
    case timedOut = 3
    case handledSource = 4
}

/// Points of a pass that observers watch (CF's bits).
package enum Activity {
    package static let entry: UInt = 1 << 0
    package static let beforeTimers: UInt = 1 << 1
    package static let beforeSources: UInt = 1 << 2
    package static let beforeWaiting: UInt = 1 << 5
    package static let afterWaiting: UInt = 1 << 6
    package static let exit: UInt = 1 << 7
    package static let all: UInt = 0x0FFF_FFFF
}

/// Running a loop: the pass reads as the articles' list of steps.  Only the
/// owning thread gets here.  No lock is held while user code runs.
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
        insight.enter(.entry)
        notifyObservers(frame.mode, Activity.entry)
        let result = runPasses(frame, deadline: deadline, returnAfterSourceHandled: returnAfterSourceHandled)
        insight.enter(.exit)
        notifyObservers(frame.mode, Activity.exit)
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

    private func runPasses(_ frame: RunFrame, deadline: UInt64, returnAfterSourceHandled: Bool) -> RunResult {
        let mode = frame.mode
        let insight = self.insight
        // When this run's passes began to handle signalled sources back to
        // back (0: the last pass handled none).  See `giveWay`.
        var busySince: UInt64 = 0
        while true {
            insight.statistics.bump(.passes)
            poller.acceptWakeUps()
            insight.enter(.beforeTimers)
            notifyObservers(mode, Activity.beforeTimers)
            insight.enter(.beforeSources)
            notifyObservers(mode, Activity.beforeSources)
            insight.enter(.blocks)
            runBlocks(mode)
            insight.enter(.sources)
            let handledSource = performSignalledSources(mode, returnAfterSourceHandled: returnAfterSourceHandled)
            if handledSource {
                insight.enter(.blocks)
                runBlocks(mode)
            }

            // A loop whose every run is stopped (`stopEveryRun`) makes this
            // pass its last: it does not sleep either; nor with a ready
            // descriptor epoll cannot watch (Poller.alwaysReady).
            let poll = handledSource || deadline == 0 || stopsEveryRun.load(ordering: .acquiring)
                || poller.hasAlwaysReady.load(ordering: .acquiring)
            busySince = handledSource ? giveWay(busySince: busySince) : 0
            if !poll {
                insight.enter(.beforeWaiting)
                notifyObservers(mode, Activity.beforeWaiting)
            }
            let runLimit = deadline == 0 ? Clock.never : deadline
            let timerWake = timerWakeDeadline(mode)
            insight.enter(.waiting)
            // A parent's loop in a fork child (fork() from a callout of
            // this run): its descriptors are the parent's (Fork.swift).
            if forkGeneration != Fork.generation { return .finished }
            let ready = poller.wait(until: min(timerWake, runLimit), poll: poll)
            if !poll {
                let cause = poller.wokeBy ?? .wakeUp
                insight.woke(cause == .timer && runLimit <= timerWake ? .timeout : cause)
                insight.enter(.afterWaiting)
                notifyObservers(mode, Activity.afterWaiting)
            }

            insight.enter(.timers)
            fireDueTimers(mode)
            insight.enter(.descriptors)
            let handledDescriptor = performReadyDescriptors(mode, ready)
            insight.enter(.blocks)
            runBlocks(mode)

            let handled = handledSource || handledDescriptor
            if let result = outcome(frame, deadline: deadline, handledSource: handled && returnAfterSourceHandled) {
                return result
            }
        }
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

    /// Step 6: whether this run ends after the pass, and how.
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
            callout(.observer, observer.handle, since: &mark) { observer.callOut(activity) }
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
            let (source, events) = (entry.source, entry.events)
            callout(.descriptor, source.handle, since: &mark) { source.handleReady(events) }
        }
        return !found.isEmpty
    }

    /// When the loop must wake for the mode's timers: the earliest end of
    /// a timer's window (fire date + tolerance; see Mode.timerWakeDeadline).
    package func timerWakeDeadline(_ mode: Mode) -> UInt64 {
        guard mode.timerHint.load(ordering: .acquiring) > 0 else { return Clock.never }
        return lock.withLock { mode.timerWakeDeadline() }
    }

    /// Fires every timer of the mode that is due, earliest first, then
    /// reschedules each: one-shot timers are invalidated (even if the
    /// callout moved them, as in CF), a repeating timer whose callout set a
    /// new fire date keeps that date, other repeating timers continue on
    /// their original grid (skipping missed slots).
    package func fireDueTimers(_ mode: Mode) {
        guard mode.timerHint.load(ordering: .acquiring) > 0 else { return }
        let now = Clock.monotonicNow()
        var due = spareDueTimers
        spareDueTimers = []
        lock.withLock {
            // Room for every entry at once if the earliest is due (a burst
            // grows the list without copying it; untouched room costs no
            // memory).
            if let top = mode.heap.top, top.deadline <= now, due.capacity < mode.heap.count {
                due.reserveCapacity(mode.heap.count)
            }
            // The mode's reference keeps each popped timer alive while the
            // lock is held; the timers themselves are not touched yet.
            while let (entry, timer, slotAddress) = mode.popDueTimer(now: now) {
                due.append(DueTimer(timer: timer, deadline: entry.deadline, epoch: 0, slotAddress: slotAddress))
            }
            // Then each popped timer, fetched a few ahead (a burst of due
            // timers is scattered in memory: this is where it would wait):
            // the pass takes a reference of its own, and while it fires the
            // timer is due in none of its modes (a nested run must not fire
            // it again).
            for i in due.indices {
                prefetchAhead(due, i)
                let timer = due[i].timer.retain().takeUnretainedValue()
                timer.firing = true
                // Only a repeating timer needs to know whether its callout moved it.
                if timer.repeats { due[i].epoch = timer.withSchedule { $0.epoch } }
                timer.placements.forEach { other, slot in if other !== mode { other.unscheduleTimer(slot: slot) } }
            }
        }
        let insight = self.insight
        for i in 0 ..< min(8, due.count) { prefetchObject(due[i].timer) }
        // One clock reading per timer, as for the other steps: each callout
        // starts at the reading that ended the previous one.
        var mark = Clock.monotonicNow()
        for (i, firing) in due.enumerated() {
            prefetchFiring(due, i)
            // The pass's reference is dropped after the burst (below).
            let timer = firing.timer.takeUnretainedValue()
            if timer.isValid {
                let start = insight.calloutBegan(.timer, item: UInt(timer.handle), mark: mark)
                insight.statistics.timerFired(lateNs: start > firing.deadline ? start - firing.deadline : 0,
                                              windowNs: timer.windowNs)
                timer.fire()
                mark = insight.calloutEnded(.timer, item: UInt(timer.handle), start: start)
            }
            if timer.repeats { reschedule(timer, firedAtEpoch: firing.epoch) } else { expire(timer) }
        }
        // The pass's references go last; for most expired timers the last
        // one, so this is where they are freed.  A large burst frees them in
        // address order: freed in deadline order, scattered in memory, each
        // free would merge with cold neighbouring chunks (malloc's
        // coalescing); in address order each merges with the one freed just
        // before, and the sweep is sequential.
        if due.count > 32 {
            // Sorted in the list's own memory, seen as words (the entries are
            // plain values): an entry is four words, so the addresses and a
            // scratch copy fit in its first half.
            let n = due.count
            let stride = MemoryLayout<DueTimer>.stride / MemoryLayout<UInt>.stride
            let first = MemoryLayout<DueTimer>.offset(of: \DueTimer.timer)! / MemoryLayout<UInt>.stride
            assert(stride >= 2)
            due.withUnsafeMutableBufferPointer { entries in
                entries.baseAddress!.withMemoryRebound(to: UInt.self, capacity: n * stride) { words in
                    // Word i is at or before entry i's timer word: already read.
                    for i in 0 ..< n { words[i] = words[i * stride + first] }
                    let sorted = sortAddresses(words, scratch: words + n, count: n)
                    for i in 0 ..< n { Unmanaged<LoopTimer>.fromOpaque(UnsafeRawPointer(bitPattern: sorted[i])!).release() }
                }
            }
        } else {
            for firing in due { firing.timer.release() }
        }
        due.removeAll(keepingCapacity: true)
        spareDueTimers = due
    }

    /// After a repeating timer's callout: it is scheduled again in all its
    /// modes, at the date its callout set or on its original grid.
    private func reschedule(_ timer: LoopTimer, firedAtEpoch epoch: UInt32) {
        let now = Clock.monotonicNow()  // to skip missed slots
        lock.withLock {
            timer.firing = false
            let next = timer.withSchedule { s -> UInt64? in
                guard timer.isValid, s.loop === self else { return nil }
                if s.epoch == epoch {
                    let slots = LoopTimer.advance(&s, interval: timer.interval, intervalNs: timer.intervalNs, now: now)
                    if slots > 1 { insight.statistics.bump(.timerSlotsSkipped, by: slots - 1) }
                }
                return s.deadline
            }
            if let next { scheduleTimerLocked(timer, at: next) }
        }
    }

    /// After a one-shot timer's callout: it is invalidated, even if the
    /// callout moved it (as in CF): removed from its modes in one lock
    /// hold, then its info released.  Nothing to do if the callout
    /// invalidated it.
    private func expire(_ timer: LoopTimer) {
        var deferred = Deferred()
        let expired: Bool = lock.withLock {
            timer.firing = false
            guard timer.markInvalid() else { return false }
            removeTimerEverywhereLocked(timer, &deferred)
            return true
        }
        deferred.run()
        if expired { timer.releaseInfoOnce() }
    }
}

/// A timer taken off the heap to fire in this pass, with the pass's
/// reference to it (dropped after the whole burst, see fireDueTimers).
package struct DueTimer {
    package let timer: Unmanaged<LoopTimer>
    package let deadline: UInt64
    package var epoch: UInt32
    /// Its slot in the mode that popped it, for a prefetch before expiry.
    package let slotAddress: UnsafeRawPointer
}

/// Starts loading the timer a few places after `i` in `due` (all of its
/// cache lines), while `due[i]` is handled.
@inline(__always)
private func prefetchAhead(_ due: [DueTimer], _ i: Int) {
    let ahead = i + 4
    if ahead < due.count { prefetchObject(due[ahead].timer) }
}

/// The same for firing, in two stages: the timer eight places ahead, and
/// for the one four places ahead (loaded by now) the lines its expiry
/// writes: its handle's slot and its slot in its mode.
@inline(__always)
private func prefetchFiring(_ due: [DueTimer], _ i: Int) {
    if i + 8 < due.count { prefetchObject(due[i + 8].timer) }
    if i + 4 < due.count {
        // Its handle never changes; its slot's address was taken under the
        // lock (nothing here reads what another thread may be writing).
        HandleTable.prefetchSlot(due[i + 4].timer._withUnsafeGuaranteedRef { $0.handle })
        rl_prefetch(due[i + 4].slotAddress)
    }
}

@inline(__always)
private func prefetchObject(_ timer: Unmanaged<LoopTimer>) {
    let object = timer.toOpaque()
    for line in 0 ..< 4 { rl_prefetch(object + line * 64) }  // a timer spans at most four lines
}

/// Sorts `count` object addresses ascending: a radix sort of their
/// offsets from the lowest (objects are 16-byte aligned), 11 bits a pass,
/// so a few linear passes however many there are.  Returns the buffer
/// holding the result (`addresses` or `scratch`).
private func sortAddresses(_ addresses: UnsafeMutablePointer<UInt>, scratch: UnsafeMutablePointer<UInt>,
                           count: Int) -> UnsafeMutablePointer<UInt> {
    var from = addresses, to = scratch
    var low = UInt.max, high: UInt = 0
    for i in 0 ..< count {
        low = min(low, from[i])
        high = max(high, from[i])
    }
    guard low < high else { return from }
    let span = (high - low) >> 4
    let counts = UnsafeMutablePointer<Int>.allocate(capacity: 2048)
    defer { counts.deallocate() }
    var shift: UInt = 0
    while span >> shift != 0 {
        let digit = { (a: UInt) in Int(((a &- low) >> 4) >> shift & 2047) }
        counts.initialize(repeating: 0, count: 2048)
        for i in 0 ..< count { counts[digit(from[i])] += 1 }
        var sum = 0
        for d in 0 ..< 2048 { (counts[d], sum) = (sum, sum + counts[d]) }
        for i in 0 ..< count {
            let d = digit(from[i])
            to[counts[d]] = from[i]
            counts[d] += 1
        }
        swap(&from, &to)
        shift += 11
    }
    return from
}
