import CRunLoopShims
import Synchronization

/// Anything a mode can hold.
package enum ModeItem {
    case source(Source)
    case observer(Observer)
    case timer(Timer)

    package var object: Object {
        switch self {
        case .source(let s): return s
        case .observer(let o): return o
        case .timer(let t): return t
        }
    }
    package var id: ObjectIdentifier { ObjectIdentifier(object) }
}

/// Which loop an observer or timer belongs to: set when it joins the first
/// mode (or the common items) of a loop, cleared when it has left them all;
/// until then no other loop may take it.  Guarded by the item's own lock.
package struct LoopTie {
    package private(set) var loop: Loop?
    private var memberships: Int32 = 0

    package init() {}

    package func allows(_ candidate: Loop) -> Bool { loop == nil || loop === candidate }

    package mutating func join(_ loop: Loop) {
        self.loop = loop
        memberships += 1
    }

    package mutating func leave(times: Int32 = 1) {
        memberships -= times
        if memberships == 0 { loop = nil }
    }
}

extension ModeItem {
    /// Ties an observer or timer to `loop` for one more membership (sources
    /// may be in several loops: they have no tie).
    func tie(to loop: Loop) {
        switch self {
        case .source: break
        case .observer(let o): o.withOwnership { $0.join(loop) }
        case .timer(let t): t.withSchedule { $0.tie.join(loop) }
        }
    }

    func untie() {
        switch self {
        case .source: break
        case .observer(let o): o.withOwnership { $0.leave() }
        case .timer(let t): t.withSchedule { $0.tie.leave() }
        }
    }

    func mayJoin(_ loop: Loop) -> Bool {
        switch self {
        case .source: return true
        case .observer(let o): return o.withOwnership { $0.allows(loop) }
        case .timer(let t): return t.withSchedule { $0.tie.allows(loop) }
        }
    }
}

/// Why an add was refused.
package enum AddFailure: Error {
    case wrongLoop, invalidItem, loopGone
    /// The mode holds as many timers as it can (ModeTimers.limit).
    case full
    /// Memory ran out making room for the item.
    case outOfMemory
}

extension Loop {
    package func addCommonMode(_ name: ModeName) {
        var deferred = Deferred()
        lock.withLock {
            guard !isDead, !commonModes.contains(name) else { return }
            commonModes.append(name)
            for id in commonItemOrder {
                _ = insertLocked(commonItems[id]!, into: name, &deferred)
            }
            // The mode now serves the main queue (main loop): a run in it
            // watches the queue from its next pass.
            if let mode = existingModeLocked(name), let queue = mainQueueLocked(servedIn: mode) {
                descriptorsEditedLocked(mode, fd: queue.descriptor)
            }
        }
        deferred.run()
    }

    // MARK: adding and removing items

    /// The item the loop already holds that CF would consider the same as
    /// `item`: for a source, an equal-context source (see
    /// Source.ContextIdentity); otherwise `item` itself.  Calls the
    /// context's `equal` with no lock held, so the answer can be stale by
    /// the time the caller takes the lock again (another thread removed and
    /// released that source, or added an equal one): `epoch` is
    /// `equalityEpoch` as it was read, and the caller redoes the lookup
    /// when it changed (`withCanonical`).  nil for an item that compares by
    /// identity.
    private func canonical(_ item: ModeItem) -> (item: ModeItem, epoch: UInt64?) {
        guard case .source(let source) = item, let hash = source.contextHash else { return (item, nil) }
        let (candidates, epoch): ([Source], UInt64) = lock.withLock {
            if (source.membership(in: self)?.modes ?? 0) > 0 || commonItems[item.id] != nil { return ([], equalityEpoch) }
            return (sourcesByHash.matching(hash: hash), equalityEpoch)
        }
        for candidate in candidates where candidate.isEquivalent(to: source) { return (.source(candidate), epoch) }
        return (item, epoch)
    }

