import Glibc

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
    /// load and a strcmp (see ModeNameCache).
    @inline(__always)
    package static func intern(_ cString: UnsafePointer<CChar>) -> ModeName? {
        ModeNameCache.lookup(cString) ?? ModeNames.shared.intern(cString)
    }

    package static func intern(_ string: String) -> ModeName? {
        let bytes = Array(string.utf8)
        guard bytes.count <= maxLength, !bytes.contains(0) else { return nil }
        return ModeNames.shared.intern(bytes: bytes)
    }
}

/// The intern table.  Names are never removed (modes are never deleted).
package final class ModeNames: @unchecked Sendable {
    package static let shared = ModeNames()

    private struct Table: @unchecked Sendable {
        var byBytes: [[UInt8]: ModeName] = [:]
        var byPointer: [UnsafePointer<CChar>: ModeName] = [:]
        var count = 0
    }
    private let table: Guarded<Table>

    package let defaultName: ModeName
    package let commonName: ModeName

    private init() {
        Fork.install()
        ModeNameCache.install()
        var t = Table()
        defaultName = Self.intern(Array("kCFRunLoopDefaultMode".utf8), into: &t)  // id 0
        commonName = Self.intern(Array("kCFRunLoopCommonModes".utf8), into: &t)   // id 1
        table = Guarded(t)
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
        ModeNameCache.remember(name, for: cString)
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
