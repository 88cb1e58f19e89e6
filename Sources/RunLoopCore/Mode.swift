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
    /// When each timer joined this mode (see TimerHeap.Entry.joined).
    package var timerJoins: [ObjectIdentifier: UInt64] = [:]
    package var timers: [ObjectIdentifier: LoopTimer] = [:] {
        didSet { timerHint.store(timers.count, ordering: .releasing) }
    }
    package var heap = TimerHeap()

    package init(name: ModeName) { self.name = name }

    /// Observers alone do not keep a mode alive.
    package var hasSourcesOrTimers: Bool { !sources.isEmpty || !timers.isEmpty }

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

    /// True if the entry is still the timer's current schedule in this mode.
    package func isLive(_ entry: TimerHeap.Entry) -> Bool {
        let id = ObjectIdentifier(entry.timer)
        guard entry.timer.isValid, timers[id] != nil, timerJoins[id] == entry.joined else { return false }
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

    /// When the loop must wake for this mode's timers.  Each timer may fire
    /// anywhere in [deadline, deadline + tolerance]: waking at the earliest
    /// window end serves every timer due by then, and makes none late.
    /// With no tolerance on the earliest timer, that is its deadline.
    package func timerWakeDeadline() -> UInt64 {
        guard let top = earliestTimer() else { return Clock.never }
        let latest = top.latest
        return latest == top.deadline ? latest : heap.earliestLatest(bound: latest)
    }

    /// Rebuilds the heap when stale entries dominate it.
    package func compactTimersIfSparse() {
        if heap.count > 2 * timers.count + 32 { heap.compact(keeping: isLive) }
    }
}