    /// Runs `body` with the lock held on `item` resolved by `canonical`,
    /// the resolution still current (looked up again if the equal sources
    /// changed meanwhile).  Before, a source resolved to an equal one that
    /// another thread then removed and released was added back dead (its
    /// reference silently not taken) and released again by a later remove:
    /// spurious kRLErrorOverRelease reports from balanced code.
    private func withCanonical<T>(_ item: ModeItem, _ body: (ModeItem) -> T) -> T {
        while true {
            let (resolved, epoch) = canonical(item)
            let result: T? = lock.withLock {
                if let epoch, epoch != equalityEpoch { return nil }
                return body(resolved)
            }
            if let result { return result }
        }
    }

    /// Adds an item to a mode or to the common modes.  No-op if present.
    package func add(_ item: ModeItem, to name: ModeName) -> Result<Void, AddFailure> {
        var deferred = Deferred()
        let result: Result<Void, AddFailure> = withCanonical(item) { item in
            if isDead { return .failure(.loopGone) }
            if !name.isCommonModes { return insertLocked(item, into: name, &deferred) }
            if commonItems[item.id] != nil { return .success(()) }
            if let failure = ownershipFailure(item) { return .failure(failure) }
            commonItems[item.id] = item
            commonItemOrder.append(item.id)
            commonJoinedLocked(item)
            item.object.retainRef()
            for mode in commonModes { _ = insertLocked(item, into: mode, &deferred) }
            return .success(())
        }
        deferred.run()
        return result
    }

    package func remove(_ item: ModeItem, from name: ModeName) {
        var deferred = Deferred()
        withCanonical(item) { item in
            if !name.isCommonModes {
                eraseLocked(item, from: name, &deferred)
            } else if dropCommonLocked(item.id, &deferred) != nil {
                for mode in commonModes { eraseLocked(item, from: mode, &deferred) }
            }
        }
        deferred.run()
    }

    package func contains(_ item: ModeItem, in name: ModeName) -> Bool {
        withCanonical(item) { item in
            if name.isCommonModes { return commonItems[item.id] != nil }
            guard let mode = existingModeLocked(name) else { return false }
            switch item {
            case .source(let s): return mode.containsSource(s)
            case .observer(let o): return mode.containsObserver(o)
            case .timer(let t): return t.placement(in: mode) != nil
            }
        }
    }

    /// Removes an item from every mode and from the common items (used by
    /// invalidation).
    package func removeEverywhere(_ object: Object) {
        var deferred = Deferred()
        lock.withLock { removeEverywhereLocked(object, &deferred) }
        deferred.run()
    }

    /// The same with the lock held; cancel callouts and reference drops
    /// are deferred.
    package func removeEverywhereLocked(_ object: Object, _ deferred: inout Deferred) {
        if let timer = object as? Timer {
            removeTimerEverywhereLocked(timer, &deferred)
            return
        }
        if !commonItems.isEmpty { _ = dropCommonLocked(ObjectIdentifier(object), &deferred) }
        switch object {
        case let s as Source: for mode in modes { eraseLocked(.source(s), from: mode.name, &deferred) }
        case let o as Observer: for mode in modes { eraseLocked(.observer(o), from: mode.name, &deferred) }
        default: break
        }
    }

    // An item belongs to this loop while it is in one of its modes or in its
    // common items: that tie is what invalidation follows (the source's
    // loops, the observer's and timer's owner), so a common item that was
    // removed by name from every mode is still found and dropped.

    private func commonJoinedLocked(_ item: ModeItem) {
        if case .source(let s) = item { s.updateMembership(in: self) { $0.common = true } } else { item.tie(to: self) }
    }

    private func commonLeftLocked(_ item: ModeItem) {
        if case .source(let s) = item {
            s.updateMembership(in: self) { $0.common = false }
        } else {
            item.untie()
        }
    }

    /// Takes an item out of the common items (not out of the modes); the
    /// reference drop is deferred.  Lock held.
    func dropCommonLocked(_ id: ObjectIdentifier, _ deferred: inout Deferred, untie: Bool = true) -> ModeItem? {
        guard let item = commonItems.removeValue(forKey: id) else { return nil }
        commonItemOrder.removeAll { $0 == id }
        if untie { commonLeftLocked(item) }
        deferred.release(item.object)
        return item
    }

