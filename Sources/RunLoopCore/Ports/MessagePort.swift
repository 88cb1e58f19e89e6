import CRunLoop
import Glibc
import Synchronization

/// RLMessagePortSendRequest's results (CF's codes).
package enum PortStatus {
    package static let success: Int32 = 0
    package static let sendTimeout: Int32 = -1
    package static let receiveTimeout: Int32 = -2
    package static let isInvalid: Int32 = -3
    package static let transportError: Int32 = -4
    package static let becameInvalid: Int32 = -5
}

/// What local and remote message ports share (RLMessagePort): a name,
/// validity, and the invalidation callback.
package class MessagePort: Object, @unchecked Sendable {
    private let valid = Atomic<Bool>(true)
    /// Every name the port has had, as malloc()ed C strings: GetName's
    /// pointers stay valid until the port is destroyed.  The last is
    /// current.
    private let names = Guarded<[UnsafeMutablePointer<CChar>]>([])
    private let invalidation = Guarded<RLMessagePortInvalidationCallBack?>(nil)

    /// `name`: the bytes given, kept as they are (no UTF-8 repair).
    init(name: [UInt8]?) {
        if let name, let copy = Self.cCopy(name) { names.withLock { $0.append(copy) } }
        super.init(kind: .messagePort)
    }

    /// A malloc()ed, NUL-terminated copy of `bytes` (a name: no NUL in it).
    private static func cCopy(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar>? {
        (bytes + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { strdup($0.baseAddress!) } }
    }

    deinit { names.withLock { for name in $0 { free(name) } } }

    /// What a send came to: the reply (with a reference for the caller;
    /// nil for none) or one of PortStatus's failures.
    package enum Outcome {
        case success(Data?)
        case failed(Int32)
    }

    package var isRemote: Bool { false }
    package var isValid: Bool { valid.load(ordering: .acquiring) }
    /// The context info passed to the invalidation callback.
    package var info: UnsafeMutableRawPointer? { nil }

    /// The current name's bytes.
    package var nameBytes: [UInt8]? {
        names.withLock { $0.last.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } }
    }
    /// The current name for messages (invalid UTF-8 shown as U+FFFD).
    package var name: String? { nameBytes.map { String(decoding: $0, as: UTF8.self) } }
    package var nameCString: UnsafePointer<CChar>? { names.withLock { $0.last.map { UnsafePointer($0) } } }

    func recordName(_ name: [UInt8]) {
        guard let copy = Self.cCopy(name) else { return }
        names.withLock { $0.append(copy) }
    }

    package var invalidationCallBack: RLMessagePortInvalidationCallBack? { invalidation.withLock { $0 } }

    /// Sets the callback; if the port is already invalid, calls it now.
    package func setInvalidationCallBack(_ callout: RLMessagePortInvalidationCallBack?) {
        invalidation.withLock { $0 = callout }
        if !isValid, let callout { callout(opaque, info) }
    }

    /// Makes the port invalid once: the subclass closes its sockets, then
    /// the invalidation callback runs (no lock held), then the subclass
    /// lets go of its context.
    package func invalidate() {
        guard valid.exchange(false, ordering: .acquiringAndReleasing) else { return }
        closeTransport()
        if let callout = invalidationCallBack { callout(opaque, info) }
        didInvalidate()
    }

    /// Subclass hooks of `invalidate`.
    func closeTransport() {}
    func didInvalidate() {}

    /// The last release invalidates a port still valid.
    package override func finalize() { invalidate() }
}
