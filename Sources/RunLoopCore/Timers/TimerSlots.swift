import Glibc

/// A mode's timer slots (see ModeTimers): each holds a timer, with the mode's
/// reference to it, and the sequence number of its live heap entry (0:
/// none).  Plain memory managed by hand, so the loop's hot paths pay no
/// copy-on-write check and no buffer retain.  Free slots form a list
/// through their sequence words, marked by the top bit, which no heap
/// entry's number has (TimerHeap.maxSeq), so a stale entry never matches
/// a free slot.  Part of a mode's ModeTimers: guarded by the owning loop's
/// lock.
package struct TimerSlots: ~Copyable {
    private struct Slot {
        var timer: Unmanaged<Timer>?
        var seq: UInt64
    }

    private static let freeMark: UInt64 = 1 << 63
    /// `noSlots` until the first insert (every loop's default mode has
    /// slots, and most modes never hold a timer); then from malloc.
    private var base = TimerSlots.noSlots
    private var capacity = 0
    /// Slots ever used (the high-water mark).
    private var used = 0
    /// The first free slot, -1 for none.
    private var freeHead = -1

    package init() {}

    deinit { if capacity > 0 { free(base) } }

    /// `base` before the first insert: never read or written (`used` is 0).
    nonisolated(unsafe) private static let noSlots = UnsafeMutablePointer<Slot>.allocate(capacity: 1)

    /// Makes room for one more timer; false, with nothing changed, when
    /// memory runs out.  realloc: a large buffer grows by remapping its
    /// pages, with no copy and no page faults for what it held.
    package mutating func reserveOne() -> Bool {
        guard freeHead < 0, used == capacity else { return true }
        let grown = capacity == 0 ? 8 : capacity * 2
        guard let raw = realloc(capacity > 0 ? base : nil, grown * MemoryLayout<Slot>.stride) else { return false }
        base = raw.bindMemory(to: Slot.self, capacity: grown)
        capacity = grown
        return true
    }

    /// Puts `timer` (with a reference the caller hands over) in a free
    /// slot, after `reserveOne`; returns it.
    package mutating func insert(_ timer: Unmanaged<Timer>) -> Int {
        let slot: Int
        if freeHead >= 0 {
            slot = freeHead
            freeHead = Int(base[slot].seq & ~Self.freeMark) - 1
        } else {
            precondition(used < capacity, "TimerSlots.insert without reserveOne")
            slot = used
            used += 1
        }
        base[slot] = Slot(timer: timer, seq: 0)
        return slot
    }

    /// Empties `slot` and returns the reference it held.
    package mutating func remove(_ slot: Int) -> Unmanaged<Timer> {
        assert(slot < used && base[slot].timer != nil)
        let timer = base[slot].timer!
        base[slot] = Slot(timer: nil, seq: Self.freeMark | UInt64(freeHead + 1))
        freeHead = slot
        return timer
    }

    @inline(__always)
    package func timer(at slot: Int) -> Unmanaged<Timer> {
        assert(slot < used && base[slot].timer != nil)
        return base[slot].timer!
    }

    @inline(__always)
    package func seq(at slot: Int) -> UInt64 {
        assert(slot < used)
        return base[slot].seq
    }

    @inline(__always)
    package mutating func setSeq(_ seq: UInt64, at slot: Int) {
        assert(slot < used && base[slot].timer != nil)
        base[slot].seq = seq
    }

    /// Reads a slot's sequence number without going through this value:
    /// for a heap rebuild, which holds the heap while it asks.
    package var seqReader: (Int) -> UInt64 {
        let base = self.base
        return { base[$0].seq }
    }

    /// Every timer held, in slot order.
    package var timers: [Timer] {
        (0 ..< used).compactMap { base[$0].timer?.takeUnretainedValue() }
    }

    /// Forgets every slot (the references were dropped by their removals).
    package mutating func removeAll() {
        used = 0
        freeHead = -1
    }
}
