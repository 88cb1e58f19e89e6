import CRunLoopShims
import Synchronization

/// One mode of one loop: the sources, observers and timers that fire when
/// the loop runs in it.  Guarded by the owning loop's lock, which makes
/// the accesses to its state exclusive: declared @exclusivity(unchecked)
/// (docs/design.md, "Exclusivity checks").
package final class Mode {
    package let name: ModeName
    /// Its sources, by identity (SourceTable: a reference each).
    @exclusivity(unchecked) var sources = SourceTable(.identity)
    /// The version-1 sources among `sources`, by descriptor.
    @exclusivity(unchecked) var descriptorSources = DescriptorMap<DescriptorSources>()
    /// Sorted by (order, time of addition).
    @exclusivity(unchecked) var observers: [(observer: Observer, added: UInt64)] = []
    /// The union of the observers' activity masks.
    @exclusivity(unchecked) var observerMask: UInt = 0 {
        didSet { observerHint.store(observerMask, ordering: .releasing) }
    }
    /// A copy of `observerMask` readable without the loop's lock
    /// (PassHints.swift).
    package let observerHint = Atomic<UInt>(0)
    /// Its timers, their heap and their count's hint (ModeTimers.swift).
    @exclusivity(unchecked) var timers = ModeTimers()

    package init(name: ModeName) { self.name = name }

    /// Observers alone do not keep a mode alive.
    package var hasSourcesOrTimers: Bool { !sources.isEmpty || timers.count > 0 }

    package func containsSource(_ source: Source) -> Bool { sources.contains(source) }

    /// Adds `source`; false (nothing changed) if the mode holds it.
    package func insertSource(_ source: Source) -> Bool {
        guard sources.insert(source) else { return false }
        if source.isVersion1 {
            if descriptorSources[source.descriptor] == nil {
                descriptorSources[source.descriptor] = DescriptorSources(source)
            } else {
                descriptorSources[source.descriptor]?.append(source)
            }
        }
        return true
    }

    package func removeSource(_ source: Source) -> Bool {
        guard sources.remove(source) else { return false }
        if source.isVersion1 {
            if descriptorSources[source.descriptor]?.remove(source) == false { descriptorSources[source.descriptor] = nil }
        }
        return true
    }

    /// What the poller should watch for one descriptor: the events, and
    /// which sources want them, by handle (a different set of sources on
    /// the same number means the descriptor may have been closed and
    /// reused; handles, unlike object addresses, are never reused).
    package struct Watch: Equatable {
        package var events: UInt32
        var sources: [UInt64]
    }

    /// The watch wanted for one descriptor: nil if none of the mode's
    /// valid version-1 sources on it wants an event.
    package func watch(for fd: Int32) -> Watch? {
        guard let list = descriptorSources[fd] else { return nil }
        var watch = Watch(events: 0, sources: [])
        list.forEach { source in
            guard source.isValid && source.interest != 0 else { return }
            watch.events |= source.interest
            watch.sources.append(source.handle)
        }
        return watch.events != 0 ? watch : nil
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

}

/// The version-1 sources of one mode on one descriptor, in the order they
/// were added: nearly always one, kept inline.  Unretained: the mode's
/// `sources` holds its reference to each, and the two change together,
/// under the loop's lock.  (An array per descriptor cost an allocation and
/// a retain and release of the array for each ready descriptor, on memory
/// a burst of reads has just pushed out of the cache.)
struct DescriptorSources {
    private var first: Unmanaged<Source>
    /// The others, nil when there are none.
    private var others: [Unmanaged<Source>]?

    init(_ source: Source) {
        first = .passUnretained(source)
        others = nil
    }

    mutating func append(_ source: Source) {
        others = (others ?? []) + [.passUnretained(source)]
    }

    /// Removes `source` if it is here.  False when it was the last one:
    /// the caller drops the entry.
    mutating func remove(_ source: Source) -> Bool {
        let target = Unmanaged.passUnretained(source).toOpaque()
        if first.toOpaque() == target {
            guard var rest = others else { return false }
            first = rest.removeFirst()
            others = rest.isEmpty ? nil : rest
        } else {
            others?.removeAll { $0.toOpaque() == target }
            if others?.isEmpty == true { others = nil }
        }
        return true
    }

    /// Calls `body` with each source, in order.  Lock held (which keeps
    /// them alive: see the type's comment).
    @inline(__always)
    func forEach(_ body: (Source) -> Void) {
        first._withUnsafeGuaranteedRef(body)
        if let others { for source in others { source._withUnsafeGuaranteedRef(body) } }
    }
}
