/// A loop's modes: found by their name's id, listed in the order they were
/// made (CF's order in a loop's description).  Guarded by the loop's lock.
///
/// Mode name ids are small integers handed out in order by the intern
/// table (ModeName.swift), so the id itself is the hash: a lookup is a
/// mask, a compare and a load, where a `[ModeName: Mode]` spent ~200
/// instructions in SipHash on every add, remove and run.  Modes are never
/// removed, so the open-addressing table needs no tombstones.
struct ModeTable {
    /// The modes in the order they were made.
    private(set) var ordered: [Mode] = []
    /// Open addressing over `ordered` once it holds more than `scanned`
    /// modes: a slot holds a position + 1, or 0 when empty.  Probed
    /// linearly from `id & (count - 1)`; kept at most half full, and a
    /// power of two long.  Empty before: a loop's first few modes (most
    /// loops have one to three) are found by comparing their ids in turn,
    /// no slower than a probe, and the loop keeps no table block (56 bytes).
    private var slots: ContiguousArray<Int32> = []
    private static let scanned = 4

    /// The mode named `name`, if the loop has made it.
    @inline(__always)
    subscript(name: ModeName) -> Mode? {
        if slots.isEmpty {
            for i in ordered.indices where ordered[i].name.id == name.id { return ordered[i] }
            return nil
        }
        let mask = slots.count - 1
        var i = name.id & mask
        while true {
            let position = Int(slots[i])
            if position == 0 { return nil }
            let mode = ordered[position - 1]
            if mode.name.id == name.id { return mode }
            i = (i + 1) & mask
        }
    }

    /// Adds a mode whose name is not in the table yet.
    mutating func insert(_ mode: Mode) {
        ordered.append(mode)
        if ordered.count <= Self.scanned { return }
        if ordered.count * 2 > slots.count {
            rehash(capacity: max(4 * Self.scanned, slots.count * 2))
        } else {
            place(position: ordered.count)
        }
    }

    /// The names of the modes, in the order they were made.
    var names: [ModeName] { ordered.map(\.name) }

    private mutating func place(position: Int) {
        let mask = slots.count - 1
        var i = ordered[position - 1].name.id & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = Int32(truncatingIfNeeded: position)
    }

    private mutating func rehash(capacity: Int) {
        slots = ContiguousArray(repeating: 0, count: capacity)
        for position in 1 ... ordered.count { place(position: position) }
    }
}
