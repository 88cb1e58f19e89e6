import CRunLoopShims
import Synchronization
import Glibc

/// The address of `HandleTable.shared.pages`, 0 until the table exists.  A
/// global atomic with a constant initial value is statically initialized,
/// so the lock-free paths (pin, unpin, peek) read it with one load instead
/// of going through `shared`'s lazy initialization on every call.
private let handlePages = Atomic<UInt>(0)

/// This copy's handle tag in the top byte (HandleTag), set when the table
/// is made, before any handle exists; statically initialized like
/// `handlePages`.  0xFF, which no handle has (`isHandle`), while the copy
/// has no tag: then no handle passes `slot(of:)`'s test.
private let handleTagBits = Atomic<UInt64>(0xFF << 56)

/// The process-wide table behind every C handle.
///
/// A handle is `tag(8) | generation(24) | index(32)`; the tag byte makes a
/// handle impossible to confuse with a user-space pointer (such as a mode
/// name string), and is this copy's own (HandleTag), so a handle of another
/// copy of the library in the process names nothing here.  Each slot holds a state word `generation(24) | kind(8) |
/// count(32)` updated by compare-and-swap, and the object.  The count is
/// the object's references (the user's and the library's); a C call that
/// only uses the object for its duration pins it instead, in the slot's
/// pin word, so a pin never keeps a handle alive: once the last reference
/// is released no new pin or reference is granted, and the object is
/// finalized when the last pin goes (at once if none).  A lookup checks
/// the generation, so a stale or forged handle is refused without touching
/// freed memory.  A slot also holds the object's hot word (HotWord.swift),
/// read through a handle with no pin.  Pages are allocated on demand and
/// never freed.
///
/// A slot's life: free (kind 0) → live (count ≥ 1) → released (count 0,
/// kind still set: no new pin or reference, the object not yet finalized)
/// → free with the next generation, by whichever of the last release and
/// the last unpin sees the other done (`reclaim`).
/// Device: see docs/performance.md, "The engine's devices".
package final class HandleTable: @unchecked Sendable {
    package static let shared = HandleTable()

    /// The top byte of this copy's handles, which no other copy of the
    /// library in the process has (HandleTag): a handle of another copy is
    /// refused as unknown.  0xFF when every tag was taken (then the copy
    /// gives out no handle: `takeSlot`).
    package static var tag: UInt64 { handleTagBits.load(ordering: .relaxed) >> 56 }

    /// Whether this copy holds a tag.
    private let hasTag: Bool

    package static let pageBits = 12
    package static let pageSize = 1 << pageBits
    package static let maxPages = 1 << 14

    /// Page pointers; written under `pageLock`, read lock-free.  8 bytes
    /// each, the `const uint64_t *` entries fastpath.h reads.
    private let pages: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>
    private let pageLock = Lock()
    /// The free slots: lock-free stacks linked through the free slots'
    /// object words (each holds the next index + 1, 0 for none).  A head is
    /// `tag(32) | index + 1 (32)`, 0 when empty; the tag changes on every
    /// push and pop, so a pop that read a slot's link before another thread
    /// popped and pushed that slot again fails its compare-and-swap (ABA).
    /// Slots holding a block inbox have a stack of their own: only a loop
    /// takes one (see BlockInbox).
    private let freeHead = Atomic<UInt64>(0)
    private let freeWithInboxHead = Atomic<UInt64>(0)
    /// The first slot never used.
    private let nextFresh = Atomic<UInt32>(0)

    private init() {
        Fork.install()
        assert(Self.handleMask == 0xFF << 56 | (0xFFFF_FFFF & ~UInt64(Self.maxPages * Self.pageSize - 1)))
        let tag = HandleTag.claim()
        hasTag = tag != nil
        if let tag { handleTagBits.store(tag << 56, ordering: .relaxed) }
        precondition(MemoryLayout<Atomic<UnsafeMutableRawPointer?>>.size == 8
                     && MemoryLayout<Atomic<UInt64>>.size == 8 && MemoryLayout<Atomic<UInt64>>.alignment == 8)
        pages = .allocate(capacity: Self.maxPages)
        for p in 0..<Self.maxPages { (pages + p).initialize(to: Atomic(nil)) }
        handlePages.store(UInt(bitPattern: pages), ordering: .releasing)
    }

    /// Whether `raw` is in the handle space: a top byte 0x80...0xFE, which
    /// no user-space pointer has (so it is not a mode name's string) — this
    /// copy's handles, or another copy's, which every lookup then refuses.
    package static func isHandle(_ raw: UInt) -> Bool {
        let top = UInt64(raw) >> 56
        return top >= 0x80 && top != 0xFF
    }

    /// The page directory (`maxPages` page pointers, made with the table
    /// and never moved), for the C header's inline fast paths.
    package static var directory: UnsafeRawPointer {
        _ = shared
        return UnsafeRawPointer(bitPattern: handlePages.load(ordering: .acquiring))!
    }

    // MARK: slot access (static: the lock-free paths reach the pages
    // through `handlePages`, not through the lazily created `shared`)

    /// The page of a slot index below `maxPages * pageSize`.
    @inline(__always)
    private static func page(_ index: UInt32) -> UnsafeMutableRawPointer? {
        let pages = handlePages.load(ordering: .acquiring)
        guard pages != 0 else { return nil }
        return UnsafePointer<Atomic<UnsafeMutableRawPointer?>>(bitPattern: pages)![Int(index >> UInt32(pageBits))]
            .load(ordering: .acquiring)
    }

    /// A handle has this copy's tag and an index below `maxPages * pageSize`
    /// (2^26) when these bits of it are `handleBits`: one test.
    private static let handleMask: UInt64 = 0xFF00_0000_FC00_0000
    private static var handleBits: UInt64 { handleTagBits.load(ordering: .relaxed) }

    // A page is `pageSize * 4` words and a cache line, every word bound to
    // `Atomic<UInt64>` when the page is made (takeSlot): the slots' state
    // and object words, then their hot words and pins (32 bytes a slot),
    // then a line whose first word is the address of the page's inbox
    // words, made when a loop first takes one of its slots (only loops
    // have inboxes).  The object and
    // inbox words hold addresses (`address(_:)`, `bits(_:)`).  A slot's
    // state word and object word are adjacent (a pin reads both, a release
    // writes both: one cache line).
    private static let pageWords = pageSize * 4 + 8

    static func statePtr(_ page: UnsafeMutableRawPointer, _ index: UInt32) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (page + Int(index & UInt32(Self.pageSize - 1)) * 16).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// The object's address, or while the slot is free the next free
    /// slot's index + 1 (see `freeHead`).
    static func objectPtr(_ page: UnsafeMutableRawPointer, _ index: UInt32) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (page + Int(index & UInt32(Self.pageSize - 1)) * 16 + 8).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// The address an object or inbox word holds (nil for 0).
    @inline(__always)
    static func address(_ word: UInt64) -> UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: UInt(truncatingIfNeeded: word))
    }

    /// The word holding an address.
    @inline(__always)
    static func bits(_ address: UnsafeMutableRawPointer) -> UInt64 { UInt64(UInt(bitPattern: address)) }

    /// The hot words have an array of their own: a reader of one does not
    /// share a cache line with the pins of its neighbours.
    static func hotPtr(_ page: UnsafeMutableRawPointer, _ index: UInt32) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (page + Self.pageSize * 16 + Int(index & UInt32(Self.pageSize - 1)) * 8).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// The hot word of the slot `raw` would name (`hotWord` and the C fast
    /// paths).  No tag or range test on `raw`: the page index is masked
    /// into the directory, and the XOR with `raw` (HotWord) rejects
    /// anything that is not the live owner's handle, NULL included.
    @inline(__always)
    static func hotPtrUnchecked(_ raw: UInt) -> UnsafeMutablePointer<Atomic<UInt64>>? {
        let index = UInt32(truncatingIfNeeded: raw)
        let pages = handlePages.load(ordering: .acquiring)
        guard pages != 0 else { return nil }
        let directory = UnsafePointer<Atomic<UnsafeMutableRawPointer?>>(bitPattern: pages)!
        guard let page = directory[Int(index >> UInt32(pageBits) & UInt32(maxPages - 1))].load(ordering: .acquiring)
        else { return nil }
        return hotPtr(page, index)
    }

    /// The pins of a slot: C calls using its object for their duration
    /// (`pin` / `unpin`), counted apart from its references.  Also
    /// briefly raised by a lookup through a stale handle, which finds the
    /// state word not its own and takes its pin back.
    static func pinsPtr(_ page: UnsafeMutableRawPointer, _ index: UInt32) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (page + Self.pageSize * 24 + Int(index & UInt32(Self.pageSize - 1)) * 8).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// The page's word holding the address of its slots' inbox words (0
    /// until a loop takes one of its slots).
    private static func inboxWordsPtr(_ page: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (page + Self.pageSize * 32).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// The word holding a slot's block inbox (BlockInbox.swift), allocated
    /// when a loop first takes the slot and never freed; nil if no loop
    /// ever had a slot of the page.
    static func inboxPtr(_ page: UnsafeMutableRawPointer, _ index: UInt32) -> UnsafeMutablePointer<Atomic<UInt64>>? {
        guard let words = address(inboxWordsPtr(page).pointee.load(ordering: .acquiring)) else { return nil }
        return (words + Int(index & UInt32(Self.pageSize - 1)) * 8).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    /// `inboxPtr`, making the page's inbox words if it has none (for a
    /// loop: called under its lock, and the page lock is a leaf).  nil if
    /// memory runs out.
    func makeInboxPtr(_ page: UnsafeMutableRawPointer, _ index: UInt32) -> UnsafeMutablePointer<Atomic<UInt64>>? {
        if let word = Self.inboxPtr(page, index) { return word }
        return pageLock.withLock {
            if let word = Self.inboxPtr(page, index) { return word }  // another loop made them
            guard let fresh = malloc(Self.pageSize * 8) else { return nil }
            let words = fresh.bindMemory(to: Atomic<UInt64>.self, capacity: Self.pageSize)
            for i in 0..<Self.pageSize { (words + i).initialize(to: Atomic(0)) }
            Self.inboxWordsPtr(page).pointee.store(Self.bits(fresh), ordering: .releasing)
            return Self.inboxPtr(page, index)
        }
    }

    /// The page and index of the slot a handle names; nil for anything
    /// that is not a handle of this table (NULL, a forged or foreign value).
    @inline(__always)
    static func slot(of handle: UInt64) -> (page: UnsafeMutableRawPointer, index: UInt32)? {
        let index = UInt32(truncatingIfNeeded: handle)
        guard handle & handleMask == handleBits, let page = page(index) else { return nil }
        return (page, index)
    }

    /// The generation a handle names (compared with its slot's).
    static func generation(handle: UInt64) -> UInt64 { (handle >> 32) & 0xFF_FFFF }

    static func generation(_ state: UInt64) -> UInt64 { state >> 40 }
    static func count(_ state: UInt64) -> UInt64 { state & 0xFFFF_FFFF }
    static func kindBits(_ state: UInt64) -> UInt64 { (state >> 32) & 0xFF }
    /// Released: no reference left, not yet finalized (a free slot has kind 0).
    static func isReleased(_ state: UInt64) -> Bool { count(state) == 0 && kindBits(state) != 0 }

    // MARK: operations

    /// Gives `object` a handle with one reference (the caller's).
    /// Returns false when the table is full.
    @discardableResult
    package func register(_ object: Object) -> Bool {
        let slot = takeSlot(forLoop: object.kind == .runLoop)
        guard let slot else {
            if let own = HotWord.own(object.initialHot) {
                object.hotPointer = own.pointer
                object.ownsHot = true
            }
            object.registered()
            return false
        }
        let state = Self.statePtr(slot.page, slot.index)
        var generation = Self.generation(state.pointee.load(ordering: .acquiring))
        if generation == 0 { generation = 1 }
        object.handle = Self.tag << 56 | generation << 32 | UInt64(slot.index)
        let key = HotWord.key(handle: object.handle, kind: object.kind)
        Self.hotPtr(slot.page, slot.index).pointee.store(key ^ UInt64(object.initialHot), ordering: .releasing)
        object.hotPointer = Self.hotPtr(slot.page, slot.index)  // keyed with `key`
        object.registered()
        Self.objectPtr(slot.page, slot.index).pointee.store(Self.bits(Unmanaged.passRetained(object).toOpaque()),
                                                            ordering: .releasing)
        state.pointee.store(generation << 40 | UInt64(object.kind.rawValue) << 32 | 1, ordering: .releasing)
        return true
    }

    /// A free slot (for a loop one holding an inbox if there is one, then
    /// any other free one, else a fresh one); nil when the table is full,
    /// or the copy has no tag.  Lock-free except when a fresh slot opens a
    /// new page.
    private func takeSlot(forLoop: Bool) -> (index: UInt32, page: UnsafeMutableRawPointer)? {
        guard hasTag else { return nil }
        if forLoop, let slot = pop(freeWithInboxHead) { return slot }
        if let slot = pop(freeHead) { return slot }
        var index = nextFresh.load(ordering: .relaxed)
        while true {
            guard Int(index) < Self.maxPages * Self.pageSize else { return nil }
            let (exchanged, seen) = nextFresh.compareExchange(expected: index, desired: index + 1, ordering: .relaxed)
            if exchanged { break }
            index = seen
        }
        if let page = Self.page(index) { return (index, page) }
        return pageLock.withLock {
            let p = Int(index) >> Self.pageBits
            if let page = Self.page(index) { return (index, page) }  // another thread made it
            let words = Self.pageWords
            // When memory runs out, this fails (the caller reports it, and
            // the index claimed above is never used): the page comes from
            // malloc, not Swift's allocate, which traps, and a page is made
            // only with headroom left for the objects it will name.
            guard Self.hasHeadroom(), let fresh = aligned_alloc(64, words * 8) else { return nil }
            let bound = fresh.bindMemory(to: Atomic<UInt64>.self, capacity: words)
            for i in 0..<words { (bound + i).initialize(to: Atomic(0)) }
            pages[p].store(fresh, ordering: .releasing)
            return (index, fresh)
        }
    }

    /// Whether the process can still map `headroomBytes` more, asked when
    /// a new page is made: every 4,096 new objects at most.  Swift traps
    /// when an object cannot be allocated, so making objects until memory
    /// runs out (under an address-space limit, or with strict overcommit)
    /// must stop while there is room for the next page's worth of them and
    /// for reporting the error: then a create call gets no handle and
    /// fails with `kRLErrorResources`.  mmap, not malloc, so the probe
    /// leaves malloc's thresholds alone.
    private static let headroomBytes = 8 << 20

    private static func hasHeadroom() -> Bool {
        let probe = mmap(nil, headroomBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        guard let probe, probe != MAP_FAILED else { return false }
        munmap(probe, headroomBytes)
        return true
    }

    private func pop(_ stack: borrowing Atomic<UInt64>) -> (index: UInt32, page: UnsafeMutableRawPointer)? {
        var head = stack.load(ordering: .acquiring)
        while head & 0xFFFF_FFFF != 0 {
            let index = UInt32(truncatingIfNeeded: head) - 1
            let page = Self.page(index)!
            let link = Self.objectPtr(page, index).pointee.load(ordering: .acquiring)
            let desired = Self.nextHead(after: head, top: link)
            let (exchanged, seen) = stack.compareExchange(expected: head, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { return (index, page) }
            head = seen
        }
        return nil
    }

    /// A free stack's head after a push or pop: the next tag (see
    /// `freeHead`), and `top` (a slot index + 1, 0 for empty).
    @inline(__always)
    private static func nextHead(after head: UInt64, top: UInt64) -> UInt64 {
        (head & 0xFFFF_FFFF_0000_0000) &+ (1 << 32) | top
    }

    /// Pushes a retired slot on its free stack (only a loop may take a slot
    /// with an inbox: see BlockInbox).
    func freeSlot(_ index: UInt32, _ page: UnsafeMutableRawPointer) {
        let hasInbox = (Self.inboxPtr(page, index)?.pointee.load(ordering: .acquiring) ?? 0) != 0
        if hasInbox { push(index, page, on: freeWithInboxHead) } else { push(index, page, on: freeHead) }
    }

    private func push(_ index: UInt32, _ page: UnsafeMutableRawPointer, on stack: borrowing Atomic<UInt64>) {
        let link = Self.objectPtr(page, index)
        var head = stack.load(ordering: .relaxed)
        while true {
            link.pointee.store(head & 0xFFFF_FFFF, ordering: .releasing)
            let desired = Self.nextHead(after: head, top: UInt64(index + 1))
            let (exchanged, seen) = stack.compareExchange(expected: head, desired: desired, ordering: .releasing)
            if exchanged { return }
            head = seen
        }
    }

    // Lookups (pin, unpin, retain, the hot words and inboxes read with no
    // pin, reclaim): HandleTable+Lookup.swift.

    // MARK: fork (Fork.swift)

    /// A slot disowned by a fork child: generation 0 (which no handle
    /// names: register and release skip it) with references left.
    @inline(__always)
    static func isDisowned(_ state: UInt64) -> Bool {
        generation(state) == 0 && count(state) > 0
    }

    /// Fork.swift only: the page lock is held across fork() (a leaf: a
    /// page is allocated under it, nothing else is taken).
    package func lockForFork() { pageLock.lock() }
    package func unlockAfterFork() { pageLock.unlock() }

    /// In the fork child, before anything else runs: every object live at
    /// the fork is the parent's.  Its slot's generation becomes 0, so
    /// every handle to it is refused (`pin` and `release` report
    /// kRLErrorForked) and the slot is never freed (the object is never
    /// finalized: its locks may be held by threads the child does not
    /// have); its hot word is cleared, as a last release would, so the
    /// header's fast paths read nothing and fall through to a call.  Every
    /// block inbox is disowned too (BlockInbox.disownAfterFork).  Plain
    /// loads and stores: only this thread exists.
    package func disownAfterFork() {
        let end = min(nextFresh.load(ordering: .relaxed), UInt32(Self.maxPages * Self.pageSize))
        var index: UInt32 = 0
        while index < end {
            // A page another thread was about to make (it waited for the
            // page lock, held by Fork): no slot of it was ever used.
            guard let page = Self.page(index) else {
                index = (index >> UInt32(Self.pageBits) + 1) << UInt32(Self.pageBits)
                continue
            }
            let state = Self.statePtr(page, index)
            let current = state.pointee.load(ordering: .acquiring)
            if Self.count(current) > 0 && Self.generation(current) != 0 {
                Self.hotPtr(page, index).pointee.store(0, ordering: .releasing)
                state.pointee.store(current & 0xFF_FFFF_FFFF, ordering: .releasing)  // kind and count kept
            }
            if let inbox = Self.address(Self.inboxPtr(page, index)?.pointee.load(ordering: .acquiring) ?? 0) {
                BlockInbox(inbox).disownAfterFork()
            }
            index += 1
        }
    }

    /// Drops one reference.  The last one makes the handle refuse every
    /// later pin and reference, and finalizes the object and retires the
    /// slot, now if nothing has it pinned, else when the last pin goes (see
    /// `pin`).  Returns false (with an error report) for a stale handle.
    @discardableResult @inline(never)
    package func release(_ handle: UInt64, from function: StaticString) -> Bool {
        let generation = Self.generation(handle: handle)
        guard let (page, index) = Self.slot(of: handle) else {
            reportError(function, .staleHandle)
            return false
        }
        let state = Self.statePtr(page, index)
        var current = state.pointee.load(ordering: .acquiring)
        while true {
            guard Self.generation(current) == generation, Self.count(current) > 0 else {
                reportError(function, Self.isDisowned(current) ? .forked : .overRelease)
                return false
            }
            if Self.count(current) == 1 && Self.keepsLastReference(page, index) {
                reportError(function, .overRelease, "the last reference is the library's own (RLRunLoopGetCurrent and "
                            + "RLRunLoopGetMain return loops the caller does not own)")
                return false
            }
            let (exchanged, seen) = state.pointee.compareExchange(expected: current, desired: current - 1,
                                                                  ordering: .sequentiallyConsistent)
            if exchanged { break }
            current = seen
        }
        if Self.count(current) == 1 {
            // Released (count 0, kind kept).  Read after the seq_cst
            // compare-and-swap, the other side of `pin`'s handshake.
            if Self.pinsPtr(page, index).pointee.load(ordering: .sequentiallyConsistent) == 0 {
                Self.reclaim(page, index, released: current - 1)
            }
        }
        return true
    }
}
