import Glibc
import Synchronization

/// A mode's timers: the slots that hold them and the heap that orders
/// their deadlines.  A timer's placement records its slot, and the slot
/// the sequence number of its live heap entry (0: none, while it fires).
/// Heap entries name slots, so an entry is checked without touching the
/// timer (see isLive), and the check and the timer share one cache line.
/// A slot holds a reference to its timer (a Swift reference with the
/// mode's handle reference, both dropped after `remove` by Deferred).
///
/// One value, reached through one stored property of its Mode: each
/// operation below is a single access to the mode, whatever it touches
/// inside (the runtime's exclusivity check is paid once per operation,
/// not once per field).  Guarded by the owning loop's lock, but for
/// `hint`, read without it.
///
/// The queue's files are this one (with TimerSlots, below) and
/// TimerHeap: the rest of the engine knows a timer's slot (its placement)
/// and the `DueToken`s of `collectDue`, never a heap entry, so a change
/// to the queue stays in these two files.
package struct ModeTimers: ~Copyable {
    private var slots = TimerSlots()
    private var heap = TimerHeap()
    /// How many timers the slots hold.
    package private(set) var count = 0
    /// A copy of `count` readable without the loop's lock: a pass in a
    /// mode with no timer skips the lock for them (Loop.mayHaveWork).
    /// Written here only, with the lock held.
    private let hint = Atomic<Int>(0)

    /// Whether the mode may hold a timer: read without the loop's lock.
    @inline(__always)
    package var mayHaveTimers: Bool { hint.load(ordering: .acquiring) > 0 }
    /// The last sequence number given to an entry, and the largest one an
    /// entry can hold (lowered by tests).
    private var lastSeq: UInt64 = 0
    package var seqLimit = TimerHeap.maxSeq

    package init() {}

    /// The most timers a mode holds: slot numbers fit in a heap entry's
    /// 26 bits (TimerHeap), as many as there are handles.
    package static let limit = 1 << TimerHeap.slotBits

    /// Holds `timer` (the caller took the mode's reference) and schedules
    /// it at `deadline` (none:
    /// it is firing, and is scheduled after its callout); returns its
    /// slot.  Fails, with nothing changed, if the mode holds `limit`
    /// timers already or memory runs out: the room every later schedule
    /// needs is made here (see `schedule`).
    package mutating func insert(_ timer: Timer, scheduleAt deadline: UInt64?) -> Result<Int, AddFailure> {
        guard count < Self.limit else { return .failure(.full) }
        guard slots.reserveOne(), heap.reserve(count + 1) else { return .failure(.outOfMemory) }
        count += 1
        let slot = slots.insert(.passRetained(timer))
        if let deadline { schedule(slot: slot, deadline: deadline) }
        hint.store(count, ordering: .releasing)
        return .success(slot)
    }

    /// Empties a slot (its heap entry goes stale) and returns its timer,
    /// whose mode reference the caller drops once the loop's lock is
    /// released (a timer's last release must not run under it).
    package mutating func remove(slot: Int) -> Unmanaged<Timer> {
        let timer = slots.remove(slot)
        count -= 1
        hint.store(count, ordering: .releasing)
        compactIfSparse()
        return timer
    }

    package var all: [Timer] { slots.timers }

    /// Appends the timers due by `now` to `due`, each with a reference of
    /// the list's own and the token of the schedule it is due by, in the
    /// heap's order (see TimerHeap.duePositions).  They stay scheduled.
    /// If memory runs out, the list holds the earliest levels' and the
    /// others stay due.
    func collectDue(now: UInt64, into due: DueTimers) {
        heap.duePositions(now: now, into: &due.positions)
        due.reserve(due.positions.count)
        for i in 0 ..< due.positions.count where due.hasRoom {
            let entry = heap.entry(at: Int(due.positions[i]))
            if isLive(entry) { due.append(DueTimer(timer: slots.timer(at: entry.slot).retain(), token: DueToken(entry))) }
        }
    }

    /// Schedules the timer in `slot` at `deadline`, behind the entries
    /// already there with the same deadline (FIFO); its previous entry is
    /// retired.
    /// Never fails: the heap has room for an entry per timer (`insert`
    /// made it), so if it cannot grow, dropping its stale entries makes
    /// room (the timer's own old entry is stale once its number changed).
    package mutating func schedule(slot: Int, deadline: UInt64) {
        let seq = nextSeq()
        slots.setSeq(seq, at: slot)
        let entry = TimerHeap.Entry(deadline: deadline, seq: seq, slot: slot)
        if !heap.push(entry) {
            compact()
            let pushed = heap.push(entry)
            precondition(pushed, "a timer heap with no room after compaction")
        }
        compactIfSparse()
    }

    private mutating func nextSeq() -> UInt64 {
        if lastSeq >= seqLimit { renumber() }
        lastSeq += 1
        return lastSeq
    }

    /// Gives the live entries the numbers 1...n in their order (stale ones
    /// go), so the counter starts again below the limit.  Once per 2^38
    /// schedules of one mode: never in practice, but a long-lived busy
    /// loop must not wrap and revive a stale entry.
    private mutating func renumber() {
        var live: [TimerHeap.Entry] = []
        heap.forEach { if isLive($0) { live.append($0) } }
        live.sort { $0.precedes($1) }
        heap.removeAll()
        for (i, old) in live.enumerated() {
            let seq = UInt64(i + 1)
            slots.setSeq(seq, at: old.slot)
            // In order: no sifting; within the capacity the heap had.
            _ = heap.push(TimerHeap.Entry(deadline: old.deadline, seq: seq, slot: old.slot))
        }
        lastSeq = UInt64(live.count)
    }

    /// Retires the timer's entry: it fires nowhere until scheduled again.
    package mutating func unschedule(slot: Int) { slots.setSeq(0, at: slot) }

    /// True if the entry is still its timer's current schedule in this mode.
    @inline(__always)
    private func isLive(_ entry: TimerHeap.Entry) -> Bool { slots.seq(at: entry.slot) == entry.seq }

    /// True if the schedule `token` was listed by is still its timer's
    /// current one in this mode: not moved, removed or fired since.
    @inline(__always)
    package func isLive(_ token: DueToken) -> Bool { isLive(token.entry) }

    /// The earliest live entry, dropping stale ones from the top.
    private mutating func earliest() -> TimerHeap.Entry? {
        while let top = heap.top {
            if isLive(top) { return top }
            heap.pop()
        }
        return nil
    }

    /// The timer due first, nil when none is scheduled; with no reference
    /// of its own: valid while the loop's lock is held and the timer stays
    /// in the mode.
    package mutating func earliestTimer() -> Unmanaged<Timer>? {
        earliest().map { slots.timer(at: $0.slot) }
    }

    /// When the loop must wake for these timers.  Each timer may fire
    /// anywhere in [deadline, deadline + tolerance]: waking at the earliest
    /// window end serves every timer due by then, and makes none late.
    /// With no tolerance on the earliest timer, that is its deadline.
    package mutating func wakeDeadline() -> UInt64 {
        guard let top = earliest() else { return Clock.never }
        let latest = windowEnd(top)
        if latest == top.deadline { return latest }
        return heap.earliestLatest(bound: latest) { windowEnd($0) }
    }

    /// The end of an entry's firing window (deadline + tolerance); stale
    /// entries count as their deadline (at worst an early wake-up).
    private func windowEnd(_ entry: TimerHeap.Entry) -> UInt64 {
        guard isLive(entry) else { return entry.deadline }
        let (sum, overflow) = entry.deadline.addingReportingOverflow(
            slots.timer(at: entry.slot)._withUnsafeGuaranteedRef { $0.windowNs })
        return overflow ? Clock.never : sum
    }

    /// Rebuilds the heap when stale entries dominate it.
    private mutating func compactIfSparse() {
        guard heap.count > 2 * count + 32 else { return }
        compact()
    }

    /// Drops the stale entries (in place: no allocation).
    private mutating func compact() {
        let seqs = slots.seqReader
        heap.compact { seqs($0.slot) == $0.seq }
    }

    /// Forgets every timer (teardown, after each was removed).
    package mutating func reset() {
        slots.removeAll()
        count = 0
        hint.store(0, ordering: .releasing)
        heap.removeAll()
    }
}

