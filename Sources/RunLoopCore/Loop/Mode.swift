import CRunLoopShims
import Synchronization

/// One mode of one loop: the sources, observers and timers that fire when
/// the loop runs in it.  Guarded by the owning loop's lock.
package final class Mode {
    package let name: ModeName
    package var sources: [ObjectIdentifier: Source] = [:]
    /// The version-1 sources among `sources`, by descriptor.
    package var descriptorSources: [Int32: [Source]] = [:]
    /// Sorted by (order, time of addition).
    package var observers: [(observer: Observer, added: UInt64)] = []
    /// The union of the observers' activity masks.
    package var observerMask: UInt = 0 {
        didSet { observerHint.store(observerMask, ordering: .releasing) }
    }
    /// Copies of `observerMask` and `timers.count` readable without the
    /// loop's lock, so a pass skips locking for what the mode lacks.
    package let observerHint = Atomic<UInt>(0)
    package let timerHint = Atomic<Int>(0)
    /// Its timers, in slots: a timer's placement records its slot, and the
    /// slot the sequence number of its live heap entry (0: none, while it
    /// fires).  Heap entries name slots, so an entry is checked without
    /// touching the timer (see isLive), and the check and the timer share
    /// one cache line.  A slot holds the mode's reference to its timer,
    /// taken and dropped by hand (see insertTimer/removeTimer).
    private let timerSlots = TimerSlots()
    package private(set) var timerCount = 0 {
        didSet { timerHint.store(timerCount, ordering: .releasing) }
    }
    package let heap = TimerHeap()

    package init(name: ModeName) { self.name = name }

    /// Observers alone do not keep a mode alive.
    package var hasSourcesOrTimers: Bool { !sources.isEmpty || timerCount > 0 }

    package func insertSource(_ source: Source) {
        sources[ObjectIdentifier(source)] = source
        if source.isVersion1 { descriptorSources[source.descriptor, default: []].append(source) }
    }

    package func removeSource(_ source: Source) -> Bool {
        guard sources.removeValue(forKey: ObjectIdentifier(source)) != nil else { return false }
        if source.isVersion1 {
            descriptorSources[source.descriptor]?.removeAll { $0 === source }
            if descriptorSources[source.descriptor]?.isEmpty == true { descriptorSources[source.descriptor] = nil }
        }
        return true
    }

    /// What the poller should watch for one descriptor: the events, and
    /// which sources want them, by handle (a different set of sources on
    /// the same number means the descriptor may have been closed and
    /// reused; handles, unlike object addresses, are never reused).
    package struct Watch: Equatable {
        package var events: UInt32
        package var sources: [UInt64]
    }

    /// The watches wanted for the descriptors of the mode's valid
    /// version-1 sources.
    package func wantedDescriptors() -> [Int32: Watch] {
        var wanted: [Int32: Watch] = [:]
        for (fd, list) in descriptorSources {
            var watch = Watch(events: 0, sources: [])
            for source in list where source.isValid && source.interest != 0 {
                watch.events |= source.interest
                watch.sources.append(source.handle)
            }
            if watch.events != 0 { wanted[fd] = watch }
        }
        return wanted
    }

    package func insertObserver(_ observer: Observer, added: UInt64) {
        let index = observers.firstIndex { $0.observer.order > observer.order } ?? observers.count
        observers.insert((observer, added), at: index)
        observerMask |= observer.activities
    }

    package func removeObserver(_ observer: Observer) -> Bool {
        guard let index = observers.firstIndex(where: { $0.observer === observer }) else { return false }
        observers.remove(at: index)
        observerMask = observers.reduce(0) { $0 | $1.observer.activities }
        return true
    }

    package func containsObserver(_ observer: Observer) -> Bool {
        observers.contains { $0.observer === observer }
    }

    // MARK: timers (all under the loop's lock)

    /// The most timers a mode holds: slot numbers fit in a heap entry's
    /// 26 bits (TimerHeap), as many as there are handles.
    package static let maxTimers = 1 << TimerHeap.slotBits

    /// Takes a reference to `timer`; returns its slot.
    package func insertTimer(_ timer: LoopTimer) -> Int {
        timerCount += 1
        return timerSlots.insert(.passRetained(timer))
    }

    /// Empties a slot (its heap entry goes stale) and hands the mode's
    /// reference to the caller, who drops it once the loop's lock is
    /// released (a timer's last release must not run under it).
    package func removeTimer(slot: Int) -> Unmanaged<LoopTimer> {
        let timer = timerSlots.remove(slot)
        timerCount -= 1
        compactTimersIfSparse()
        return timer
    }

    /// The timer in `slot`, with no reference of its own: valid while the
    /// loop's lock is held and the timer stays in the slot.
    package func timer(at slot: Int) -> Unmanaged<LoopTimer> { timerSlots.timer(at: slot) }

    package var allTimers: [LoopTimer] { timerSlots.timers }

    /// Schedules the timer in `slot` at `deadline`, behind the entries
    /// already there with the same deadline (FIFO); its previous entry is
    /// retired.
    package func scheduleTimer(slot: Int, deadline: UInt64) {
        let seq = nextTimerSeq()
        timerSlots.setSeq(seq, at: slot)
        heap.push(TimerHeap.Entry(deadline: deadline, seq: seq, slot: slot))
        compactTimersIfSparse()
    }

    /// The last sequence number given to an entry, and the largest one an
    /// entry can hold (lowered by tests).
    private var lastTimerSeq: UInt64 = 0
    package var timerSeqLimit = TimerHeap.maxSeq

    private func nextTimerSeq() -> UInt64 {
        if lastTimerSeq >= timerSeqLimit { renumberTimers() }
        lastTimerSeq += 1
        return lastTimerSeq
    }

    /// Gives the live entries the numbers 1...n in their order (stale ones
    /// go), so the counter starts again below the limit.  Once per 2^38
    /// schedules of one mode: never in practice, but a long-lived busy
    /// loop must not wrap and revive a stale entry.
    private func renumberTimers() {
        var live: [TimerHeap.Entry] = []
        heap.forEach { if isLive($0) { live.append($0) } }
        live.sort { $0.precedes($1) }
        heap.removeAll()
        for (i, old) in live.enumerated() {
            let seq = UInt64(i + 1)
            timerSlots.setSeq(seq, at: old.slot)
            heap.push(TimerHeap.Entry(deadline: old.deadline, seq: seq, slot: old.slot))  // in order: no sifting
        }
        lastTimerSeq = UInt64(live.count)
    }

    /// Retires the timer's entry: it fires nowhere until scheduled again.
    package func unscheduleTimer(slot: Int) { timerSlots.setSeq(0, at: slot) }

    /// True if the entry is still its timer's current schedule in this mode.
    @inline(__always)
    package func isLive(_ entry: TimerHeap.Entry) -> Bool { timerSlots.seq(at: entry.slot) == entry.seq }

    /// The earliest live entry, dropping stale ones from the top.
    package func earliestTimer() -> TimerHeap.Entry? {
        while let top = heap.top {
            if isLive(top) { return top }
            heap.pop()
        }
        return nil
    }

    /// Removes the earliest live entry due by `now` and retires it (see
    /// unscheduleTimer); returns it with its timer and where its slot is
    /// now (for a prefetch later: the address may go stale, which a
    /// prefetch does not mind).
    package func popDueTimer(now: UInt64) -> (entry: TimerHeap.Entry, timer: Unmanaged<LoopTimer>, slotAddress: UnsafeRawPointer)? {
        while let top = heap.top, top.deadline <= now {
            // The entry's slot is loaded while the heap re-sorts.
            timerSlots.prefetch(top.slot)
            heap.pop()
            guard isLive(top) else { continue }  // stale: dropped
            timerSlots.setSeq(0, at: top.slot)
            return (top, timerSlots.timer(at: top.slot), timerSlots.address(of: top.slot))
        }
        return nil
    }

    /// When the loop must wake for this mode's timers.  Each timer may fire
    /// anywhere in [deadline, deadline + tolerance]: waking at the earliest
    /// window end serves every timer due by then, and makes none late.
    /// With no tolerance on the earliest timer, that is its deadline.
    package func timerWakeDeadline() -> UInt64 {
        guard let top = earliestTimer() else { return Clock.never }
        let latest = windowEnd(top)
        return latest == top.deadline ? latest : heap.earliestLatest(bound: latest, windowEnd: windowEnd)
    }

    /// The end of an entry's firing window (deadline + tolerance); stale
    /// entries count as their deadline (at worst an early wake-up).
    private func windowEnd(_ entry: TimerHeap.Entry) -> UInt64 {
        guard isLive(entry) else { return entry.deadline }
        let (sum, overflow) = entry.deadline.addingReportingOverflow(
            timerSlots.timer(at: entry.slot)._withUnsafeGuaranteedRef { $0.windowNs })
        return overflow ? Clock.never : sum
    }

    /// Rebuilds the heap when stale entries dominate it.
    private func compactTimersIfSparse() {
        if heap.count > 2 * timerCount + 32 { heap.compact(keeping: isLive) }
    }

    /// Forgets every timer (teardown, after each was removed).
    package func resetTimers() {
        timerSlots.removeAll()
        timerCount = 0
        heap.removeAll()
    }
}
