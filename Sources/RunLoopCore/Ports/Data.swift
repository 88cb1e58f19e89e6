import Glibc

/// An immutable byte buffer (RLData): the payload of message-port
/// requests and replies.  The bytes are malloc()ed once and freed when the
/// last Swift reference goes (after the handle's last release), so a
/// pointer handed out stays valid while any call still pins the object.
package final class Data: Object, @unchecked Sendable {
    /// Never nil: at least one byte is allocated, so an empty buffer still
    /// has a pointer.
    package let bytes: UnsafeMutableRawPointer
    package let count: Int

    /// Copies `count` bytes from `source` (which may be nil when count is 0).
    package init(copying source: UnsafeRawPointer?, count: Int) {
        bytes = malloc(max(count, 1))!
        if count > 0, let source { memcpy(bytes, source, count) }
        self.count = count
        super.init(kind: .data)
    }

    /// A buffer with its handle (one reference, the caller's); nil when the
    /// handle table is full.
    package static func make(copying source: UnsafeRawPointer?, count: Int) -> Data? {
        let data = Data(copying: source, count: count)
        return HandleTable.shared.register(data) ? data : nil
    }

    /// A copy of `bytes` with its handle; nil when the handle table is full.
    package static func make(_ bytes: [UInt8]) -> Data? { make(copying: bytes, count: bytes.count) }

    package var raw: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: bytes, count: count) }

    deinit { free(bytes) }
}
