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
