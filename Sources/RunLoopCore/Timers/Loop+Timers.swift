import CRunLoopShims
import Synchronization

extension Loop {
    // MARK: timers

    /// Schedules a timer at `deadline` in every mode of this loop holding
    /// it, each entry behind those already there (FIFO).  Lock held.
    package func scheduleTimerLocked(_ timer: LoopTimer, at deadline: UInt64) {
        timer.placements.forEach { mode, slot in
            mode.timers.schedule(slot: slot, deadline: deadline)
        }
    }

    /// A timer's fire date changed (from any thread): schedule its new
    /// deadline in each of its modes and wake the loop so it re-arms.
    package func timerMoved(_ timer: LoopTimer) {
        let affectsCurrent: Bool = lock.withLock {
            // A firing timer is rescheduled after its callout (which keeps
            // the new date).  It may have left this loop meanwhile.
            let (deadline, loop) = timer.withSchedule { ($0.deadline, $0.loop) }
            guard !timer.firing, loop === self else { return false }
            scheduleTimerLocked(timer, at: deadline)
            return runs.last.map { timer.placements.placement(in: $0.mode) != nil } ?? false
        }
        if affectsCurrent && rl_gettid() != ownerTID { poller.wakeUp() }
    }

    /// The earliest fire date of the mode's valid timers, or 0.
    package func nextTimerFireDate(in name: ModeName) -> Double {
        lock.withLock {
            guard let mode = existingModeLocked(name), let entry = mode.timers.earliest() else { return 0 }
            return mode.timers.timer(at: entry.slot)._withUnsafeGuaranteedRef { $0.nextFireDate }
        }
    }

    /// When the loop must wake for the mode's timers: the earliest end of
    /// a timer's window (fire date + tolerance; see ModeTimers.wakeDeadline).
    package func timerWakeDeadline(_ mode: Mode) -> UInt64 {
        guard mode.timerHint.load(ordering: .acquiring) > 0 else { return Clock.never }
        return lock.withLock { mode.timers.wakeDeadline() }
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
            let bound = mode.timers.dueBound(now: now)
            if due.capacity < bound { due.reserveCapacity(bound) }
            // The mode's reference keeps each popped timer alive while the
            // lock is held; the timers themselves are not touched yet.
            while let (entry, timer, slotAddress) = mode.timers.popDue(now: now) {
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
                timer.placements.forEach { other, slot in if other !== mode { other.timers.unschedule(slot: slot) } }
            }
        }
        for i in 0 ..< min(8, due.count) { prefetchObject(due[i].timer) }
        // One clock reading per timer, as for the other steps: each callout
        // starts at the reading that ended the previous one.
        var mark = Clock.monotonicNow()
        for (i, firing) in due.enumerated() {
            prefetchFiring(due, i)
            // The pass's reference is dropped after the burst (below).
            let timer = firing.timer.takeUnretainedValue()
            if timer.isValid { callOutToTimer(timer, due: firing.deadline, since: &mark) }
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
