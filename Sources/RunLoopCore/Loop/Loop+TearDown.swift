import CRunLoopShims
import Synchronization

extension Loop {
    // MARK: teardown

    /// Registers `handler` to run (on the exiting thread, no lock held)
    /// when the loop is torn down.  Returns an id for
    /// `removeTearDownHandler`, or nil if the loop is already gone.
    package func onTearDown(_ handler: @escaping () -> Void) -> Int? {
        lock.withLock {
            guard !isDead else { return nil }
            let id = Int(truncatingIfNeeded: nextSequence())
            tearDownHandlers[id] = handler
            return id
        }
    }

    package func removeTearDownHandler(_ id: Int) {
        lock.withLock { _ = tearDownHandlers.removeValue(forKey: id) }
    }

    /// Empties the loop when its thread exits: every item leaves every
    /// mode (sources get their cancel callouts on this thread), queued
    /// blocks are dropped, further adds are refused, and the poller's
    /// three descriptors are closed, however many handles to the loop are
    /// still retained (a dead loop never sleeps again; see
    /// Poller.shutdown for the wake-ups that race the close).
    package func tearDown() {
        var deferred = Deferred()
        let (dropped, spare) = lock.withLock {
            isDead = true
            // No block is queued from here; those queued are dropped.
            let queued = work.drain(closing: inbox)
            for id in commonItemOrder { _ = dropCommonLocked(id, &deferred) }
            for mode in modes {
                var items: [ModeItem] = mode.sources.all.map { .source($0) }
                items += mode.observers.map { .observer($0.observer) }
                items += mode.timers.all.map { .timer($0) }
                for item in items { eraseLocked(item, from: mode, &deferred) }
                mode.timers.reset()
            }
            return queued
        }
        // Queued work is released here, with no lock held.
        deferred.run()
        for block in dropped { block.dispose() }
        spare?.deallocate()
        let handlers = lock.withLock { () -> [() -> Void] in
            defer { tearDownHandlers = [:] }
            return tearDownHandlers.sorted { $0.key < $1.key }.map(\.value)
        }
        for handler in handlers { handler() }
        // Last: a teardown handler may still wake the loop (harmless).
        // From here the loop's descriptors are closed: `isDead` (set above,
        // under the lock) keeps reconcileDescriptorsLocked from epoll_ctl,
        // `run` refuses a dead loop (no wait), and wake-ups are settled by
        // the poller.
        pollerOnce.with { $0.shutdown() }
    }
}
