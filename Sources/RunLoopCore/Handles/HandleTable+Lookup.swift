import CRunLoopShims
import Synchronization
import Glibc

// Looking a handle up: pins (`pin` / `unpin`, the C calls' hold on an
// object for their duration), references (`retain`, `retainKnown`), the
// hot words and block inboxes read with no pin, and the reclaim of a
// slot whose last reference and last pin are gone.  The slots' layout,
// `register` and `release`: HandleTable.swift.

extension HandleTable {
    /// `forked`: the handle was live when this process was forked from
    /// its parent (see `disownAfterFork`).
    package enum LookupError: Error { case null, stale, wrongType, forked }

    /// The result of `pin`: the object's pointer (the table's +1 Swift
    /// reference keeps it alive while pinned) or why the handle was refused.
    /// No class reference inside, so passing it costs no retain/release.
    package enum Pin {
        case pinned(UnsafeMutableRawPointer)
        case failed(LookupError)
    }

    /// Pins the slot named by `raw` if it holds a live object of `kind`
    /// (any kind: nil), one that still has a reference.  The caller must
    /// `unpin` it; a pin is not a reference (to keep the object, the
    /// caller takes one with `retainRef` while pinned).
    ///
    /// The pin word is raised first, then the state word read: against
    /// `release`, which writes the state word, then reads the pin word.
    /// Both pairs are ordered by sequential consistency (the add and load
    /// here, and `release`'s compare-and-swap and load, are
    /// `.sequentiallyConsistent`: all in the single total order of such
    /// operations, which forbids both sides missing the other's write), so
    /// a pin that finds the object still referenced is seen by the release
    /// of its last reference, which then leaves the finalize to the last
    /// unpin.  (The object word is read `.relaxed`: the state word's load
    /// above follows `register`'s release store of it, made after the
    /// object word's.)
    @inline(__always)
    package static func pin(_ raw: UInt, kind: HandleKind?) -> Pin {
        let handle = UInt64(raw)
        guard let (page, index) = slot(of: handle) else { return .failed(raw == 0 ? .null : .stale) }
        let pins = Self.pinsPtr(page, index)
        pins.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        let current = Self.statePtr(page, index).pointee.load(ordering: .sequentiallyConsistent)
        guard Self.generation(current) == Self.generation(handle: handle), Self.count(current) > 0 else {
            dropPin(page, index)
            return .failed(Self.isDisowned(current) ? .forked : .stale)
        }
        if let kind, Self.kindBits(current) != UInt64(kind.rawValue) {
            dropPin(page, index)
            return .failed(.wrongType)
        }
        return .pinned(Self.address(Self.objectPtr(page, index).pointee.load(ordering: .relaxed))!)
    }

    /// Drops a pin taken by `pin`: one atomic add, and when it was the last
    /// pin, one load of the state word (see `dropPin`).
    @inline(__always)
    package static func unpin(_ handle: UInt64, from function: StaticString) {
        guard let (page, index) = slot(of: handle) else { return }
        dropPin(page, index)
    }

    /// Takes a pin back.  The last pin of a released object (its last
    /// reference went while it was pinned) finalizes it: the state word is
    /// read after the pin word is lowered, the mirror of `release` (see
    /// `pin` for the order).  The slot may have gone to another object
    /// since the pin was raised (a lookup through a stale handle): a
    /// released object in it is then that object, whose release saw this
    /// pin and left its finalize to it.
    @inline(__always)
    private static func dropPin(_ page: UnsafeMutableRawPointer, _ index: UInt32) {
        guard Self.pinsPtr(page, index).pointee.wrappingAdd(UInt64.max, ordering: .sequentiallyConsistent).newValue == 0
        else { return }
        let current = Self.statePtr(page, index).pointee.load(ordering: .sequentiallyConsistent)
        if Self.isReleased(current) { reclaim(page, index, released: current) }
    }

