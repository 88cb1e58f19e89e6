/// One mode of one loop: the sources, observers and timers that fire when
/// the loop runs in it.  Guarded by the owning loop's lock.
final class Mode {
    let name: ModeName
    var sources: [ObjectIdentifier: Source] = [:]
    /// Sorted by (order, time of addition).
    var observers: [(observer: Observer, added: UInt64)] = []
    /// The union of the observers' activity masks.
    var observerMask: UInt = 0
    var timers: [ObjectIdentifier: LoopTimer] = [:]
    var heap = TimerHeap()

    init(name: ModeName) { self.name = name }

    /// Observers alone do not keep a mode alive.
    var hasSourcesOrTimers: Bool { !sources.isEmpty || !timers.isEmpty }

    func insertObserver(_ observer: Observer, added: UInt64) {
        let index = observers.firstIndex { $0.observer.order > observer.order } ?? observers.count
        observers.insert((observer, added), at: index)
        observerMask |= observer.activities
    }

    func removeObserver(_ observer: Observer) -> Bool {
        guard let index = observers.firstIndex(where: { $0.observer === observer }) else { return false }
        observers.remove(at: index)
        observerMask = observers.reduce(0) { $0 | $1.observer.activities }
        return true
    }

    func containsObserver(_ observer: Observer) -> Bool {
        observers.contains { $0.observer === observer }
    }

    /// True if the entry is still the timer's current schedule in this mode.
    func isLive(_ entry: TimerHeap.Entry) -> Bool {
        guard entry.timer.isValid, timers[ObjectIdentifier(entry.timer)] != nil else { return false }
        return entry.timer.schedule.withLock { !$0.firing && $0.epoch == entry.epoch }
    }

    /// The earliest live entry, dropping stale ones from the top.
    func earliestTimer() -> TimerHeap.Entry? {
        while let top = heap.top {
            if isLive(top) { return top }
            heap.pop()
        }
        return nil
    }

    /// Rebuilds the heap when stale entries dominate it.
    func compactTimersIfSparse() {
        if heap.count > 2 * timers.count + 32 { heap.compact(keeping: isLive) }
    }
}
