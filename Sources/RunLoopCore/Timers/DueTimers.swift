/// A timer due in this pass, with the pass's reference to it and the heap
/// entry it was due by (see Loop.fireDueTimers).
package struct DueTimer: BitwiseCopyable {
    package let timer: Unmanaged<Timer>
    package let entry: TimerHeap.Entry
}

/// The timers a pass fires, kept by the loop from pass to pass (a
/// MallocList: a burst makes room for every due timer at once, and when
/// memory runs out the list stays as large as malloc can still make it;
/// the timers that do not fit stay due for the next pass).  The loop's
/// thread only: its state is declared @exclusivity(unchecked)
/// (docs/design.md, "Exclusivity checks").
final class DueTimers {
    /// The most entries whose memory the lists keep between passes (1.5
    /// MB of timers): a burst of more gives its memory back when it is
    /// done, so a loop that once fired a million timers at once does not
    /// keep 24 MB.
    static let keptCapacity = 1 << 16

    @exclusivity(unchecked) private var list = MallocList<DueTimer>(keptCapacity: keptCapacity)
    /// Where the due entries are in the heap: the scratch of
    /// `ModeTimers.collectDue`, kept with the list.
    @exclusivity(unchecked) var positions = MallocList<Int32>(keptCapacity: keptCapacity)

    init() {}

    var capacity: Int { list.capacity }
    var count: Int { list.count }
    /// Whether the list has room for another timer.
    var hasRoom: Bool { list.hasRoom }

    /// Room for `n` timers, or for as many as memory allows.
    func reserve(_ n: Int) { list.reserve(n) }

    /// Adds a timer; the list must have room.
    func append(_ due: DueTimer) {
        precondition(list.hasRoom, "DueTimers.append with no room")
        _ = list.append(due)  // cannot fail: there is room
    }

    subscript(_ i: Int) -> DueTimer { list[i] }

    /// Puts the list in firing order: by deadline, FIFO among equal ones
    /// (the heap's order).  Often in order already (a heap filled in
    /// deadline order, see TimerHeap.duePositions): one pass checks.
    /// Otherwise a heapsort, in place: Swift's sort allocates a buffer of
    /// half the list, and traps when memory runs out.
    func sortByDeadline() {
        let count = list.count
        guard count > 1 else { return }
        var sorted = true
        for i in 1 ..< count where list[i].entry.precedes(list[i - 1].entry) {
            sorted = false
            break
        }
        if sorted { return }
        // A max-heap by firing order, then the largest to the end.
        for start in stride(from: count / 2 - 1, through: 0, by: -1) { siftDown(start, count) }
        for end in stride(from: count - 1, to: 0, by: -1) {
            list.swapAt(0, end)
            siftDown(0, end)
        }
    }

    private func siftDown(_ start: Int, _ end: Int) {
        var parent = start
        while true {
            var child = 2 * parent + 1
            guard child < end else { return }
            if child + 1 < end && list[child].entry.precedes(list[child + 1].entry) { child += 1 }
            guard list[parent].entry.precedes(list[child].entry) else { return }
            list.swapAt(parent, child)
            parent = child
        }
    }

    /// Empties both lists; each keeps its memory unless it holds more
    /// than `keptCapacity` entries.
    func removeAll() {
        positions.removeAll()
        list.removeAll()
    }
}
