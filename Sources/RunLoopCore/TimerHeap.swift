/// A mode's timers ordered by deadline, FIFO among equal deadlines.
///
/// Entries are never updated in place: when a timer's deadline changes a
/// new entry is pushed and the old one, carrying an older epoch, is
/// skipped when it reaches the top (lazy deletion).  `compactIfSparse`
/// rebuilds the heap when stale entries outnumber live ones.
package struct TimerHeap {
    package struct Entry {
        package var deadline: UInt64
        package var seq: UInt64
        package var epoch: UInt64
        package var timer: LoopTimer
        /// When the timer joined the mode this heap belongs to: an entry
        /// from before the timer was removed and added again is stale, so
        /// a re-added timer queues behind timers already due with it.
        package var joined: UInt64 = 0

        /// The end of the timer's firing window (deadline + tolerance).
        package var latest: UInt64 {
            let (sum, overflow) = deadline.addingReportingOverflow(timer.windowNs)
            return overflow ? Clock.never : sum
        }

        package func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : seq < other.seq
        }
    }

    private(set) var entries: [Entry] = []

    package var isEmpty: Bool { entries.isEmpty }
    package var count: Int { entries.count }
    package var top: Entry? { entries.first }

    /// `seq` must come from the loop's counter (monotonic per loop).
    package mutating func push(_ entry: Entry) {
        entries.append(entry)
        siftUp(entries.count - 1)
    }

    @discardableResult
    package mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let last = entries.removeLast()
        if !entries.isEmpty { siftDown(0) }
        return last
    }

    /// The earliest window end among the entries, given `bound`, the
    /// window end of the top entry: only entries due before `bound` can
    /// end their window earlier, and the heap order prunes the others
    /// (cost: the number of entries due before `bound`).  Stale entries
    /// count too, which at worst wakes the loop a little early for nothing.
    package func earliestLatest(bound: UInt64) -> UInt64 {
        var best = bound
        visit(0, &best)
        return best
    }

    private func visit(_ i: Int, _ best: inout UInt64) {
        guard i < entries.count, entries[i].deadline < best else { return }
        best = min(best, entries[i].latest)
        visit(2 * i + 1, &best)
        visit(2 * i + 2, &best)
    }

    /// Drops every entry for which `isLive` is false and re-heapifies.
    package mutating func compact(keeping isLive: (Entry) -> Bool) {
        entries.removeAll { !isLive($0) }
        var i = entries.count / 2
        while i > 0 { i -= 1; siftDown(i) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let n = entries.count
        while true {
            let left = 2 * parent + 1
            guard left < n else { return }
            var best = left
            if left + 1 < n && entries[left + 1].precedes(entries[left]) { best = left + 1 }
            guard entries[best].precedes(entries[parent]) else { return }
            entries.swapAt(best, parent)
            parent = best
        }
    }
}
