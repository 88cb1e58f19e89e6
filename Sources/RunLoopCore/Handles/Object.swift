import Synchronization

/// The kinds of object a C handle can name.  The raw values are the
/// public type IDs (RLRunLoopGetTypeID() and friends).
package enum HandleKind: UInt8, Sendable {
    case runLoop = 1
    case source = 2
    case observer = 3
    case timer = 4
    case array = 5
    case messagePort = 6
    case data = 7
    case thread = 8
    case fileDescriptor = 9
    case socket = 10
    case signal = 11
}

/// An object reachable from C through a handle.  The handle's reference
/// count (in the table slot) decides the object's public lifetime: when it
/// reaches zero the handle goes stale, and `finalize()` runs once, as soon
/// as no C call still has the object pinned (see HandleTable).
package class Object: @unchecked Sendable {
    // Declaration order is layout order: the small fields last, packed
    // into one word (8 bytes less in every object than kind-first).

    /// Set once by `HandleTable.register`, before the handle is published.
    var handle: UInt64 = 0
    /// Where the state C entry points read without a pin lives (see
    /// HotWord): in the slot, set by `HandleTable.register` before the
    /// handle is published.  Only the pointer is stored; the key follows
    /// from `handle` and `kind` (8 bytes less in every object).
    var hotPointer: UnsafeMutablePointer<Atomic<UInt64>> = HotWord.detached.pointer
    /// The state C entry points read without a pin (see HotWord).
    package var hot: HotWord {
        HotWord(word: hotPointer, key: ownsHot ? 0 : HotWord.key(handle: handle, kind: kind))
    }
    /// The hot word's value when the object is registered.
    let initialHot: UInt32
    package let kind: HandleKind
    /// Whether `hot` is a word of the object's own (the table was full).
    var ownsHot = false

    package init(kind: HandleKind, hot initialHot: UInt32 = 0) {
        self.kind = kind
        self.initialHot = initialHot
    }

    deinit { if ownsHot { hot.deallocate() } }

    /// Called by `HandleTable.register` once `handle` and `hot` are set,
    /// before the handle is published.
    package func registered() {}

    /// Called once, with no lock held, when the last reference goes.
    package func finalize() {}

    /// Whether the one reference left is the library's own, which no
    /// RLRelease may drop (a live thread's loop: see Loop); such a release
    /// is refused as an over-release.  Asked only when the count is 1.
    package func keepsLastReference() -> Bool { false }

    /// Adds a reference the library itself holds.
    package final func retainRef() { HandleTable.retainKnown(handle) }
    /// Drops a reference; may run `finalize()` (user code): never call it
    /// with a lock held.
    package final func releaseRef() { HandleTable.shared.release(handle, from: "RLRelease") }

    /// The handle as a C pointer value.
    package final var opaque: OpaquePointer { OpaquePointer(bitPattern: UInt(handle))! }
}
