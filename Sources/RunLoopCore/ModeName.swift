import CRunLoopShims
import Glibc
import Synchronization

/// An interned mode name.  Equal names share one `id` and one C string
/// that lives for the rest of the process, so modes compare by integer and
/// the pointers handed to C callers never dangle.
package struct ModeName: Hashable, @unchecked Sendable, CustomStringConvertible {
    package let id: Int
    /// NUL-terminated, immortal.
    package let cString: UnsafePointer<CChar>

    package static func == (a: ModeName, b: ModeName) -> Bool { a.id == b.id }
    package func hash(into h: inout Hasher) { h.combine(id) }
    package var description: String { String(cString: cString) }

    package var isCommonModes: Bool { id == ModeName.common.id }

    package static let maxLength = 1024

    package static let `default` = ModeNames.shared.intern(bytes: Array("kCFRunLoopDefaultMode".utf8))
    package static let common = ModeNames.shared.intern(bytes: Array("kCFRunLoopCommonModes".utf8))

    /// Interns a C string; nil if it is longer than `maxLength` bytes.
    package static func intern(_ cString: UnsafePointer<CChar>) -> ModeName? {
        if let known = ModeNames.shared.lookup(pointer: cString) { return known }
        let length = strnlen(cString, maxLength + 1)
        guard length <= maxLength else { return nil }
        if length == 21 {
            if strcmp(cString, ModeName.default.cString) == 0 { return .default }
            if strcmp(cString, ModeName.common.cString) == 0 { return .common }
        }
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self), count: length)
        return ModeNames.shared.intern(bytes: Array(bytes))
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
    private let table = Locked(Table())

    /// A name whose C string is one of ours.
    package func lookup(pointer: UnsafePointer<CChar>) -> ModeName? {
        table.withLock { $0.byPointer[pointer] }
    }

    package func intern(bytes: [UInt8]) -> ModeName {
        table.withLock { t in
            if let known = t.byBytes[bytes] { return known }
            let storage = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, b) in bytes.enumerated() { storage[i] = CChar(bitPattern: b) }
            storage[bytes.count] = 0
            let name = ModeName(id: t.count, cString: UnsafePointer(storage))
            t.count += 1
            t.byBytes[bytes] = name
            t.byPointer[UnsafePointer(storage)] = name
            return name
        }
    }
}
