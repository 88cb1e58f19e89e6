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

    // MARK: queued blocks

    package func perform(in names: [ModeName], _ work: @escaping () -> Void) -> Bool {
        enqueue(QueuedBlock(modes: BlockModes(names), closure: work))
    }

    package func perform(in modes: BlockModes, _ work: @escaping () -> Void) -> Bool {
        enqueue(QueuedBlock(modes: modes, closure: work))
    }

    /// Queues `block`, which the caller gives up; false (the block
    /// disposed of) if the loop is gone.
    package func perform(_ block: QueuedBlock) -> Bool { enqueue(block) }

    /// The route of every perform: a block for one mode the loop has made
    /// sure of (BlockInbox.isEnsured) goes straight into the ring (no lock;
    /// the ring checks the handle); any other takes the lock, which makes
    /// its modes exist now (a block's modes exist from when it is queued,
    /// as in CF).  `make` builds the block only once the ring may take it.
    /// False: nothing queued, the caller takes the locked path.
    @inline(__always)
    package static func queueWithoutLock(handle: UInt, mode name: ModeName, _ make: (ModeName) -> QueuedBlock) -> Bool {
        guard let inbox = HandleTable.inbox(handle), inbox.isEnsured(name) else { return false }
        let block = make(name)
        if inbox.queue(block, handle: UInt64(handle)) { return true }
        block.dispose()
        return false
    }

    /// Queues `block`: the ring if it may (`queueWithoutLock`), else under
    /// the lock; false (the block disposed of) if the loop is gone.
    private func enqueue(_ block: QueuedBlock) -> Bool {
        if case .one(let name) = block.modes, let inbox, inbox.isEnsured(name), inbox.queue(block, handle: handle) {
            return true
        }
        let queued: Bool = lock.withLock {
            guard !isDead else { return false }
            openInboxLocked()
            switch block.modes {
            case .one(let name):
                if !name.isCommonModes {
                    _ = modeLocked(name)
                    inbox?.ensured(name)  // the ring may take its blocks now
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

    // MARK: the blocks step

    /// Runs the queued blocks meant for this mode, in the order queued.
    /// Blocks queued meanwhile wait for the next call.
    package func runBlocks(_ mode: Mode) {
        guard mayHaveWork(.blocks, in: mode) else { return }
        var ready: [QueuedBlock] = []
        swap(&ready, &spareBlocks)  // empty: a nested run may have it
        lock.withLock { work.takeBlocks(for: mode.name, common: commonModes, from: inbox, into: &ready) }
        if !ready.isEmpty {
            var timing = CalloutTiming(.block, insightReference)
            for block in ready { callOutToBlock(block, &timing) }
            ready.removeAll(keepingCapacity: true)
        }
        swap(&ready, &spareBlocks)
    }

    /// Whether a pass in `mode` would find queued work: a block for it or
    /// a signalled source it holds.  Lock held.
    package func hasQueuedWorkLocked(_ mode: Mode) -> Bool {
        work.hasWork(for: mode.name, common: commonModes, from: inbox) { pendingEntryLocked($0, mode) == true }
    }
}
