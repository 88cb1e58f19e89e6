import CRunLoopShims
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
}

/// An object reachable from C through a handle.  The handle's reference
/// count (in the table slot) decides the object's public lifetime: when it
/// reaches zero, `finalize()` runs once and the handle goes stale.
package class Handled: @unchecked Sendable {
    /// Set once by `HandleTable.register`, before the handle is published.
    fileprivate(set) var handle: UInt64 = 0
    package let kind: HandleKind

    package init(kind: HandleKind) { self.kind = kind }

    /// Called once, with no lock held, when the last reference goes.
    package func finalize() {}

    /// Adds a reference the library itself holds.
    package final func retainRef() { HandleTable.shared.retainKnown(handle) }
    /// Drops a reference; may run `finalize()` (user code): never call it
    /// with a lock held.
    package final func releaseRef() { HandleTable.shared.release(handle, from: "RLRelease") }

    /// The handle as a C pointer value.
    package final var opaque: OpaquePointer { OpaquePointer(bitPattern: UInt(handle))! }
}

/// The process-wide table behind every C handle.
///
/// A handle is `tag(8) | generation(24) | index(32)`; the tag byte makes a
/// handle impossible to confuse with a user-space pointer (such as a mode
/// name string).  Each slot holds a state word `generation(24) | kind(8) |
/// count(32)` updated by compare-and-swap, and the object.  A lookup pins
/// the slot by incrementing the count only if the generation still
/// matches, so a stale or forged handle is refused without touching freed
/// memory.  Pages are allocated on demand and never freed.
package final class HandleTable: @unchecked Sendable {
    package static let shared = HandleTable()

    package static let tag: UInt64 = 0xA5
    package static let pageBits = 12
    package static let pageSize = 1 << pageBits
    package static let maxPages = 1 << 14

    /// Page pointers; written under `allocation`, read lock-free.
    private let pages: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// Free slot indexes and the high-water mark.
    private let allocation = Locked<(free: [UInt32], next: UInt32)>(([], 0))

    private init() {
        pages = .allocate(capacity: Self.maxPages)
        pages.initialize(repeating: nil, count: Self.maxPages)
    }

    package static func isHandle(_ raw: UInt) -> Bool { UInt64(raw) >> 56 == tag }

    // MARK: slot access

    private func page(_ index: UInt32) -> UnsafeMutableRawPointer? {
        let p = Int(index) >> Self.pageBits
        guard p < Self.maxPages else { return nil }
        return rl_atomic_load_ptr(pages + p)
    }

    private func statePtr(_ page: UnsafeMutableRawPointer, _ index: UInt32) -> UnsafeMutablePointer<UInt64> {
        (page + Int(index & UInt32(Self.pageSize - 1)) * 8).assumingMemoryBound(to: UInt64.self)
    }

    private func objectPtr(_ page: UnsafeMutableRawPointer, _ index: UInt32) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        (page + Self.pageSize * 8 + Int(index & UInt32(Self.pageSize - 1)) * 8)
            .assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    private static func generation(_ state: UInt64) -> UInt64 { state >> 40 }
    private static func count(_ state: UInt64) -> UInt64 { state & 0xFFFF_FFFF }

    // MARK: operations

    /// Gives `object` a handle with one reference (the caller's).
    /// Returns false when the table is full.
    @discardableResult
    package func register(_ object: Handled) -> Bool {
        let slot: (index: UInt32, page: UnsafeMutableRawPointer)? = allocation.withLock { a in
            let index: UInt32
            if let reused = a.free.popLast() {
                index = reused
            } else {
                guard Int(a.next) < Self.maxPages * Self.pageSize else { return nil }
                index = a.next
                a.next += 1
                if Int(index) & (Self.pageSize - 1) == 0 {
                    let bytes = Self.pageSize * 16
                    let fresh = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                    fresh.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
                    rl_atomic_store_ptr(pages + (Int(index) >> Self.pageBits), fresh)
                }
            }
            return (index, page(index)!)
        }
        guard let slot else { return false }
        let state = statePtr(slot.page, slot.index)
        var generation = Self.generation(rl_atomic_load(state))
        if generation == 0 { generation = 1 }
        object.handle = Self.tag << 56 | generation << 32 | UInt64(slot.index)
        objectPtr(slot.page, slot.index).pointee = Unmanaged.passRetained(object).toOpaque()
        rl_atomic_store(state, generation << 40 | UInt64(object.kind.rawValue) << 32 | 1)
        return true
    }

    package enum LookupError: Error { case null, stale, wrongType }

    /// Pins the slot named by `raw` (count + 1) and returns its object.
    /// The caller must `release` it (or keep the reference it now owns).
    package func retain(_ raw: UInt, kind: HandleKind?) -> Result<Handled, LookupError> {
        if raw == 0 { return .failure(.null) }
        let handle = UInt64(raw)
        guard handle >> 56 == Self.tag else { return .failure(.stale) }
        let index = UInt32(truncatingIfNeeded: handle)
        let generation = (handle >> 32) & 0xFF_FFFF
        guard let page = page(index) else { return .failure(.stale) }
        let state = statePtr(page, index)
        var current = rl_atomic_load(state)
        while true {
            guard Self.generation(current) == generation, Self.count(current) > 0 else { return .failure(.stale) }
            if let kind, (current >> 32) & 0xFF != UInt64(kind.rawValue) { return .failure(.wrongType) }
            guard Self.count(current) < 0xFFFF_FFFF else { return .failure(.stale) }
            if rl_atomic_cas(state, &current, current + 1) != 0 { break }
        }
        let object = Unmanaged<Handled>.fromOpaque(objectPtr(page, index).pointee!).takeUnretainedValue()
        return .success(object)
    }

    /// Adds a reference to a handle the caller already holds a reference to.
    package func retainKnown(_ handle: UInt64) {
        _ = retain(UInt(handle), kind: nil)
    }

    /// The current count of a live handle, or nil.
    package func retainCount(_ handle: UInt64) -> UInt64? {
        let index = UInt32(truncatingIfNeeded: handle)
        guard handle >> 56 == Self.tag, let page = page(index) else { return nil }
        let state = rl_atomic_load(statePtr(page, index))
        guard Self.generation(state) == (handle >> 32) & 0xFF_FFFF, Self.count(state) > 0 else { return nil }
        return Self.count(state)
    }

    /// Drops one reference; the last one finalizes the object and retires
    /// the slot.  Returns false (with an error report) for a stale handle.
    @discardableResult
    package func release(_ handle: UInt64, from function: StaticString) -> Bool {
        let index = UInt32(truncatingIfNeeded: handle)
        let generation = (handle >> 32) & 0xFF_FFFF
        guard handle >> 56 == Self.tag, let page = page(index) else {
            reportError(function, .staleHandle)
            return false
        }
        let state = statePtr(page, index)
        var current = rl_atomic_load(state)
        var next: UInt64
        while true {
            guard Self.generation(current) == generation, Self.count(current) > 0 else {
                reportError(function, .overRelease)
                return false
            }
            if Self.count(current) == 1 {
                var nextGeneration = (generation + 1) & 0xFF_FFFF
                if nextGeneration == 0 { nextGeneration = 1 }
                next = nextGeneration << 40
            } else {
                next = current - 1
            }
            if rl_atomic_cas(state, &current, next) != 0 { break }
        }
        if Self.count(next) == 0 && Self.generation(next) != generation {
            let slot = objectPtr(page, index)
            let unmanaged = Unmanaged<Handled>.fromOpaque(slot.pointee!)
            slot.pointee = nil
            allocation.withLock { $0.free.append(index) }
            let object = unmanaged.takeRetainedValue()
            object.finalize()
        }
        return true
    }
}