    /// An observer or timer already scheduled on another loop cannot join
    /// this one.  Lock held.
    private func ownershipFailure(_ item: ModeItem) -> AddFailure? {
        switch item {
        case .source(let s): guard s.isValid else { return .invalidItem }
        case .observer(let o): guard o.isValid else { return .invalidItem }
        case .timer(let t): guard t.isValid else { return .invalidItem }
        }
        return item.mayJoin(self) ? nil : .wrongLoop
    }

    /// Puts an item into one concrete mode.  Lock held; the schedule
    /// callout and the wake-ups are deferred.  A timer takes its own path
    /// (Timers/Loop+Timers.swift).
    private func insertLocked(_ item: ModeItem, into name: ModeName, _ deferred: inout Deferred) -> Result<Void, AddFailure> {
        switch item {
        case .timer(let timer):
            return insertTimerLocked(timer, into: name, &deferred)
        case .source(let source):
            guard source.isValid else { return .failure(.invalidItem) }
            let mode = modeLocked(name)
            guard mode.insertSource(source) else { return .success(()) }
            if source.isVersion1 { descriptorsEditedLocked(mode, fd: source.descriptor) }
            let count = source.updateMembership(in: self) { $0.entered(mode) }.modes
            if count == 1, source.contextHash != nil { indexSourceLocked(source) }
            // After updateMembership's stripe: a signal() whose mark this
            // load misses reads the loops under the stripe after it, and
            // queues on this loop (PendingSources.swift).
            if (source.hot.load() ?? 0) & Source.signalledBit != 0 {
                work.addPending(source)
                // Signalled and woken elsewhere: a sleeping loop of another
                // thread would not look at it (RLRunLoopSourceSignalAndWakeUp).
                if source.takeWokenMark() && !isOwnThread { deferred.call { self.wakeUp() } }
            }
            if source.hasSchedule { deferred.call { source.schedule(self, name) } }
        case .observer(let observer):
            if let failure = ownershipFailure(item) { return .failure(failure) }
            let mode = modeLocked(name)
            guard !mode.containsObserver(observer) else { return .success(()) }
            item.tie(to: self)
            mode.insertObserver(observer, added: nextSequence())
        }
        item.object.retainRef()
        return .success(())
    }

    /// Lists a source that compares by context in `sourcesByHash` (its
    /// first membership of this loop).  Lock held.
    private func indexSourceLocked(_ source: Source) {
        sourcesByHash.insert(source)
        equalityEpoch &+= 1
    }

    /// Takes it out again (its last membership went).  Lock held.
    private func unindexSourceLocked(_ source: Source) {
        sourcesByHash.remove(source)
        equalityEpoch &+= 1
    }

    /// Takes an item out of one concrete mode.  Lock held; cancel and the
    /// reference drop are deferred.
    func eraseLocked(_ item: ModeItem, from name: ModeName, _ deferred: inout Deferred) {
        guard let mode = existingModeLocked(name) else { return }
        eraseLocked(item, from: mode, &deferred)
    }

    /// The same in a mode at hand.  A timer takes its own path
    /// (Timers/Loop+Timers.swift).
    func eraseLocked(_ item: ModeItem, from mode: Mode, _ deferred: inout Deferred) {
        let name = mode.name
        switch item {
        case .timer(let timer):
            eraseTimerLocked(timer, from: mode, &deferred)
            return
        case .source(let source):
            guard mode.removeSource(source) else { return }
            if source.isVersion1 { descriptorsEditedLocked(mode, fd: source.descriptor) }
            let count = source.updateMembership(in: self) { $0.left() }.modes
            if count == 0, source.contextHash != nil { unindexSourceLocked(source) }
            if source.hasCancel { deferred.call { source.cancel(self, name) } }
        case .observer(let observer):
            guard mode.removeObserver(observer) else { return }
            item.untie()
        }
        deferred.release(item.object)
    }
}
