import CRunLoop
import CRunLoopShims
import Glibc
import Synchronization

/// A Unix signal caught and delivered through a version-1 run loop source
/// (watch.h).  Its source watches an eventfd of its own, which the
/// process-wide handler writes when the signal arrives (SignalHandler).
package final class SignalWatch: Object, @unchecked Sendable {
    package let signal: Int32
    package let cContext: RLSignalContext?
    private let callout: (SignalWatch, Int32, Int) -> Void
    private let releaseInfo: (() -> Void)?
    /// The eventfd the handler writes, and its slot in the handler's table.
    private let wake: (fd: Int32, slot: Int)
    /// The arrival count (SignalHandler.arrived) already delivered.
    private let seen: Atomic<UInt64>

    private let valid = Atomic<Bool>(true)
    /// Orders its callouts before the release of its info (CalloutGate);
    /// the eventfd is closed with the info, so no callout reads a closed
    /// (or reused) descriptor.
    private let gate = CalloutGate()
    /// The run loop source, made on first request (as FileDescriptor's).
    private let cachedSource = Guarded<Source?>(nil)

    /// Takes over a watch begun by `SignalHandler.watch`.
    package init(signal: Int32, watch: SignalHandler.Watch, callout: @escaping (SignalWatch, Int32, Int) -> Void,
                 releaseInfo: (() -> Void)?, cContext: RLSignalContext?) {
        self.signal = signal
        wake = (watch.fd, watch.slot)
        seen = Atomic(watch.seen)
        self.callout = callout
        self.releaseInfo = releaseInfo
        self.cContext = cContext
        super.init(kind: .signal)
    }

    package var isValid: Bool { valid.load(ordering: .acquiring) }
    package var descriptor: Int32 { wake.fd }

    /// The source delivering the callouts, with one reference for the
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
                describe: { [self] in "signal \(signal)" },
                ready: { [self] _ in handleReady() })
            let source = Source(order: order, callbacks: callbacks, descriptor: wake.fd, interest: EPOLLIN.rawValue)
            guard HandleTable.shared.register(source) else { return nil }
            retainRef()  // the source's reference to this object
            cached = source
            return source
        }
    }

    /// On the loop's thread: empties the eventfd, then delivers the
    /// arrivals counted since the last callout.  Emptying first loses
    /// nothing: the handler counts before it writes, so an arrival this
    /// load misses writes the eventfd after it was emptied, and the loop
    /// wakes again (a wake with nothing new calls nothing).  Returns
    /// whether it called out (a pass that did not handled no source).
    private func handleReady() -> Bool {
        gate.callOut({ () -> Bool in
            guard isValid else { return false }
            rl_drain_counter(wake.fd)
            let now = SignalHandler.arrivals(signal)
            let count = now &- seen.exchange(now, ordering: .acquiringAndReleasing)
            guard count != 0 else { return false }
            callout(self, signal, Int(truncatingIfNeeded: count))
            return true
        }, release: { closeAndRelease() }) ?? false
    }

    private func closeAndRelease() {
        Glibc.close(wake.fd)
        releaseInfo?()
    }

    /// Stops catching (the disposition comes back with the signal's last
    /// watch), invalidates the source; the eventfd is closed and the info
    /// released now or when a callout in flight returns.  Idempotent.
    package func invalidate() {
        guard valid.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let source = cachedSource.withLock { cached -> Source? in
            defer { cached = nil }
            return cached
        }
        source?.invalidate()
        SignalHandler.unwatch(signal, slot: wake.slot)
        gate.askRelease { closeAndRelease() }
    }

    override package func finalize() { invalidate() }
}
