/// What a loop has queued for its passes, besides timers and descriptors:
/// signalled version-0 sources and performed blocks.
///
/// One value, held by the loop in one stored property and guarded by its
/// lock.  Each operation below is one access to the loop's property, so
/// the runtime's exclusivity check is paid once per operation rather than
/// once per field (a pass makes several: collect, take the blocks of its
/// mode, take the signalled sources).
package struct QueuedWork {
    /// Sources signalled since the last pass (PendingSources.swift).
    private var pending = PendingSources()
    /// Queued blocks taken from the inbox and `overflow`, in the order
    /// queued, waiting for a pass of one of their modes.
    private var blocks: [QueuedBlock] = []
    /// Blocks queued when the loop has no inbox (the handle table was full).
    private var overflow: [QueuedBlock] = []
    /// An empty overflow array swapped with the inbox's full one
    /// (BlockInbox.collect).
    private var spareOverflow: BlockInbox.OverflowArray?
    /// Whether the block lists are non-empty, readable without the lock
    /// (PassHints.swift): every mutating operation ends with `publish()`.
    private let hints: WorkHints

    package init(hints: WorkHints) { self.hints = hints }

    package var blockCount: Int { blocks.count + overflow.count }

    /// Queues a signalled source (the locked route, PendingSources.swift).
    package mutating func addPending(_ source: Source) { pending.add(source) }

    /// Puts back sources a pass took but did not perform (a run that
    /// returns after one source).
    package mutating func addPending(_ sources: ArraySlice<Source>) { pending.add(sources) }

    /// Queues a block that has no inbox to go to.
    package mutating func addOverflow(_ block: QueuedBlock) {
        overflow.append(block)
        publish()
    }

    /// Moves the blocks queued since the last call to `blocks`, in order.
    /// The loop's thread only (the inbox's one consumer, see BlockInbox).
    /// The callers publish the hints once they are done with the lists.
    private mutating func collect(from inbox: BlockInbox?) {
        if let inbox, inbox.mayHaveBlocks() { inbox.collect(into: &blocks, spare: &spareOverflow) }
        if !overflow.isEmpty {
            blocks += overflow
            overflow.removeAll(keepingCapacity: true)
        }
    }

    /// Collects, then moves the blocks meant for mode `name` into `ready`
    /// (empty), in the order queued; the others stay.
    package mutating func takeBlocks(for name: ModeName, common: [ModeName], from inbox: BlockInbox?,
                                     into ready: inout [QueuedBlock]) {
        collect(from: inbox)
        defer { publish() }  // after collect, which moved the overflow
        if blocks.allSatisfy({ $0.matches(name, common: common) }) {
            swap(&ready, &blocks)  // the usual case: everything queued is for this mode
        } else {
            var later: [QueuedBlock] = []
            for block in blocks {
                if block.matches(name, common: common) { ready.append(block) } else { later.append(block) }
            }
            blocks = later
        }
    }

    /// Collects, then tells whether a block is queued for mode `name`.
    package mutating func hasBlocks(for name: ModeName, common: [ModeName], from inbox: BlockInbox?) -> Bool {
        collect(from: inbox)
        defer { publish() }
        return blocks.contains { $0.matches(name, common: common) }
    }

    /// Collects, then tells whether mode `name` has work queued: a block
    /// for it, or a pending source `isMine` counts as its.
    package mutating func hasWork(for name: ModeName, common: [ModeName], from inbox: BlockInbox?,
                                  _ isMine: (Source) -> Bool) -> Bool {
        collect(from: inbox)
        defer { publish() }
        return blocks.contains { $0.matches(name, common: common) } || pending.contains(where: isMine)
    }

    /// Moves the pending sources into `ready` (empty) for `take` to sort
    /// (PendingSources.take).
    package mutating func takePending(into ready: inout [Source], _ take: (Source) -> Bool?) {
        pending.take(into: &ready, take)
    }

    /// Empties everything (teardown, finalize): the pending sources are
    /// forgotten, the blocks (with the inbox's, closed first) are returned
    /// for the caller to dispose of with no lock held, and the spare
    /// overflow array is handed over to be freed.
    package mutating func drain(closing inbox: BlockInbox?) -> (blocks: [QueuedBlock], spare: BlockInbox.OverflowArray?) {
        var left: [QueuedBlock] = []
        inbox?.close(into: &left)
        left = blocks + left + overflow
        blocks = []
        overflow = []
        pending.removeAll()
        publish()
        defer { spareOverflow = nil }
        return (left, spareOverflow)
    }

    /// Sets the hints to what the block lists hold now (the pending
    /// sources have none).  Mutating although it changes nothing: called
    /// from a mutating method (in a `defer`), a non-mutating one made the
    /// optimizer copy the whole struct to call it on the copy.
    private mutating func publish() {
        hints.blocks.set(!blocks.isEmpty)
        hints.overflow.set(!overflow.isEmpty)
    }
}
