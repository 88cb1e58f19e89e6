import Glibc

/// A timer taken off the heap to fire in this pass, with the pass's
/// reference to it (see Loop.fireDueTimers).
package struct DueTimer {
    package let timer: Unmanaged<Timer>
    package let deadline: UInt64
    package let epoch: UInt32
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
        count = 0
        if capacity > Self.keptCapacity {
            free(base)
            base = nil
            capacity = 0
        }
    }
}
