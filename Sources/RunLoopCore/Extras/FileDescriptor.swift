import CRunLoop
import CRunLoopShims
import Glibc
import Synchronization

/// CF's CFFileDescriptor: a file descriptor whose read/write readiness is
/// delivered, one-shot per enable, through a version-1 run loop source.
package final class FileDescriptor: Object, @unchecked Sendable {
    package static let readCallBack: UInt = 1 << 0
    package static let writeCallBack: UInt = 1 << 1

    package let fd: Int32
    package let closeOnInvalidate: Bool
    package let cContext: RLFileDescriptorContext?
    private let callout: (FileDescriptor, UInt) -> Void
    private let releaseInfo: (() -> Void)?

    private let valid = Atomic<Bool>(true)
    /// Orders its callouts before the release of its info (CalloutGate).
    private let gate = CalloutGate()
    /// Enabled callback types (read/write bits).
    private let enabled = Atomic<UInt>(0)
    /// The run loop source, made on first request.  It holds a reference
    /// to this object (dropped when the source is destroyed), and this
    /// object keeps it here until invalidation.
    private let cachedSource = Guarded<Source?>(nil)

    package init(fd: Int32, closeOnInvalidate: Bool, callout: @escaping (FileDescriptor, UInt) -> Void,
                 releaseInfo: (() -> Void)?, cContext: RLFileDescriptorContext?) {
        self.fd = fd
        self.closeOnInvalidate = closeOnInvalidate
        self.callout = callout
        self.releaseInfo = releaseInfo
        self.cContext = cContext
        super.init(kind: .fileDescriptor)
    }

    package var isValid: Bool { valid.load(ordering: .acquiring) }
    package var enabledCallBacks: UInt { enabled.load(ordering: .acquiring) }

    package func enableCallBacks(_ types: UInt) {
        enabled.bitwiseOr(types & (Self.readCallBack | Self.writeCallBack), ordering: .acquiringAndReleasing)
        updateInterest()
    }

    package func disableCallBacks(_ types: UInt) {
        enabled.bitwiseAnd(~types, ordering: .acquiringAndReleasing)
        updateInterest()
    }

    private static func interest(_ types: UInt) -> UInt32 {
        (types & readCallBack != 0 ? EPOLLIN.rawValue : 0) | (types & writeCallBack != 0 ? EPOLLOUT.rawValue : 0)
    }

    /// Makes the source watch what is enabled (an epoll_ctl if that
    /// changed).  Threads racing here may store in either order, so each
    /// reads `enabled` again after its (acquiring) exchange and stores
    /// again if it changed: the last store is right.
    private func updateInterest() {
        guard let source = cachedSource.withLock({ $0 }) else { return }
        var wanted: UInt32
        repeat {
            wanted = isValid ? Self.interest(enabledCallBacks) : 0
            source.setInterest(wanted)
        } while wanted != (isValid ? Self.interest(enabledCallBacks) : 0)
    }

    /// The source delivering the callbacks, with one reference for the
    /// caller; the same source while it lives.  nil once invalid.
    package func runLoopSource(order: Int) -> Source? {
        guard isValid else { return nil }
        return cachedSource.withLock { cached -> Source? in
            if let source = cached, source.isValid,
               case .success = HandleTable.shared.retain(UInt(source.handle), kind: .source) {
                return source
            }
            let callbacks = SourceCallbacks(
                schedule: nil, cancel: nil, perform: {},
                release: { [self] in releaseRef() },
                describe: { [self] in "file descriptor \(fd)" },
                ready: { [self] events in handleReady(events) })
            let source = Source(order: order, callbacks: callbacks, descriptor: fd,
                                interest: Self.interest(enabledCallBacks))
            guard HandleTable.shared.register(source) else { return nil }
            retainRef()  // the source's reference to this object
            cached = source
            return source
        }
    }

    /// On the loop's thread: fires the enabled callbacks the events
    /// satisfy, disabling them first (one-shot, as in CF); whether it
    /// called out.  The disable is lazy: the fired types leave `enabled`,
    /// but the wait set follows only after the callout, so one that
    /// re-enables (CF's pattern) makes no epoll_ctl, one that does not
    /// makes one before the pass ends.  Level-triggered makes that free
    /// (EPOLLONESHOT re-arms with an epoll_ctl per enable; edge-triggered
    /// loses "data left unread calls out again once re-enabled").  A run
    /// nested in the callout may find it ready but disabled: no callout,
    /// nothing handled, and the watch stops.
    private func handleReady(_ events: UInt32) -> Bool {
        guard isValid else { return false }
        let failed = events & (EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
        let types = enabledCallBacks
        var fired: UInt = 0
        if types & Self.readCallBack != 0 && (events & EPOLLIN.rawValue != 0 || failed) { fired |= Self.readCallBack }
        if types & Self.writeCallBack != 0 && (events & EPOLLOUT.rawValue != 0 || failed) { fired |= Self.writeCallBack }
        guard fired != 0 else {
            updateInterest()  // ready but disabled: the lazy disable catches up
            return false
        }
        let called: Void? = gate.callOut({
            enabled.bitwiseAnd(~fired, ordering: .acquiringAndReleasing)
            callout(self, fired)
        }, release: { releaseInfo?() })
        guard called != nil else { return false }
        if enabledCallBacks & fired != fired { updateInterest() }
        return true
    }

    /// Invalidates the source, closes the descriptor if asked to, releases
    /// info.  Idempotent.
    package func invalidate() {
        guard valid.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let source = cachedSource.withLock { cached -> Source? in
            defer { cached = nil }
            return cached
        }
        source?.invalidate()  // leaves every loop: the descriptor is no longer watched
        if closeOnInvalidate { Glibc.close(fd) }
        // Now, or when a callout in flight on a loop returns (CalloutGate).
        gate.askRelease { releaseInfo?() }
    }

    override package func finalize() { invalidate() }
}
