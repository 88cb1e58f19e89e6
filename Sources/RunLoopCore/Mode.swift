/// One mode of one loop: the sources, observers and timers that fire when
/// the loop runs in it.  Guarded by the owning loop's lock.
package final class Mode {
    package let name: ModeName
    package var sources: [ObjectIdentifier: Source] = [:]
    /// Sorted by (order, time of addition).
    package var observers: [(observer: Observer, added: UInt64)] = []
    /// The union of the observers' activity masks.
    package var observerMask: UInt = 0
    package var timers: [ObjectIdentifier: LoopTimer] = [:]
    package var heap = TimerHeap()

    package init(name: ModeName) { self.name = name }

    /// Observers alone do not keep a mode alive.
    package var hasSourcesOrTimers: Bool { !sources.isEmpty || !timers.isEmpty }

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

    /// True if the entry is still the timer's current schedule in this mode.
    package func isLive(_ entry: TimerHeap.Entry) -> Bool {
        guard entry.timer.isValid, timers[ObjectIdentifier(entry.timer)] != nil else { return false }
        return entry.timer.schedule.withLock { !$0.firing && $0.epoch == entry.epoch }
    }

    /// The earliest live entry, dropping stale ones from the top.
    package func earliestTimer() -> TimerHeap.Entry? {
        while let top = heap.top {
            if isLive(top) { return top }
            heap.pop()
        }
        return nil
    }

    /// Rebuilds the heap when stale entries dominate it.
    package func compactTimersIfSparse() {
        if heap.count > 2 * timers.count + 32 { heap.compact(keeping: isLive) }
    }
}
