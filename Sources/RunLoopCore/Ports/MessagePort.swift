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

    init(name: String?) {
        if let name, let copy = strdup(name) { names.withLock { $0.append(copy) } }
        super.init(kind: .messagePort)
    }

    deinit { names.withLock { for name in $0 { free(name) } } }

    package var isRemote: Bool { false }
    package var isValid: Bool { valid.load(ordering: .acquiring) }
    /// The context info passed to the invalidation callback.
    package var info: UnsafeMutableRawPointer? { nil }

    package var name: String? { names.withLock { $0.last.map { String(cString: $0) } } }
    package var nameCString: UnsafePointer<CChar>? { names.withLock { $0.last.map { UnsafePointer($0) } } }

    func recordName(_ name: String) {
        guard let copy = strdup(name) else { return }
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