    /// Finalizes the released object of a slot and frees the slot, once:
    /// the last release and the last unpin may both get here, and the
    /// compare-and-swap from the released state to the next generation
    /// elects one.  Out of line, so the fast paths need no frame for it.
    @inline(never)
    static func reclaim(_ page: UnsafeMutableRawPointer, _ index: UInt32, released: UInt64) {
        var nextGeneration = (Self.generation(released) + 1) & 0xFF_FFFF
        if nextGeneration == 0 { nextGeneration = 1 }
        guard Self.statePtr(page, index).pointee.compareExchange(expected: released, desired: nextGeneration << 40,
                                                                 ordering: .sequentiallyConsistent).exchanged
        else { return }
        // The hot word is no longer the object's: from here a peek
        // through the stale handle fails, and the object's own writes do.
        Self.hotPtr(page, index).pointee.store(0, ordering: .releasing)
        let address = Self.address(Self.objectPtr(page, index).pointee.load(ordering: .acquiring))!
        let unmanaged = Unmanaged<Object>.fromOpaque(address)
        let object = unmanaged.takeRetainedValue()
        object.finalize()
        // The slot is reused only after finalize: a loop closes its
        // inbox there, which the slot's next loop reopens.
        shared.freeSlot(index, page)
    }

    /// The hot word of the object of `kind` that `raw` names, without
    /// pinning it: every access checks the key, so a stale, forged or
    /// wrong-type handle reads nil and writes nothing.  nil when no page
    /// holds the slot.
    @inline(__always)
    package static func hotWord(_ raw: UInt, kind: HandleKind) -> HotWord? {
        guard let word = hotPtrUnchecked(raw) else { return nil }
        return HotWord(word: word, key: HotWord.key(handle: UInt64(raw), kind: kind))
    }

    /// The block inbox of the slot `raw` names, if one was ever made for
    /// it; the ring itself checks that it is the handle's loop's (see
    /// BlockInbox).  nil for a non-handle.  No pin.
    @inline(__always)
    package static func inbox(_ raw: UInt) -> BlockInbox? {
        guard let (page, index) = slot(of: UInt64(raw)),
              let base = address(inboxPtr(page, index)?.pointee.load(ordering: .acquiring) ?? 0) else { return nil }
        return BlockInbox(base)
    }

    /// The inbox of the slot of a live loop (called under its lock, before
    /// it is finalized): the slot's, or a new one stored in the slot.
    /// Until the loop opens it, the new ring is closed (generation 0), so a
    /// producer that finds it claims nothing.
    package static func inbox(forLoop handle: UInt64) -> BlockInbox? {
        guard let (page, index) = slot(of: handle), let word = shared.makeInboxPtr(page, index) else { return nil }
        if let base = address(word.pointee.load(ordering: .acquiring)) { return BlockInbox(base) }
        let inbox = BlockInbox.allocate()
        word.pointee.store(bits(inbox.address), ordering: .releasing)
        return inbox
    }

    /// Whether the hot word of the live object of `kind` that `raw` names
    /// is `value`: one sequentially consistent load (on x86 a plain one),
    /// one XOR with the handle and one comparison with a constant
    /// (HotWord).  False for anything else (NULL, stale, another kind,
    /// another value).  The producers' "already pending" checks; whatever
    /// the library published before them was followed by a fence where it
    /// was published (WakeState.swift, "The wake-up protocol").
    @inline(__always)
    package static func hotWordIs(_ raw: UInt, kind: HandleKind, _ value: UInt32) -> Bool {
        guard let word = hotPtrUnchecked(raw) else { return false }
        return word.pointee.load(ordering: .sequentiallyConsistent) ^ UInt64(raw) == UInt64(kind.rawValue) << 24 | UInt64(value)
    }

