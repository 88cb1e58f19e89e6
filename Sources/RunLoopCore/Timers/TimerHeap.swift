import Glibc

/// A mode's timers ordered by deadline, FIFO among equal deadlines.
///
/// Entries are plain values naming a slot of the mode (see ModeTimers): sifting
/// touches only this heap's memory.  They are never updated in place: when
/// a timer's deadline changes a new entry is pushed and the old one, whose
/// sequence number is no longer its slot's, is skipped when it reaches the
/// top (lazy deletion).  `compact` drops stale entries when they outnumber
/// live ones.
///
/// The heap is 4-ary, half the levels of a binary heap, and its entries
/// are 16 bytes in a buffer laid out so that the four children of a node
/// fill exactly one cache line: a level of a pop from a large heap is one
/// cache miss, not two.
package struct TimerHeap: ~Copyable {
    private static let arity = 4
    /// Slot numbers take the low bits of an entry's tag: a mode has at most
    /// one slot per handle (HandleTable: 2^26).
    package static let slotBits = 26
    /// Sequence numbers take the rest (38 bits); the mode renumbers its
    /// entries before they run out (see ModeTimers.nextSeq).
    package static let maxSeq: UInt64 = (1 << (64 - slotBits)) - 1

    package struct Entry: BitwiseCopyable {
        package let deadline: UInt64
        /// `seq << slotBits | slot`.  The sequence number (from the mode's
        /// counter) orders equal deadlines (FIFO) and identifies the entry
        /// (see ModeTimers.isLive); in the high bits, so one comparison orders by it.
        private let tag: UInt64

        package init(deadline: UInt64, seq: UInt64, slot: Int) {
            self.deadline = deadline
            tag = seq << TimerHeap.slotBits | UInt64(slot)
        }

        package var seq: UInt64 { tag >> TimerHeap.slotBits }
        package var slot: Int { Int(tag & (1 << TimerHeap.slotBits - 1)) }

        @inline(__always)
        package func precedes(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && tag < other.tag)
        }
    }

    /// Entry `i` of the heap is at `base[i + offset]`: the children of `i`,
    /// `4i + 1 ... 4i + 4`, then start at a multiple of 4 entries (64 bytes)
    /// from the cache-line-aligned buffer.
    private static let offset = 3
    /// The buffer from malloc (grown by realloc: a large one is remapped,
    /// with no copy and no page faults) and its first 64-byte boundary.
    /// None until the first push: every loop's default mode has a heap,
    /// and most modes never hold a timer.
    private var raw: UnsafeMutableRawPointer?
    private var base = TimerHeap.noEntries
    private var capacity = 0
    private static let initialCapacity = 13  // with the offset, 256 bytes
    package private(set) var count = 0

    /// `base` before the first push: never read or written (count is 0).
    nonisolated(unsafe) private static let noEntries = UnsafeMutablePointer<Entry>.allocate(capacity: offset + 1)

    package init() {}

    deinit { free(raw) }

    private static func aligned(_ raw: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Entry> {
        let address = (UInt(bitPattern: raw) + 63) & ~63
        return UnsafeMutableRawPointer(bitPattern: address)!.bindMemory(to: Entry.self, capacity: 1)
    }

    @inline(__always)
    private var e: UnsafeMutablePointer<Entry> { base + Self.offset }

    package var top: Entry? { count > 0 ? e[0] : nil }

    /// Adds `entry`; false, with nothing changed, if the heap is full and
    /// memory runs out as it grows.
    package mutating func push(_ entry: Entry) -> Bool {
        if count == capacity, !grow() { return false }
        e[count] = entry
        count += 1
        siftUp(count - 1, entry)
        return true
    }

    /// Makes room for `n` entries in all; false if memory runs out.
    package mutating func reserve(_ n: Int) -> Bool {
        while capacity < n { if !grow() { return false } }
        return true
    }

    private mutating func grow() -> Bool {
        let shift = raw.map { UnsafeMutableRawPointer(base) - $0 }
        let larger = capacity == 0 ? Self.initialCapacity : capacity * 2
        guard let grown = realloc(raw, (larger + Self.offset) * MemoryLayout<Entry>.stride + 64) else { return false }
        capacity = larger
        raw = grown
        base = Self.aligned(grown)
        // realloc kept the bytes' offset from the start; the boundary may differ.
        if let shift {
            let moved = (grown + shift).assumingMemoryBound(to: Entry.self)
            if moved != base { (base + Self.offset).moveInitialize(from: moved + Self.offset, count: count) }
        }
        return true
    }

    /// Removes the top entry.  Bottom-up: the hole left at the root
    /// follows the smaller children down to a leaf (three comparisons a
    /// level, none against the entry being placed), then the last entry
    /// goes in at the hole and sifts up, which for the heap's largest
    /// entries usually ends at once.
    @discardableResult
    package mutating func pop() -> Entry? {
        guard count > 0 else { return nil }
        let e = self.e
        let top = e[0]
        count -= 1
        let n = count
        guard n > 0 else { return top }
        let last = e[n]
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
        siftUp(hole, last)
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
        guard i < count, e[i].deadline < best else { return }
        best = min(best, windowEnd(e[i]))
        for child in Self.arity * i + 1 ... Self.arity * i + Self.arity { visit(child, &best, windowEnd) }
    }

    /// Appends the positions of the entries due by `now`, stale ones
    /// included, in increasing order: level by level, the children of a
    /// due entry after it (the parent of a due entry is due, so the heap
    /// order prunes the rest, and the cost is about the number due).  A
    /// heap filled in deadline order is in that order already.  If memory
    /// runs out, `positions` holds the first levels'.
    func duePositions(now: UInt64, into positions: inout MallocList<Int32>) {
        guard count > 0, e[0].deadline <= now, positions.append(0) else { return }
        var next = 0
        while next < positions.count {
            let first = Self.arity * Int(positions[next]) + 1
            next += 1
            guard first < count else { continue }
            for child in first ..< min(first + Self.arity, count) where e[child].deadline <= now {
                guard positions.append(Int32(truncatingIfNeeded: child)) else { return }
            }
        }
    }

    /// The entry at a position `duePositions` gave (no push or pop since).
    func entry(at position: Int) -> Entry {
        precondition(position < count)
        return e[position]
    }

    /// Every entry, in no particular order.
    package func forEach(_ body: (Entry) -> Void) {
        for i in 0 ..< count { body(e[i]) }
    }

    /// Drops every entry (the buffer is kept).
    package mutating func removeAll() { count = 0 }

    /// Drops every entry for which `isLive` is false and re-heapifies.
    package mutating func compact(keeping isLive: (Entry) -> Bool) {
        var kept = 0
        for i in 0 ..< count where isLive(e[i]) {
            e[kept] = e[i]
            kept += 1
        }
        count = kept
        guard count > 1 else { return }
        // From the last entry's parent up to the root.
        for i in stride(from: (count - 2) / Self.arity, through: 0, by: -1) { siftDown(i) }
    }

    /// Places `moving` at `start` or above (one write per level).
    private mutating func siftUp(_ start: Int, _ moving: Entry) {
        let e = self.e
        var hole = start
        while hole > 0 {
            let parent = (hole - 1) / Self.arity
            guard moving.precedes(e[parent]) else { break }
            e[hole] = e[parent]
            hole = parent
        }
        e[hole] = moving
    }

    private mutating func siftDown(_ start: Int) {
        let e = self.e
        let n = count
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
