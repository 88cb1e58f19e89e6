import Glibc
import Synchronization

/// The address of the cache's slots, 0 until the intern table exists: a
/// statically initialized global, so the cache is reached with one load
/// (not through `ModeNames.shared`'s lazy initialization).
private let recentModeNames = Atomic<UInt>(0)

/// A lock-free cache in front of the intern table (ModeNames): the
/// interned strings last looked up through callers' pointers, in a pair of
/// slots chosen by the pointer (two ways, so two strings whose pointers
/// collide do not evict each other on every call).  A caller's string is
/// not ours and may change between calls (a reused buffer), so a hit is
/// confirmed by comparing the contents; a miss only costs a trip to the
/// table.  The entries are immortal interned strings, so a slot is one
/// word that readers load atomically and writers overwrite at will.
///
/// Every RLRunLoopPerformFunction names its mode with the caller's string
/// (kRLRunLoopDefaultMode is a literal in the caller's binary); without
/// the cache each call takes the table's mutex and hashes the string.
/// Device: see docs/performance.md, "The engine's devices".
enum ModeNameCache {
    private static let bits = 6

    /// Makes the slots (once, by the intern table's initializer).
    static func install() {
        let recent = UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>.allocate(capacity: 1 << bits)
        for i in 0..<1 << bits { (recent + i).initialize(to: Atomic(nil)) }
        recentModeNames.store(UInt(bitPattern: recent), ordering: .releasing)
    }

    /// The cached name for `cString`, if its pair holds an equal string.
    @inline(__always)
    static func lookup(_ cString: UnsafePointer<CChar>) -> ModeName? {
        guard let recent = UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>(
                bitPattern: recentModeNames.load(ordering: .acquiring)) else { return nil }
        let pair = pair(recent, cString)
        if let name = cached(pair[0].load(ordering: .acquiring), cString) { return name }
        return cached(pair[1].load(ordering: .acquiring), cString)
    }

    /// Records `name` as the answer for `cString` (after a trip to the
    /// table).  The newest answer goes first in the pair, the one it
    /// displaces second.  Racing writers at worst lose an entry: a later
    /// miss.
    static func remember(_ name: ModeName, for cString: UnsafePointer<CChar>) {
        guard let recent = UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>(
                bitPattern: recentModeNames.load(ordering: .acquiring)) else { return }
        let pair = pair(recent, cString)
        let newest = UnsafeMutableRawPointer(mutating: name.cString)
        let first = pair[0].load(ordering: .acquiring)
        if first != newest {
            if first != nil { pair[1].store(first, ordering: .releasing) }
            pair[0].store(newest, ordering: .releasing)
        }
    }

    /// The first slot of `cString`'s pair (the other is the next one).
    @inline(__always)
    private static func pair(_ recent: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>,
                             _ cString: UnsafePointer<CChar>) -> UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>> {
        let hash = (UInt(bitPattern: cString) &* 0x9E37_79B9_7F4A_7C15) >> (64 - bits)
        return recent + Int(truncatingIfNeeded: hash & ~1)
    }

    @inline(__always)
    private static func cached(_ entry: UnsafeMutableRawPointer?, _ cString: UnsafePointer<CChar>) -> ModeName? {
        guard let entry else { return nil }
        let candidate = UnsafePointer<CChar>(entry.assumingMemoryBound(to: CChar.self))
        guard candidate == cString || strcmp(candidate, cString) == 0 else { return nil }
        return ModeName(interned: candidate)
    }
}