    /// Whether the hot word of the live object of `kind` that `raw` names
    /// has every bit of `bits` set (`hotWordIs` with a mask: one more AND).
    @inline(__always)
    package static func hotWordHas(_ raw: UInt, kind: HandleKind, _ bits: UInt32) -> Bool {
        guard let word = hotPtrUnchecked(raw) else { return false }
        let mask = ~(HotWord.valueLimit - 1) | UInt64(bits)
        return (word.pointee.load(ordering: .sequentiallyConsistent) ^ UInt64(raw)) & mask
            == UInt64(kind.rawValue) << 24 | UInt64(bits)
    }

    /// The hot word's value of the live object of `kind` that `raw` names;
    /// nil for anything else (NULL, stale, another kind).  One load, no pin.
    @inline(__always)
    package static func peek(_ raw: UInt, kind: HandleKind) -> UInt32? {
        hotWord(raw, kind: kind)?.load()
    }

    /// Adds a reference to the live object of `kind` (any kind: nil) that
    /// `raw` names, one that still has a reference, and returns it.  The
    /// caller owns the reference and must `release` it.
    package func retain(_ raw: UInt, kind: HandleKind?) -> Result<Object, LookupError> {
        switch Self.addReference(raw, kind: kind, revive: false) {
        case .pinned(let object): return .success(Unmanaged<Object>.fromOpaque(object).takeUnretainedValue())
        case .failed(let failure): return .failure(failure)
        }
    }

    /// Adds a reference to a handle the caller holds a reference to or has
    /// pinned.  Pinned, the object may have lost its last reference
    /// meanwhile; it is not finalized while pinned, and this reference
    /// makes it live again (a pin of the library's, such as a mode adding
    /// an item a C call named, may become a reference, as before pins and
    /// references were counted apart).
    package static func retainKnown(_ handle: UInt64) {
        _ = addReference(UInt(handle), kind: nil, revive: true)
    }

    /// The count + 1 if the handle names its slot's object, and the object
    /// has a reference (or, with `revive`, was released but is still
    /// pinned by the caller).
    private static func addReference(_ raw: UInt, kind: HandleKind?, revive: Bool) -> Pin {
        let handle = UInt64(raw)
        guard let (page, index) = slot(of: handle) else { return .failed(raw == 0 ? .null : .stale) }
        let state = Self.statePtr(page, index)
        let generation = Self.generation(handle: handle)
        var current = state.pointee.load(ordering: .acquiring)
        while true {
            guard Self.generation(current) == generation,
                  Self.count(current) > 0 || (revive && Self.isReleased(current)) else {
                return .failed(Self.isDisowned(current) ? .forked : .stale)
            }
            if let kind, Self.kindBits(current) != UInt64(kind.rawValue) { return .failed(.wrongType) }
            guard Self.count(current) < 0xFFFF_FFFF else { return .failed(.stale) }
            let (exchanged, seen) = state.pointee.compareExchange(expected: current, desired: current + 1,
                                                                  ordering: .sequentiallyConsistent)
            if exchanged { break }
            current = seen
        }
        return .pinned(Self.address(Self.objectPtr(page, index).pointee.load(ordering: .relaxed))!)
    }

    /// The current count of a live handle, or nil.
    package func retainCount(_ handle: UInt64) -> UInt64? {
        guard let (page, index) = Self.slot(of: handle) else { return nil }
        let state = Self.statePtr(page, index).pointee.load(ordering: .acquiring)
        guard Self.generation(state) == Self.generation(handle: handle), Self.count(state) > 0 else { return nil }
        return Self.count(state)
    }

    /// Whether the object in a slot whose count is 1 refuses to lose it
    /// (Object.keepsLastReference).  The caller claims that reference, so
    /// the object is alive.
    static func keepsLastReference(_ page: UnsafeMutableRawPointer, _ index: UInt32) -> Bool {
        guard let object = address(objectPtr(page, index).pointee.load(ordering: .acquiring)) else { return false }
        return Unmanaged<Object>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.keepsLastReference() }
    }
}