/// The schedule a due timer was listed by (ModeTimers.collectDue): its
/// deadline and its place among equal deadlines.  Opaque to the pass:
/// `ModeTimers.isLive` says whether it is still the timer's schedule.
package struct DueToken: BitwiseCopyable, Equatable {
    fileprivate let entry: TimerHeap.Entry

    /// Internal: made by `collectDue` (and by tests).
    init(_ entry: TimerHeap.Entry) { self.entry = entry }

    /// When the timer was due.
    package var deadline: UInt64 { entry.deadline }

    /// Firing order: by deadline, FIFO among equal ones (the heap's order).
    @inline(__always)
    package func precedes(_ other: DueToken) -> Bool { entry.precedes(other.entry) }

    package static func == (a: DueToken, b: DueToken) -> Bool { !a.precedes(b) && !b.precedes(a) }
}

/// A mode's timer slots (see ModeTimers): each holds a timer (retained:
/// `remove` hands the reference over) and the sequence number of
/// its live heap entry (0: none).  Plain memory managed by hand, so the loop's hot paths pay no
/// copy-on-write check and no buffer retain.  Free slots form a list
/// through their sequence words, marked by the top bit, which no heap
/// entry's number has (TimerHeap.maxSeq), so a stale entry never matches
/// a free slot.  Part of a mode's ModeTimers: guarded by the owning loop's
/// lock.
fileprivate struct TimerSlots: ~Copyable {
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

    /// Puts `timer` in a free slot, after `reserveOne`; returns it.
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

    /// Empties `slot` and returns the timer it held.
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
