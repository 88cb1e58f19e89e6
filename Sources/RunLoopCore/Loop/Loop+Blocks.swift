import CRunLoopShims
import Synchronization

extension Loop {
    // MARK: the block inbox

    func open(_ inbox: BlockInbox) {
        inbox.open(handle: handle)
        inboxBase.store(UInt(bitPattern: inbox.address), ordering: .releasing)
    }

    /// Makes the loop's ring if it has none yet (lock held; see `inbox`).
    /// Producers that find the slot's new ring before it is open take the
    /// locked path, which waits for this lock.
    func openInboxLocked() {
        guard inbox == nil, handle != 0, !isDead, !finalized,
              let made = HandleTable.inbox(forLoop: handle) else { return }
        open(made)
    }

    // MARK: pending sources and queued blocks

    /// Queues a signalled source under the lock (Source.signal, when its
    /// lock-free path cannot), and opens the ring that path uses, so the
    /// next signal of a source in this loop alone takes it.
    package func enqueuePending(_ source: Source) {
        lock.withLock {
            work.addPending(source)
            openInboxLocked()
        }
    }

    package func perform(in names: [ModeName], _ work: @escaping () -> Void) -> Bool {
        enqueue(QueuedBlock(modes: BlockModes(names), closure: work))
    }

    package func perform(in modes: BlockModes, _ work: @escaping () -> Void) -> Bool {
        enqueue(QueuedBlock(modes: modes, closure: work))
    }

    package func perform(in modes: BlockModes, function: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void,
                         info: UnsafeMutableRawPointer?) -> Bool {
        enqueue(QueuedBlock(modes: modes, function: function, info: info))
    }

    /// Queues `block` (the path with the lock: RLRunLoopPerformFunction
    /// takes the inbox directly when it can); false (the block disposed
    /// of) if the loop is gone.
    private func enqueue(_ block: QueuedBlock) -> Bool {
        let queued: Bool = lock.withLock {
            guard !isDead else { return false }
            openInboxLocked()
            // A block's modes exist from when it is queued (as in CF).
            switch block.modes {
            case .one(let name):
                if !name.isCommonModes {
                    _ = modeLocked(name)
                    inbox?.ensured(name)  // the lock-free path may queue for it now
                }
            case .list(let names):
                for name in names where !name.isCommonModes { _ = modeLocked(name) }
            }
            if let inbox, inbox.queue(block, handle: handle) {
                return true
            }
            work.addOverflow(block)  // no inbox (or no longer the loop's: never run)
            return true
        }
        if !queued { block.dispose() }
        return queued
    }
}
