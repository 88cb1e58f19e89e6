import Glibc
import Synchronization

/// A small piece of an object's state (below 2^24) that a C entry point
/// can read without pinning the object: the wake-up state of a loop's
/// poller, the pending marks of a source.  "Already pending" is the usual
/// answer of RLRunLoopWakeUp and RLRunLoopSourceSignal under load, and with
/// a hot word it costs one load instead of two compare-and-swaps on the
/// handle slot (a cache line every caller of the object writes).
///
/// The word lives in the object's handle-table slot, whose memory is never
/// freed, so reading it through a stale handle reads table memory, never a
/// freed object.  It holds `key ^ value`, where the owner's key is its
/// handle XOR `kind << 24`: written when the handle is registered, set to
/// 0 when its last reference goes (before the slot can be reused).  A
/// reader XORs the word with the key its own handle and kind give and
/// accepts the result only below 2^24: another generation (the handle's
/// high half), another kind (bits 24-31) or another slot's index leaves
/// higher bits set, and so does 0 (a handle's tag byte is never 0).  So the
/// C fast paths are one load, one XOR and one comparison with a constant
/// (`HandleTable.hotWordIs`).  Every write is a compare-and-swap on the
/// whole word, so an object whose handle died (a Swift reference may
/// outlive it) can never write into the slot's next owner.  A key repeats
/// only after 2^24 reuses of one slot, the same bound as the handles
/// themselves.
///
/// Until it is registered an object's word is `detached`: all ones, which
/// no key accepts, so it reads as nil and refuses writes.  An object the
/// full table refused gets a word of its own with key 0, which no handle
/// gives.
///
/// The word is an `Atomic<UInt64>` (a slot's memory is bound to that type,
/// HandleTable.takeSlot), 8 bytes like the `uint64_t` fastpath.h reads.
/// Device: see docs/performance.md, "The engine's devices".
package struct HotWord: @unchecked Sendable {
    private let word: UnsafeMutablePointer<Atomic<UInt64>>
    /// The owner's key: its handle XOR `kind << 24` (0 for a word of its own).
    private let key: UInt64

    /// Values are below this.
    package static let valueLimit: UInt64 = 1 << 24

    init(word: UnsafeMutablePointer<Atomic<UInt64>>, key: UInt64) {
        self.word = word
        self.key = key
    }

    /// The key of the object a handle names.
    @inline(__always)
    static func key(handle: UInt64, kind: HandleKind) -> UInt64 {
        handle ^ UInt64(kind.rawValue) << 24
    }

    /// The value, if the word still belongs to this object.
    @inline(__always)
    package func load() -> UInt32? { Self.decode(word.pointee.load(ordering: .acquiring) ^ key) }

    /// A sequentially consistent `load()`: a producer's "already pending"
    /// check (WakeState.swift, "The wake-up protocol").
    @inline(__always)
    package func loadSeqCst() -> UInt32? { Self.decode(word.pointee.load(ordering: .sequentiallyConsistent) ^ key) }

    /// `load()` after a full fence: stores this thread made before it are
    /// visible to whoever writes the word after this load reads it.
    package func loadAfterFence() -> UInt32? {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        return Self.decode(word.pointee.load(ordering: .acquiring) ^ key)
    }

    @inline(__always)
    private static func decode(_ x: UInt64) -> UInt32? { x < valueLimit ? UInt32(truncatingIfNeeded: x) : nil }

    /// Replaces `expected` with `desired`.  On failure returns the current
    /// value, nil if the word is no longer this object's.  Sequentially
    /// consistent (on x86 the same instruction as acquire-release): a hot
    /// word's changes take part in store-buffering handshakes with
    /// sequentially consistent operations on other words.
    @inline(__always)
    package func compareExchange(expected: UInt32, desired: UInt32) -> (exchanged: Bool, original: UInt32?) {
        let old = key ^ UInt64(expected)
        let (exchanged, seen) = word.pointee.compareExchange(expected: old, desired: key ^ UInt64(desired),
                                                             ordering: .sequentiallyConsistent)
        if exchanged { return (true, expected) }
        return (false, Self.decode(seen ^ key))
    }

    /// Sets the value while the word is this object's.
    package func store(_ value: UInt32) {
        var current = word.pointee.load(ordering: .acquiring)
        while current ^ key < Self.valueLimit {
            let (exchanged, seen) = word.pointee.compareExchange(expected: current, desired: key ^ UInt64(value),
                                                                 ordering: .sequentiallyConsistent)
            if exchanged { return }
            current = seen
        }
    }

    /// The word of every object not registered yet.
    static let detached: HotWord = {
        let word = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: 1)
        word.initialize(to: Atomic(UInt64.max))  // no key accepts it
        return HotWord(word: word, key: 0)
    }()

    /// A word of the object's own (key 0): the caller deallocates it.
    /// nil when memory ran out (malloc's, not Swift's allocate, which
    /// traps): the object keeps `detached`.
    static func own(_ value: UInt32) -> HotWord? {
        guard let raw = malloc(MemoryLayout<Atomic<UInt64>>.size) else { return nil }
        let word = raw.bindMemory(to: Atomic<UInt64>.self, capacity: 1)
        word.initialize(to: Atomic(UInt64(value)))
        return HotWord(word: word, key: 0)
    }

    func deallocate() {
        word.deinitialize(count: 1)
        free(word)
    }

    /// Where the word lives.
    var pointer: UnsafeMutablePointer<Atomic<UInt64>> { word }
}
