import CRunLoopShims

/// A 32-bit piece of an object's state that a C entry point can read
/// without pinning the object: the wake-up state of a loop's poller, the
/// pending mark of a source.  "Already pending" is the usual answer of
/// RLRunLoopWakeUp and RLRunLoopSourceSignal under load, and with a hot
/// word it costs one load instead of two compare-and-swaps on the handle
/// slot (a cache line every caller of the object writes).
///
/// The word lives in the object's handle-table slot, whose memory is never
/// freed, so reading it through a stale handle reads table memory, never a
/// freed object.  Its high half is the owner's stamp, `generation(24) |
/// kind(8)` of the handle: written when the handle is registered, cleared
/// when its last reference goes (before the slot can be reused).  A reader
/// accepts the value only if the stamp is the one its handle names; every
/// write is a compare-and-swap on the whole word, so an object whose handle
/// died (a Swift reference may outlive it) can never write into the slot's
/// next owner.  A stamp repeats only after 2^24 reuses of one slot, the
/// same bound as the handles themselves.
///
/// Until it is registered an object's word is `detached`: it matches no
/// stamp, so it reads as nil and refuses writes.  An object the full table
/// refused gets a word of its own with stamp 0, which no handle names.
package struct HotWord: @unchecked Sendable {
    private let word: UnsafeMutablePointer<UInt64>
    /// The owner's stamp, already shifted into the high half.
    private let stamp: UInt64

    private static let stampMask: UInt64 = 0xFFFF_FFFF_0000_0000

    init(word: UnsafeMutablePointer<UInt64>, stamp: UInt64) {
        self.word = word
        self.stamp = stamp
    }

    /// The stamp of the object a handle names: `generation | kind` in the
    /// high half.
    @inline(__always)
    static func stamp(handle: UInt64, kind: HandleKind) -> UInt64 {
        (handle >> 32 & 0xFF_FFFF) << 40 | UInt64(kind.rawValue) << 32
    }

    /// The value, if the word still belongs to this object.
    @inline(__always)
    package func load() -> UInt32? {
        let v = rl_atomic_load(word)
        return v & Self.stampMask == stamp ? UInt32(truncatingIfNeeded: v) : nil
    }

    /// `load()` after a full fence: stores this thread made before it are
    /// visible to whoever writes the word after this load reads it.
    package func loadAfterFence() -> UInt32? {
        let v = rl_atomic_load_after_fence(word)
        return v & Self.stampMask == stamp ? UInt32(truncatingIfNeeded: v) : nil
    }

    /// Replaces `expected` with `desired`.  On failure returns the current
    /// value, nil if the word is no longer this object's.
    @inline(__always)
    package func compareExchange(expected: UInt32, desired: UInt32) -> (exchanged: Bool, original: UInt32?) {
        let old = stamp | UInt64(expected)
        let seen = rl_atomic_cas_value(word, old, stamp | UInt64(desired))
        if seen == old { return (true, expected) }
        return (false, seen & Self.stampMask == stamp ? UInt32(truncatingIfNeeded: seen) : nil)
    }

    /// Sets the value while the word is this object's.
    package func store(_ value: UInt32) {
        var current = rl_atomic_load(word)
        while current & Self.stampMask == stamp {
            let seen = rl_atomic_cas_value(word, current, stamp | UInt64(value))
            if seen == current { return }
            current = seen
        }
    }

    /// The word of every object not registered yet.
    static let detached: HotWord = {
        let word = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        word.initialize(to: UInt64.max)  // its stamp half matches no stamp
        return HotWord(word: word, stamp: 0)
    }()

    /// A word of the object's own (stamp 0): the caller deallocates it.
    static func own(_ value: UInt32) -> HotWord {
        let word = UnsafeMutablePointer<UInt64>.allocate(capacity: 1)
        word.initialize(to: UInt64(value))
        return HotWord(word: word, stamp: 0)
    }

    func deallocate() { word.deallocate() }

    /// Where the word lives.
    var pointer: UnsafeMutablePointer<UInt64> { word }
}
