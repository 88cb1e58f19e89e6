import Glibc

/// A timer due in this pass, with the pass's reference to it and the heap
/// entry it was due by (see Loop.fireDueTimers).
package struct DueTimer {
    package let timer: Unmanaged<Timer>
    package let entry: TimerHeap.Entry
}

/// The timers a pass fires, in memory from malloc that the loop keeps
/// from pass to pass.  A burst makes room for every due timer at once
/// (`reserve`); when memory runs out the list stays as large as malloc
/// can still make it, and the timers that do not fit stay due for the
/// next pass.  A Swift array would trap instead.  The loop's thread only:
/// its state is declared @exclusivity(unchecked) (docs/design.md,
/// "Exclusivity checks").
final class DueTimers {
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<DueTimer>?
    @exclusivity(unchecked) private(set) var capacity = 0
    @exclusivity(unchecked) private(set) var count = 0
    /// Where the due entries are in the heap: the scratch of
    /// `ModeTimers.collectDue`, kept with the list.
    let positions = HeapPositions()

    init() {}

    deinit { free(base) }

    /// Room for `n` timers, or for as many as memory allows (the request
    /// halves until realloc can give it).
    func reserve(_ n: Int) {
        var want = n
        while want > capacity {
            if let grown = realloc(base, want * MemoryLayout<DueTimer>.stride) {
                base = grown.bindMemory(to: DueTimer.self, capacity: want)
                capacity = want
                return
            }
            want /= 2
        }
    }

    /// Whether the list has room for another timer.
    var hasRoom: Bool { count < capacity }

    /// Adds a timer; the list must have room.
    func append(_ due: DueTimer) {
        precondition(count < capacity, "DueTimers.append with no room")
        (base! + count).initialize(to: due)
        count += 1
    }

    /// Puts the list in firing order: by deadline, FIFO among equal ones
    /// (the heap's order).  Often in order already (a heap filled in
    /// deadline order, see TimerHeap.duePositions): one pass checks.
    /// Otherwise a heapsort, in place: Swift's sort allocates a buffer of
    /// half the list, and traps when memory runs out.
    func sortByDeadline() {
        guard count > 1, let base else { return }
        var sorted = true
        for i in 1 ..< count where base[i].entry.precedes(base[i - 1].entry) {
            sorted = false
            break
        }
        if sorted { return }
        // A max-heap by firing order, then the largest to the end.
        for start in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(base, start, count) }
        for end in stride(from: count - 1, to: 0, by: -1) {
            swap(&base[0], &base[end])
            siftDown(base, 0, end)
        }
    }

    private func siftDown(_ base: UnsafeMutablePointer<DueTimer>, _ start: Int, _ end: Int) {
        var parent = start
        while true {
            var child = 2 * parent + 1
            guard child < end else { return }
            if child + 1 < end && base[child].entry.precedes(base[child + 1].entry) { child += 1 }
            guard base[parent].entry.precedes(base[child].entry) else { return }
            swap(&base[parent], &base[child])
            parent = child
        }
    }

    subscript(_ i: Int) -> DueTimer {
        precondition(i < count)
        return base![i]
    }

    /// The most entries whose memory the list keeps between passes (1.5
    /// MB): a burst of more gives its memory back when it is done, so a
    /// loop that once fired a million timers at once does not keep 24 MB.
    static let keptCapacity = 1 << 16

    /// Empties the list; keeps its memory unless it holds more than
    /// `keptCapacity` entries.
    func removeAll() {
        positions.removeAll()
        count = 0
        if capacity > Self.keptCapacity {
            free(base)
            base = nil
            capacity = 0
        }
    }
}

/// Positions in a timer heap, in memory from malloc grown by doubling
/// (`append` fails, rather than trapping, when memory runs out).  The
/// loop's thread only, as DueTimers.
final class HeapPositions {
    @exclusivity(unchecked) private var base: UnsafeMutablePointer<Int32>?
    @exclusivity(unchecked) private var capacity = 0
    @exclusivity(unchecked) private(set) var count = 0

    init() {}

    deinit { free(base) }

    /// Adds a position; false, with nothing added, when memory runs out.
    func append(_ position: Int) -> Bool {
        if count == capacity {
            let grown = capacity == 0 ? 64 : capacity * 2
            guard let raw = realloc(base, grown * MemoryLayout<Int32>.stride) else { return false }
            base = raw.bindMemory(to: Int32.self, capacity: grown)
            capacity = grown
        }
        base![count] = Int32(truncatingIfNeeded: position)
        count += 1
        return true
    }

    subscript(_ i: Int) -> Int {
        precondition(i < count)
        return Int(base![i])
    }

    /// Empties the list; keeps its memory unless it holds more than
    /// `DueTimers.keptCapacity` positions.
    func removeAll() {
        count = 0
        if capacity > DueTimers.keptCapacity {
            free(base)
            base = nil
            capacity = 0
        }
    }
}

