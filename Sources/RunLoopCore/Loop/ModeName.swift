import CRunLoopShims
import Glibc
import Synchronization

/// An interned mode name.  Equal names share one `id` and one C string
/// that lives for the rest of the process, so modes compare by integer and
/// the pointers handed to C callers never dangle.
package struct ModeName: Hashable, @unchecked Sendable, CustomStringConvertible {
    package let id: Int
    /// NUL-terminated, immortal; its id is stored just in front of it.
    package let cString: UnsafePointer<CChar>

    package static func == (a: ModeName, b: ModeName) -> Bool { a.id == b.id }
    package func hash(into h: inout Hasher) { h.combine(id) }
    package var description: String { String(cString: cString) }

    /// The two names every process has are interned first, so their ids
    /// are constants (no lazy global to reach on a hot path).
    package static let defaultID = 0
    package static let commonID = 1
    package var isCommonModes: Bool { id == ModeName.commonID }

    package static let maxLength = 1024

    package static let `default` = ModeNames.shared.defaultName
    package static let common = ModeNames.shared.commonName

    /// The name whose C string is `cString`, which must be one of ours
    /// (8-byte aligned: BlockInbox uses its low bits).
    @inline(__always)
    package init(interned cString: UnsafePointer<CChar>) {
        id = UnsafeRawPointer(cString - MemoryLayout<Int>.size).load(as: Int.self)
        self.cString = cString
    }

    /// Interns a C string; nil if it is longer than `maxLength` bytes.
    /// The usual case, a string seen recently at the same address, costs a
    /// load and a strcmp (see ModeNames.recent).
    @inline(__always)
    package static func intern(_ cString: UnsafePointer<CChar>) -> ModeName? {
        ModeNames.recentName(cString) ?? ModeNames.shared.intern(cString)
    }

    package static func intern(_ string: String) -> ModeName? {
        let bytes = Array(string.utf8)
        guard bytes.count <= maxLength, !bytes.contains(0) else { return nil }
        return ModeNames.shared.intern(bytes: bytes)
    }
}

/// The address of `ModeNames.shared.recent`, 0 until the table exists: a
/// statically initialized global, so the cache is reached with one load
/// (not through `shared`'s lazy initialization).
private let recentModeNames = Atomic<UInt>(0)

/// The intern table.  Names are never removed (modes are never deleted).
package final class ModeNames: @unchecked Sendable {
    package static let shared = ModeNames()

    private struct Table: @unchecked Sendable {
        var byBytes: [[UInt8]: ModeName] = [:]
        var byPointer: [UnsafePointer<CChar>: ModeName] = [:]
        var count = 0
    }
    private let table: Guarded<Table>

    /// A lock-free cache in front of the table: the interned strings last
    /// looked up through callers' pointers, in a pair of slots chosen by the
    /// pointer (two ways, so two strings whose pointers collide do not
    /// evict each other on every call).  A caller's string is not ours and
    /// may change between calls (a reused buffer), so a hit is confirmed by
    /// comparing the contents; a miss only costs a trip to the table.  The
    /// entries are immortal interned strings, so a slot is one word that
    /// readers load atomically and writers overwrite at will.
    private let recent: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>
    private static let recentBits = 6

    package let defaultName: ModeName
    package let commonName: ModeName

    private init() {
        Fork.install()
        recent = .allocate(capacity: 1 << Self.recentBits)
        for i in 0..<1 << Self.recentBits { (recent + i).initialize(to: Atomic(nil)) }
        var t = Table()
        defaultName = Self.intern(Array("kCFRunLoopDefaultMode".utf8), into: &t)  // id 0
        commonName = Self.intern(Array("kCFRunLoopCommonModes".utf8), into: &t)   // id 1
        table = Guarded(t)
        recentModeNames.store(UInt(bitPattern: recent), ordering: .releasing)
    }

    /// The first slot of `cString`'s pair (the other is the next one).
    @inline(__always)
    private static func recentPair(_ recent: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>,
                                   _ cString: UnsafePointer<CChar>) -> UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>> {
        let hash = (UInt(bitPattern: cString) &* 0x9E37_79B9_7F4A_7C15) >> (64 - recentBits)
        return recent + Int(truncatingIfNeeded: hash & ~1)
    }

    /// The cached name for `cString`, if its pair holds an equal string.
    @inline(__always)
    fileprivate static func recentName(_ cString: UnsafePointer<CChar>) -> ModeName? {
        guard let recent = UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>(
                bitPattern: recentModeNames.load(ordering: .acquiring)) else { return nil }
        let pair = recentPair(recent, cString)
        if let name = cached(pair[0].load(ordering: .acquiring), cString) { return name }
        return cached(pair[1].load(ordering: .acquiring), cString)
    }

    @inline(__always)
    private static func cached(_ entry: UnsafeMutableRawPointer?, _ cString: UnsafePointer<CChar>) -> ModeName? {
        guard let entry else { return nil }
        let candidate = UnsafePointer<CChar>(entry.assumingMemoryBound(to: CChar.self))
        guard candidate == cString || strcmp(candidate, cString) == 0 else { return nil }
        return ModeName(interned: candidate)
    }

    /// The table path of `ModeName.intern`; caches its answer.
    @inline(never)
    fileprivate func intern(_ cString: UnsafePointer<CChar>) -> ModeName? {
        let name: ModeName
        if let known = table.withLock({ $0.byPointer[cString] }) {
            name = known  // a C string of ours
        } else {
            let length = strnlen(cString, ModeName.maxLength + 1)
            guard length <= ModeName.maxLength else { return nil }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self), count: length)
            name = intern(bytes: Array(bytes))
        }
        // The newest answer goes first in the pair, the one it displaces
        // second.  Racing writers at worst lose an entry: a later miss.
        let pair = Self.recentPair(recent, cString)
        let newest = UnsafeMutableRawPointer(mutating: name.cString)
        let first = pair[0].load(ordering: .acquiring)
        if first != newest {
            if first != nil { pair[1].store(first, ordering: .releasing) }
            pair[0].store(newest, ordering: .releasing)
        }
        return name
    }

    /// Fork.swift only: the table's lock is held across fork() (a leaf:
    /// its holders take no other lock).
    package func lockForFork() { table.lockForFork() }
    package func unlockAfterFork() { table.unlockAfterFork() }

    package func intern(bytes: [UInt8]) -> ModeName {
        table.withLock { Self.intern(bytes, into: &$0) }
    }

    private static func intern(_ bytes: [UInt8], into t: inout Table) -> ModeName {
        if let known = t.byBytes[bytes] { return known }
        // [id][bytes][NUL]: the id in front lets a cached C string become
        // a ModeName again without the table.  Whole cache lines of its
        // own: every perform from C reads it, so no neighbour written by a
        // loop may share its line.
        let header = MemoryLayout<Int>.size
        let size = bytes.count + 1
        let lines = (header + size + 63) & ~63
        let storage = UnsafeMutableRawPointer.allocate(byteCount: lines, alignment: 64)
        storage.initializeMemory(as: UInt8.self, repeating: 0, count: lines)
        storage.storeBytes(of: t.count, as: Int.self)
        let chars = (storage + header).bindMemory(to: CChar.self, capacity: size)
        for (i, b) in bytes.enumerated() { chars[i] = CChar(bitPattern: b) }
        let name = ModeName(interned: UnsafePointer(chars))
        t.count += 1
        t.byBytes[bytes] = name
        t.byPointer[UnsafePointer(chars)] = name
        return name
    }
}
