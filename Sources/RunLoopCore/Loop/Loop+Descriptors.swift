import CRunLoopShims
import Synchronization

extension Loop {
    // MARK: descriptors of version-1 sources

    /// Makes the poller watch exactly the descriptors of `mode`'s valid
    /// version-1 sources (level-triggered, so a ready descriptor of a mode
    /// not being run must not stay in the set).  Called when a run starts
    /// or returns to an outer run, and when the running mode's version-1
    /// sources or their interests change.  Lock held.
    package func reconcileDescriptorsLocked(_ mode: Mode) {
        // A torn-down loop's poller is shut (its descriptors closed):
        // nothing may reach epoll_ctl, and only this checks, under the lock
        // that `tearDown` sets `isDead` under before it shuts the poller.
        // A loop that never ran has no wait set: its first run reconciles.
        guard !isDead, pollerOnce.isMade else { return }
        let key = (mode: ObjectIdentifier(mode), epoch: descriptorEpoch)
        if let done = watchedFor, done == key { return }
        watchedFor = key
        let queue = mainQueueLocked(servedIn: mode)
        if watched.isEmpty && mode.descriptorSources.isEmpty && queue == nil { return }
        withPoller { poller in
            var fds = Set(watched.keys).union(mode.descriptorSources.keys)
            if let queue { fds.insert(queue.descriptor) }
            for fd in fds { rewatchLocked(fd, in: mode, poller) }
            wakeForAlwaysReadyLocked(poller)
        }
    }

    /// Whether `mode` serves the main queue: a common mode of the main
    /// loop, except while the queue is being drained (a run nested in one
    /// of its blocks), whether or not the process has libdispatch
    /// (DispatchMainQueue.swift).  Lock held.
    func servesMainQueueLocked(_ mode: Mode) -> Bool {
        isMain && !drainingMainQueue && commonModes.contains(mode.name)
    }

    /// The main queue's source if `mode` serves it (and the process was
    /// found to have libdispatch).  Lock held.
    func mainQueueLocked(servedIn mode: Mode) -> Source? {
        servesMainQueueLocked(mode) ? mainQueue : nil
    }

    /// What the poller should watch for `fd` while `mode` runs: its
    /// sources' watch, and the main queue's if `mode` serves it.  Lock held.
    private func watchLocked(for fd: Int32, in mode: Mode) -> Mode.Watch? {
        var wanted = mode.watch(for: fd)
        if let queue = mainQueueLocked(servedIn: mode), queue.descriptor == fd {
            wanted = Mode.Watch(events: (wanted?.events ?? 0) | queue.interest,
                                sources: (wanted?.sources ?? []) + [queue.handle])
        }
        return wanted
    }

    /// Empties the wait set of version-1 descriptors: the loop is parked
    /// for a driver outside in a mode that does not exist yet, or in none
    /// (Embedding.swift).  The next reconcile, for any mode, starts from
    /// the empty set.  Lock held.
    package func watchNoDescriptorsLocked() {
        guard !isDead, pollerOnce.isMade else { return }
        watchedFor = nil
        guard !watched.isEmpty else { return }
        withPoller { poller in
            for fd in watched.keys {
                watched[fd] = nil
                poller.unwatch(fd)
            }
        }
    }

    /// A version-1 source on `fd` entered or left `mode`: the wait set
    /// follows now if `mode` is being run or was the last one run (the set
    /// still holds its descriptors: a source invalidated while the loop is
    /// idle must leave it before the user closes its descriptor, or the
    /// registration could outlive the number), else when a run next
    /// starts.  A set already up to date for `mode` changes for `fd`
    /// alone, so adding or removing n sources costs O(n), not O(n²).  Lock
    /// held.
    func descriptorsEditedLocked(_ mode: Mode, fd: Int32) {
        let id = ObjectIdentifier(mode)
        let upToDate = watchedFor.map { $0.mode == id && $0.epoch == descriptorEpoch } ?? false
        descriptorEpoch &+= 1
        // Up to date: reconciled, so the wait set was made.
        if upToDate && !isDead {
            withPoller { if rewatchLocked(fd, in: mode, $0) { wakeForAlwaysReadyLocked($0) } }
            watchedFor = (mode: id, epoch: descriptorEpoch)
        } else if runs.last?.mode === mode || watchedFor?.mode == id {
            reconcileDescriptorsLocked(mode)
        }
    }

