/// A mode's timers ordered by deadline, FIFO among equal deadlines.
///
/// Entries are plain values naming a slot of the mode (see Mode): sifting
/// touches only this array.  They are never updated in place: when a
/// timer's deadline changes a new entry is pushed and the old one, whose
/// sequence number is no longer its slot's, is skipped when it reaches the
/// top (lazy deletion).  `compact` drops stale entries when they
/// outnumber live ones.
///
/// The heap is 4-ary: half the levels of a binary heap, and the four
/// children of a node are adjacent in memory, so a pop from a large heap
/// takes about half the cache misses.
package struct TimerHeap {
    private static let arity = 4

    package struct Entry {
        package var deadline: UInt64
        /// From the loop's counter: orders equal deadlines (FIFO) and
        /// identifies the entry (see Mode.isLive).
        package var seq: UInt64
        package var slot: Int

        @inline(__always)
        package func precedes(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && seq < other.seq)
        }
    }

    private(set) var entries: [Entry] = []

    package var isEmpty: Bool { entries.isEmpty }
    package var count: Int { entries.count }
    package var top: Entry? { entries.first }

    package mutating func push(_ entry: Entry) {
        entries.append(entry)
        siftUp(entries.count - 1)
    }

    /// Removes the top entry.  Bottom-up: the hole left at the root
    /// follows the smaller children down to a leaf (three comparisons a
    /// level, none against the entry being placed), then the last entry
    /// goes in at the hole and sifts up, which for the heap's largest
    /// entries usually ends at once.
    @discardableResult
    package mutating func pop() -> Entry? {
        guard let top = entries.first else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return top }
        entries.withUnsafeMutableBufferPointer { e in
            let n = e.count
            var hole = 0
            while true {
                let c = Self.arity * hole + 1
                let best: Int
                if c + 3 < n {
                    // A tournament: the two pairs compare independently.
                    let left = e[c + 1].precedes(e[c]) ? c + 1 : c
                    let right = e[c + 3].precedes(e[c + 2]) ? c + 3 : c + 2
                    best = e[right].precedes(e[left]) ? right : left
                } else if c < n {
                    var b = c
                    var child = c + 1
                    while child < n {
                        if e[child].precedes(e[b]) { b = child }
                        child += 1
                    }
                    best = b
                } else {
                    break
                }
                e[hole] = e[best]
                hole = best
            }
            while hole > 0 {
                let parent = (hole - 1) / Self.arity
                guard last.precedes(e[parent]) else { break }
                e[hole] = e[parent]
                hole = parent
            }
            e[hole] = last
        }
        return top
    }

    /// The earliest window end among the entries, given `bound`, the
    /// window end of the top entry: only entries due before `bound` can
    /// end their window earlier, and the heap order prunes the others
    /// (cost: the number of entries due before `bound`).  Stale entries
    /// count too, which at worst wakes the loop a little early for nothing.
    package func earliestLatest(bound: UInt64, windowEnd: (Entry) -> UInt64) -> UInt64 {
        var best = bound
        visit(0, &best, windowEnd)
        return best
    }

    private func visit(_ i: Int, _ best: inout UInt64, _ windowEnd: (Entry) -> UInt64) {
        guard i < entries.count, entries[i].deadline < best else { return }
        best = min(best, windowEnd(entries[i]))
        for child in Self.arity * i + 1 ... Self.arity * i + Self.arity { visit(child, &best, windowEnd) }
    }

    /// Drops every entry for which `isLive` is false and re-heapifies.
    package mutating func compact(keeping isLive: (Entry) -> Bool) {
        entries.removeAll { !isLive($0) }
        guard entries.count > 1 else { return }
        // From the last entry's parent up to the root.
        for i in stride(from: (entries.count - 2) / Self.arity, through: 0, by: -1) { siftDown(i) }
    }

    // Both sifts move a hole instead of swapping: one write per level.

    private mutating func siftUp(_ start: Int) {
        entries.withUnsafeMutableBufferPointer { e in
            let moving = e[start]
            var hole = start
            while hole > 0 {
                let parent = (hole - 1) / Self.arity
                guard moving.precedes(e[parent]) else { break }
                e[hole] = e[parent]
                hole = parent
            }
            e[hole] = moving
        }
    }

    private mutating func siftDown(_ start: Int) {
        entries.withUnsafeMutableBufferPointer { e in
            let n = e.count
            let moving = e[start]
            var hole = start
            while true {
                let firstChild = Self.arity * hole + 1
                guard firstChild < n else { break }
                var best = firstChild
                var child = firstChild + 1
                let end = min(firstChild + Self.arity, n)
                while child < end {
                    if e[child].precedes(e[best]) { best = child }
                    child += 1
                }
                guard e[best].precedes(moving) else { break }
                e[hole] = e[best]
                hole = best
            }
            e[hole] = moving
        }
    }
}
