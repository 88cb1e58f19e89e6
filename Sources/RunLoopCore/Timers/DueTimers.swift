/// A timer due in this pass, with the pass's reference to it and the
/// token of the schedule it was due by (see Loop.fireDueTimers).
package struct DueTimer: BitwiseCopyable {
    package let timer: Unmanaged<Timer>
    package let token: DueToken
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
    /// deadline order, see ModeTimers.collectDue): one pass checks.
    /// Otherwise sorted in place (MallocList.sort: no allocation).
    func sortByDeadline() {
        let count = list.count
        guard count > 1 else { return }
        var sorted = true
        for i in 1 ..< count where list[i].token.precedes(list[i - 1].token) {
            sorted = false
            break
        }
        if sorted { return }
        list.sort { $0.token.precedes($1.token) }
    }

    /// Empties both lists; each keeps its memory unless it holds more
    /// than `keptCapacity` entries.
    func removeAll() {
        positions.removeAll()
        list.removeAll()
    }
}