    /// Brings one descriptor of the wait set in line with `mode`'s sources
    /// (the step reconcileDescriptorsLocked takes for each); whether it
    /// changed anything.  Lock held.
    @discardableResult
    private func rewatchLocked(_ fd: Int32, in mode: Mode, _ poller: Poller) -> Bool {
        let wanted = watchLocked(for: fd, in: mode)
        guard wanted != watched[fd] else { return false }
        watched[fd] = wanted
        if let wanted { poller.watch(fd, events: wanted.events) } else { poller.unwatch(fd) }
        return true
    }

    /// A descriptor epoll cannot watch is ready at once: a loop sleeping
    /// on another thread would not hear of it (see Poller.alwaysReady).
    /// Lock held.
    private func wakeForAlwaysReadyLocked(_ poller: Poller) {
        if poller.hasAlwaysReady.load(ordering: .relaxed) && !isOwnThread { poller.wakeUp() }
    }

    /// A version-1 source's interest changed (any thread).
    package func descriptorsChanged(_ source: Source) {
        lock.withLock {
            // Or the mode it is parked in for a driver outside (Embedding.swift).
            if let mode = runs.last?.mode ?? parkedMode, mode.containsSource(source) {
                descriptorsEditedLocked(mode, fd: source.descriptor)
            } else {
                descriptorEpoch &+= 1
            }
        }
        reportDescriptorProblems()
    }

    /// Reports what the poller met watching descriptors (misuse such as a
    /// descriptor closed while watched, a ghost removed, an epoll_ctl
    /// failure), through the error channel, with no lock held.
    package func reportDescriptorProblems() {
        guard pollerOnce.with({ $0.hasProblems.load(ordering: .acquiring) }) == true else { return }
        for problem in lock.withLock({ withPoller { $0.takeProblems() } }) {
            reportError("RLRunLoopRunInMode", .invalidArgument, problem)
        }
    }

    /// Appends the running mode's version-1 sources for the ready
    /// descriptors to `found` (empty), by order, with the events each
    /// should see; each entry holds a reference to its source, which the
    /// caller gives back (ReadySource.take).  Descriptors epoll cannot
    /// watch count as ready for the events wanted.  A report from a ghost
    /// registration (see Poller) is dropped, and the wait set is rebuilt
    /// without it.  Lock held.
    package func readySourcesLocked(_ mode: Mode, _ polled: [Poller.Ready], into found: inout [ReadySource]) {
        withPoller { readySourcesLocked(mode, polled, $0, into: &found) }
    }

    private func readySourcesLocked(_ mode: Mode, _ polled: [Poller.Ready], _ poller: Poller,
                                    into found: inout [ReadySource]) {
        let always = EPOLLHUP.rawValue | EPOLLERR.rawValue
        found.reserveCapacity(polled.count)
        var firstOrder: Int?
        var ordersDiffer = false
        var rebuilt = false
        let queue = mainQueueLocked(servedIn: mode)
        func add(_ r: Poller.Ready) {
            if poller.isGhost(r) {
                if !rebuilt { poller.rebuildWaitSet(ghost: r.fd) }
                rebuilt = true
                return
            }
            func take(_ source: Source) {
                guard source.isValid else { return }
                let events = r.events & (source.interest | always)
                guard events != 0 else { return }
                if firstOrder == nil { firstOrder = source.order } else if firstOrder != source.order { ordersDiffer = true }
                found.append(ReadySource(source: source, events: events))
            }
            mode.descriptorSources[r.fd]?.forEach(take)
            if let queue, queue.descriptor == r.fd { take(queue) }
        }
        for r in polled { add(r) }
        if poller.hasAlwaysReady.load(ordering: .relaxed) {
            for (fd, events) in poller.alwaysReady { add(Poller.Ready(fd: fd, events: events)) }
        }
        // Usually every source has the same order: nothing to sort.
        if ordersDiffer { found.sort { $0.order < $1.order } }
    }

    /// A version-1 source to perform, with the events it should see.
    /// It holds a reference to the source (so a callout before it cannot
    /// free it), as a plain value: a list of strong references would
    /// count two more pairs per ready descriptor.
    package struct ReadySource {
        private let reference: Unmanaged<Source>
        package let events: UInt32
        /// The source's order, for sorting without touching it.
        package let order: Int

        init(source: Source, events: UInt32) {
            reference = .passRetained(source)
            self.events = events
            order = source.order
        }

        /// Calls `body` with the source and gives the reference back.
        /// Once per entry.
        package func take(_ body: (Source) -> Void) {
            reference._withUnsafeGuaranteedRef(body)
            reference.release()
        }
    }
}
