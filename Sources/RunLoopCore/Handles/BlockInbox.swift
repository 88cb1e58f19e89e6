import CRunLoopShims
import Glibc
import Synchronization

/// The lock-free front of a loop's block queue: where RLRunLoopPerformFunction
/// (and every other perform) puts a block, with no pin and no lock.
///
/// A bounded multi-producer ring: a producer claims a position by a
/// compare-and-swap on `tail` (when the consumer's `head` is less than a
/// lap behind), writes its block into the position's cell and publishes it
/// by storing its last word (see the layout below).  The
/// consumer is whoever holds the loop's lock (the loop's thread at the
/// start of its block step, teardown, finalization): it moves published
/// blocks, in position order, into `Loop.blocks`, where they wait for a
/// pass of a matching mode as before.
///
/// Stale handles: the ring lives in memory that is never freed, reached
/// from the loop's handle-table slot (HandleTable.inbox), like the hot
/// word.  `tail` holds the generation of the loop that owns the ring, so
/// the claim itself checks the handle: a producer holding a stale handle
/// (or one of another object in the same slot) compares a generation the
/// ring no longer has, claims nothing and takes the pinned path, which
/// reports the error.  A ring is closed (generation 0) when its loop is
/// torn down or finalized, after which no claim succeeds; closing waits
/// for the blocks already claimed and hands them to the closer.  A slot
/// with a ring is only ever given to another loop (HandleTable.register),
/// which reopens the ring with its own generation.
///
/// Overflow: while the ring is full, producers append blocks to a
/// growable array in the same never-freed memory, guarded by a mutex there
/// (checking the generation under it, as the claim does), and set
/// `overflowBit` in `tail`, which stops further claims; the consumer takes
/// the overflow array only once it has every block claimed before it, then
/// clears the bit.  So blocks keep the order in which their perform calls
/// returned, and no perform waits for the loop.
///
/// Modes: a block's mode must exist from when it is queued.  `ensured` is
/// the id of the last mode a producer made sure of under the loop's lock;
/// the lock-free path accepts the default mode, the common modes and that
/// one, and leaves any other to the locked path, which creates the mode.
package struct BlockInbox: @unchecked Sendable {
    private let base: UnsafeMutableRawPointer

    package init(_ base: UnsafeMutableRawPointer) { self.base = base }

    // 256 cells (8 KB, made by a loop's first queued block): a flood's
    // producer outruns the loop whenever the loop is held up (its pass's
    // epoll_wait, the host taking its CPU away), and while the ring is
    // full every block goes through the overflow lock until the loop has
    // caught up.  Smaller rings sent a one-producer flood through the
    // overflow far more often (docs/bench/PROFILE.md has the runs).
    private static let capacityBits: UInt64 = 8
    static let capacity = 1 << Int(capacityBits)
    private static let positionBits = 39
    private static let positionMask: UInt64 = 1 << positionBits - 1
    static let overflowBit: UInt64 = 1 << positionBits
    private static let generationShift: UInt64 = 40

    // Layout: the producers' word, the words producers only read, the
    // consumer's word, each on a line of its own, the overflow array, then
    // the cells: a block's four words (QueuedBlock.words), two per line.
    // The last word, the mode's C string (8-byte aligned), also says
    // whether the cell is published: its low bit is the parity of the lap
    // (position / capacity) that wrote it, and 0 means never written.
    private static let tailOffset = 0
    private static let ensuredOffset = 64
    private static let headOffset = 128
    // The overflow array: its mutex (a pthread_mutex_t, 40 bytes on
    // x86-64 and arm64), then base, count and capacity.
    private static let lockOffset = 192
    private static let overflowOffset = 256
    private static let cellsOffset = 320
    private static let cellStride = 32
    static let byteCount = cellsOffset + capacity * cellStride

    private var tail: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + Self.tailOffset).assumingMemoryBound(to: Atomic<UInt64>.self)
    }
    /// A value `head` had, with the generation of the producer that read
    /// it (on the producers' line): a producer reads the consumer's `head`
    /// only when this says the ring is full, so `head`'s line moves about
    /// once a lap, not once a block.  Any older value is safe (head only
    /// grows: it shows less room); one stored by a producer of an older
    /// owner of the ring, after it was reopened, has that owner's
    /// generation, which no current producer accepts.
    private var headSeen: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + Self.tailOffset + 8).assumingMemoryBound(to: Atomic<UInt64>.self)
    }
    private var ensured: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + Self.ensuredOffset).assumingMemoryBound(to: Atomic<UInt64>.self)
    }
    /// 1 while `overflowBit` is set in `tail`: the consumer reads this
    /// (written twice per overflow) instead of `tail` (written per block).
    private var overflowFlag: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + Self.ensuredOffset + 8).assumingMemoryBound(to: Atomic<UInt64>.self)
    }
    private var head: UnsafeMutablePointer<Atomic<UInt64>> {
        (base + Self.headOffset).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    @inline(__always)
    private func cell(_ position: UInt64) -> UnsafeMutablePointer<UInt> {
        (base + Self.cellsOffset + Int(position & UInt64(Self.capacity - 1)) * Self.cellStride)
            .assumingMemoryBound(to: UInt.self)
    }

    /// The last word of a cell published for `position`.
    @inline(__always)
    private static func published(_ position: UInt64, mode: UInt) -> UInt64 {
        UInt64(mode) | (position >> capacityBits & 1)
    }

    /// Whether `word`, a cell's last word, is the publication for `position`.
    @inline(__always)
    private static func isPublished(_ word: UInt64, _ position: UInt64) -> Bool {
        word != 0 && word & 1 == position >> capacityBits & 1
    }

    @inline(__always)
    private static func lastWord(_ cell: UnsafeMutablePointer<UInt>) -> UnsafeMutablePointer<Atomic<UInt64>> {
        UnsafeMutableRawPointer(cell + 3).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// The overflow array's mutex: producers append under it, the consumer
    /// takes the array under it.  Held for a few stores (an append, a
    /// swap), and for a copy when the array doubles.
    private var lock: UnsafeMutablePointer<pthread_mutex_t> {
        (base + Self.lockOffset).assumingMemoryBound(to: pthread_mutex_t.self)
    }
    /// The overflow array (guarded by `lock`): base, count, capacity.
    private var overflow: UnsafeMutablePointer<UnsafeMutablePointer<QueuedBlock>?> {
        (base + Self.overflowOffset).assumingMemoryBound(to: UnsafeMutablePointer<QueuedBlock>?.self)
    }
    private var overflowCount: UnsafeMutablePointer<Int> { (base + Self.overflowOffset + 8).assumingMemoryBound(to: Int.self) }
    private var overflowCapacity: UnsafeMutablePointer<Int> { (base + Self.overflowOffset + 16).assumingMemoryBound(to: Int.self) }

    /// A closed ring (owned by no loop).  Never deallocated.  Each word
    /// is bound to the type it is accessed as: `tail`, `headSeen`,
    /// `ensured`, `overflowFlag`, `head` and each cell's last word to
    /// `Atomic<UInt64>`, the mutex to `pthread_mutex_t`, the overflow
    /// array's words and a cell's other three to their plain types; the
    /// padding stays bytes.
    static func allocate() -> BlockInbox {
        precondition(MemoryLayout<Atomic<UInt64>>.size == 8 && MemoryLayout<Atomic<UInt64>>.alignment == 8)
        let base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        func atomicWord(_ at: UnsafeMutableRawPointer) {
            at.bindMemory(to: Atomic<UInt64>.self, capacity: 1).initialize(to: Atomic(0))
        }
        for offset in [tailOffset, tailOffset + 8, ensuredOffset, ensuredOffset + 8, headOffset] { atomicWord(base + offset) }
        precondition(MemoryLayout<pthread_mutex_t>.size <= overflowOffset - lockOffset)
        pthread_mutex_init((base + lockOffset).bindMemory(to: pthread_mutex_t.self, capacity: 1), nil)
        (base + overflowOffset).initializeMemory(as: UnsafeMutablePointer<QueuedBlock>?.self, repeating: nil, count: 1)
        (base + overflowOffset + 8).initializeMemory(as: Int.self, repeating: 0, count: 2)
        for i in 0..<capacity {
            let cell = base + cellsOffset + i * cellStride
            cell.initializeMemory(as: UInt.self, repeating: 0, count: 3)
            atomicWord(cell + 24)
        }
        return BlockInbox(base)
    }

    package var address: UnsafeMutableRawPointer { base }

    /// The generation a handle names, as `tail` holds it.
    @inline(__always)
    static func owner(handle: UInt64) -> UInt64 { (handle >> 32 & 0xFF_FFFF) << generationShift }

    /// Gives a closed, empty ring to the loop whose handle is `handle`
    /// (before that handle is published).
    func open(handle: UInt64) {
        for i in 0..<UInt64(Self.capacity) { Self.lastWord(cell(i)).pointee.store(0, ordering: .releasing) }  // never written
        head.pointee.store(0, ordering: .releasing)
        headSeen.pointee.store(0, ordering: .releasing)  // no generation: read `head`
        ensured.pointee.store(UInt64(ModeName.defaultID), ordering: .releasing)
        overflowFlag.pointee.store(0, ordering: .releasing)
        tail.pointee.store(Self.owner(handle: handle), ordering: .releasing)
    }

    // MARK: producers (any thread)

    /// Whether the lock-free path may queue a block for `mode` (see the
    /// type's comment).
    @inline(__always)
    func isEnsured(_ mode: ModeName) -> Bool {
        mode.id <= ModeName.commonID || ensured.pointee.load(ordering: .acquiring) == UInt64(mode.id)
    }

    /// Records that the loop has the mode `mode` (loop's lock held).
    func ensured(_ mode: ModeName) {
        if ensured.pointee.load(ordering: .acquiring) != UInt64(mode.id) {
            ensured.pointee.store(UInt64(mode.id), ordering: .releasing)
        }
    }

    /// Queues `block` if the ring belongs to the loop `handle` names, is
    /// not overflowing and has room.  False: nothing queued, nothing
    /// written (the caller still owns the block).
    @inline(__always)
    func push(_ block: QueuedBlock, handle: UInt64) -> Bool {
        let owner = Self.owner(handle: handle)
        guard owner != 0 else { return false }  // no generation is 0: a forged handle
        var current = tail.pointee.load(ordering: .acquiring)
        while true {
            // Another owner, closed, or overflowing (the bit is below the
            // generation, so one comparison checks both).
            guard current &>> Self.positionBits == owner &>> Self.positionBits else { return false }
            let position = current & Self.positionMask
            // Room: the consumer has taken the block a lap before.  (It
            // writes `head` once per batch and never the cells, so their
            // lines stay with the producers.)
            if hasRoom(at: position, owner: owner) {
                let (exchanged, seen) = tail.pointee.compareExchange(
                    expected: current, desired: owner | ((position &+ 1) & Self.positionMask), ordering: .sequentiallyConsistent)
                if exchanged {
                    let cell = cell(position)
                    let words = block.words
                    cell[0] = words.function
                    cell[1] = words.info
                    cell[2] = words.extra
                    Self.lastWord(cell).pointee.store(Self.published(position, mode: words.mode), ordering: .releasing)
                    return true
                }
                current = seen
            } else {
                // Full, or another producer took the position meanwhile.
                let now = tail.pointee.load(ordering: .acquiring)
                if now == current { return false }
                current = now
            }
        }
    }

    /// Whether the consumer has taken the block a lap before `position`:
    /// by `headSeen`, else by `head` (then remembered in `headSeen`).
    /// `owner`: the producer's generation, as `tail` holds it.
    @inline(__always)
    private func hasRoom(at position: UInt64, owner: UInt64) -> Bool {
        let seen = headSeen.pointee.load(ordering: .acquiring)
        if seen & ~Self.positionMask == owner, Self.isTaken(lapBefore: position, head: seen) { return true }
        let now = owner | head.pointee.load(ordering: .acquiring)
        if now != seen { headSeen.pointee.store(now, ordering: .releasing) }  // a full ring: nothing new to remember
        return Self.isTaken(lapBefore: position, head: now)
    }

    /// Whether a consumer at `head` (its position bits) has taken the
    /// block a lap before `position`.
    @inline(__always)
    private static func isTaken(lapBefore position: UInt64, head: UInt64) -> Bool {
        (position &- head) & positionMask < UInt64(capacity)
    }

    /// Queues `block`: in the ring if it has room, else in the overflow
    /// array.  False only if the ring is not the loop's that `handle` names
    /// (nothing queued; the caller still owns the block).
    @inline(__always)
    func queue(_ block: QueuedBlock, handle: UInt64) -> Bool {
        let queued = push(block, handle: handle) || pushOverflowing(block, handle: handle)
        // The producer's fence of the wake-up protocol (Wait/WakeState.swift): the
        // block is published before this thread next
        // reads the loop's state, whether to wake it here or in a later
        // RLRunLoopWakeUp that finds a wake-up already pending.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        return queued
    }

    /// Queues `block` when `push` could not (the ring full or
    /// overflowing): into the ring if it has room again, else into the
    /// overflow array.  False only if the ring is not the loop's that
    /// `handle` names (nothing queued).
    @inline(never)
    func pushOverflowing(_ block: QueuedBlock, handle: UInt64) -> Bool {
        let owner = Self.owner(handle: handle)
        guard owner != 0 else { return false }
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        // The bit is set and cleared only under the lock.
        var current = tail.pointee.load(ordering: .acquiring)
        guard current & ~(Self.overflowBit | Self.positionMask) == owner else { return false }
        if current & Self.overflowBit == 0 {
            if push(block, handle: handle) { return true }
            while true {  // full: stop claims
                let (exchanged, seen) = tail.pointee.compareExchange(expected: current, desired: current | Self.overflowBit,
                                                                     ordering: .sequentiallyConsistent)
                if exchanged { break }
                current = seen
                guard current & ~(Self.overflowBit | Self.positionMask) == owner else { return false }
            }
            overflowFlag.pointee.store(1, ordering: .releasing)
        }
        let count = overflowCount.pointee
        if count == overflowCapacity.pointee {
            let capacity = max(64, count * 2)
            let grown = UnsafeMutablePointer<QueuedBlock>.allocate(capacity: capacity)
            if let old = overflow.pointee {
                grown.moveInitialize(from: old, count: count)
                old.deallocate()
            }
            overflow.pointee = grown
            overflowCapacity.pointee = capacity
        }
        (overflow.pointee! + count).initialize(to: block)
        overflowCount.pointee = count + 1
        return true
    }

    // MARK: the consumer (the loop's lock held)

    /// Whether a published block waits at the head (a cheap check).
    @inline(__always)
    func hasPublished() -> Bool {
        let position = head.pointee.load(ordering: .acquiring)
        return Self.isPublished(Self.lastWord(cell(position)).pointee.load(ordering: .acquiring), position)
    }

    /// Whether a block may wait: published at the head, or overflowing.
    /// Reads no line a producer writes per block, except the head's cell
    /// (whose block it is about to take).
    @inline(__always)
    func mayHaveBlocks() -> Bool { hasPublished() || isOverflowing }

    /// Moves every block queued, in order, to the end of `blocks`: those
    /// published in the ring, then, once it has taken every block claimed
    /// in the ring, the overflow array.
    /// `spare` is an empty overflow array of the consumer's (or nil),
    /// swapped with the full one so the lock is held for a few stores,
    /// not for the copy.
    func collect(into blocks: inout [QueuedBlock], spare: inout OverflowArray?) {
        drain(into: &blocks)
        guard isOverflowing, caughtUp else { return }
        pthread_mutex_lock(lock)
        let taken = OverflowArray(base: overflow.pointee, count: overflowCount.pointee, capacity: overflowCapacity.pointee)
        overflow.pointee = spare?.base
        overflowCount.pointee = 0
        overflowCapacity.pointee = spare?.capacity ?? 0
        clearOverflow()
        pthread_mutex_unlock(lock)
        if let array = taken.base {
            // Plain data: moved by one copy.
            blocks.append(contentsOf: UnsafeBufferPointer(start: array, count: taken.count))
        }
        spare = taken.base == nil ? nil : OverflowArray(base: taken.base, count: 0, capacity: taken.capacity)
    }

    /// An overflow array handed between the inbox and its consumer.
    package struct OverflowArray {
        let base: UnsafeMutablePointer<QueuedBlock>?
        let count: Int
        let capacity: Int
        func deallocate() { base?.deallocate() }
    }

    /// Whether every block claimed in the ring has been taken.
    private var caughtUp: Bool {
        tail.pointee.load(ordering: .acquiring) & Self.positionMask == head.pointee.load(ordering: .acquiring)
    }

    private func takeOverflowLocked(into blocks: inout [QueuedBlock]) {
        guard let array = overflow.pointee else { return }
        blocks.append(contentsOf: UnsafeBufferPointer(start: array, count: overflowCount.pointee))
        overflowCount.pointee = 0
    }

    /// Moves the published blocks, in order, to the end of `blocks`.
    private func drain(into blocks: inout [QueuedBlock]) {
        let first = head.pointee.load(ordering: .acquiring)
        var position = first
        while true {
            let cell = cell(position)
            let last = Self.lastWord(cell).pointee.load(ordering: .acquiring)
            guard Self.isPublished(last, position) else { break }
            blocks.append(QueuedBlock(words: (cell[0], cell[1], cell[2], UInt(last & ~7))))
            position = (position &+ 1) & Self.positionMask
        }
        if position != first { head.pointee.store(position, ordering: .releasing) }
    }

    /// Whether producers are held back (see pushOverflowing).
    var isOverflowing: Bool { overflowFlag.pointee.load(ordering: .acquiring) != 0 }

    /// Lets producers claim again (after the overflow array was taken).
    private func clearOverflow() {
        overflowFlag.pointee.store(0, ordering: .releasing)
        var current = tail.pointee.load(ordering: .acquiring)
        while current & Self.overflowBit != 0 {
            let (exchanged, seen) = tail.pointee.compareExchange(expected: current, desired: current & ~Self.overflowBit,
                                                                 ordering: .sequentiallyConsistent)
            if exchanged { return }
            current = seen
        }
    }

    /// Blocks queued but not yet taken (approximate while producers run).
    var count: Int {
        pthread_mutex_lock(lock)  // as a producer would: any thread
        defer { pthread_mutex_unlock(lock) }
        return Int((tail.pointee.load(ordering: .acquiring) &- head.pointee.load(ordering: .acquiring)) & Self.positionMask)
            + overflowCount.pointee
    }

    /// In a fork child (HandleTable.disownAfterFork; only this thread
    /// exists): the ring is closed with no wait (producers that had
    /// claimed a cell are threads the child does not have; the blocks in
    /// it are the parent's and are never run), and its overflow mutex is
    /// made again in case one of them held it, so a producer finds the ring
    /// closed instead of waiting forever.  A ring of a free slot was closed
    /// already; the next loop to take the slot reopens it as usual.
    func disownAfterFork() {
        tail.pointee.store(tail.pointee.load(ordering: .acquiring) & Self.positionMask, ordering: .releasing)
        pthread_mutex_init(lock, nil)
    }

    /// Closes the ring: no block is queued from here.  Waits for the
    /// blocks already claimed and appends every block left to `blocks`
    /// (ring first, then overflow), and frees the overflow array.
    func close(into blocks: inout [QueuedBlock]) {
        pthread_mutex_lock(lock)
        var current = tail.pointee.load(ordering: .acquiring)
        while true {
            let (exchanged, seen) = tail.pointee.compareExchange(expected: current, desired: current & Self.positionMask,
                                                                 ordering: .sequentiallyConsistent)
            if exchanged { break }
            current = seen
        }
        // A producer between its claim and its publication is a few
        // instructions away from it.
        while true {
            drain(into: &blocks)
            if caughtUp { break }
            sched_yield()
        }
        takeOverflowLocked(into: &blocks)
        overflowFlag.pointee.store(0, ordering: .releasing)
        overflow.pointee?.deallocate()
        overflow.pointee = nil
        overflowCapacity.pointee = 0
        pthread_mutex_unlock(lock)
    }
}
