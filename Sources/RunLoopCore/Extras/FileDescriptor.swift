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

    /// Makes the source watch what is enabled: an epoll_ctl on each loop
    /// running a mode that holds it if that changed, else one exchange.
    /// Threads enabling and disabling at once may store their interests in
    /// either order, so each looks at `enabled` again after its store (an
    /// acquiring exchange, ordered after any store that came before it)
    /// and stores again if it changed meanwhile: the last store is right.
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
    /// called out.
    ///
    /// The disable is lazy.  The callbacks that fire are cleared from
    /// `enabled` (so none fires again unless re-enabled), but the source
    /// keeps watching the descriptor through the callout, and what it
    /// watches is brought in line with `enabled` after it.  A callout that
    /// re-enables what fired, CF's usual pattern, so leaves the wait set as
    /// it was with no epoll_ctl at all (an eager disable made two, a MOD
    /// off and a MOD back on).  A callout that does not re-enable costs one
    /// epoll_ctl after it, before the pass ends, so a disabled descriptor
    /// never wakes a later sleep.  Level-triggered registration is what
    /// makes this free: EPOLLONESHOT would need an epoll_ctl to re-arm on
    /// every enable, and edge-triggered would lose CF's rule that data left
    /// unread calls out again once re-enabled.  The one window where the
    /// wait set watches more than is enabled is the callout itself: a run
    /// nested in it (or another loop holding the source) may find the
    /// descriptor ready but disabled; that pass calls nothing out, reports
    /// nothing handled, and stops the watch at once.
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
        _ = gate.callOut({
            enabled.bitwiseAnd(~fired, ordering: .acquiringAndReleasing)
            callout(self, fired)
        }, release: { releaseInfo?() })
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
