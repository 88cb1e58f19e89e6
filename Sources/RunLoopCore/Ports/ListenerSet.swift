import CRunLoopShims
import Glibc

/// A private epoll set holding a listening socket, which pauses accepting
/// while the process is out of descriptors (or memory).  The set of an
/// accepting RLSocket, and of a local message port (which adds its
/// connections, with tokens between `listenerToken` and `timerToken`); a
/// run-loop source watches `fd`.
///
/// accept() then fails and the connection stays pending, so the listener
/// stays readable: watched level-triggered, it would be reported on every
/// pass and the loop would spin.  Instead the listener leaves the set (for
/// reading) for `pauseInterval`, or until its owner knows a descriptor was
/// freed; the set's timerfd ends the pause.  The shortage is reported once
/// per episode: from the first failure to the next accepted connection,
/// however many pauses that takes.
///
/// Touched only under its owner's lock; the descriptors close with it.
package final class ListenerSet {
    /// How long accepting pauses.
    package static let pauseInterval: UInt64 = 100_000_000
    package static let listenerToken: UInt64 = 0
    private static let timerToken: UInt64 = .max

    /// The epoll set.
    package let fd: Int32
    /// Ends a pause; `requestPass` arms it to fire at once.
    private let timerFD: Int32
    /// The listener (-1: none), the events its owner wants on it, and the
    /// events the set watches (0: not in the set).
    private var listener: Int32 = -1
    private var wanted: UInt32 = 0
    private var watched: UInt32 = 0
    /// When the pause ends (monotonic ns); 0 while accepting.
    private var until: UInt64 = 0
    /// The shortage of this episode was reported.
    private var reported = false

    /// A new set with its timer; nil (errno set) when the system refuses a
    /// descriptor.
    package init?() {
        let set = rl_epoll_create()
        guard set >= 0 else { return nil }
        let timer = rl_timerfd()
        guard timer >= 0 else {
            let error = errno
            close(set)
            errno = error
            return nil
        }
        _ = rl_epoll_add(set, timer, EPOLLIN.rawValue, Self.timerToken)
        fd = set
        timerFD = timer
    }

    deinit {
        close(timerFD)
        close(fd)
    }

    /// Whether accepting pauses (the listener is not watched for reading).
    package var isPaused: Bool { until != 0 }

    /// A failed accept that leaves the connection pending for lack of
    /// descriptors or memory (and so outlasts a retry).
    package static func isShortage(_ error: Int32) -> Bool { ErrorCode.system(error) == .resources }

    /// Watches `listener` (-1: none) for `events`, for reading only while
    /// accepting does not pause.  A listener replaced leaves the set first
    /// (call this before closing it).
    package func watch(_ listener: Int32, _ events: UInt32) {
        if listener != self.listener && watched != 0 {
            _ = rl_epoll_del(fd, self.listener)
            watched = 0
        }
        self.listener = listener
        wanted = listener >= 0 ? events : 0
        apply()
    }

    private func apply() {
        let events = isPaused ? wanted & ~EPOLLIN.rawValue : wanted
        guard events != watched else { return }
        let rc = events == 0 ? rl_epoll_del(fd, listener)
            : watched == 0 ? rl_epoll_add(fd, listener, events, Self.listenerToken)
            : rl_epoll_mod(fd, listener, events, Self.listenerToken)
        if rc == 0 || events == 0 { watched = events }
    }

    /// accept() failed with `error` (a shortage): pauses until the interval
    /// has passed.  The text to report, for the episode's first failure
    /// (report it once the owner's lock is released: the error handler is
    /// user code); nil after that.
    package func pause(_ error: Int32, accepting what: String) -> String? {
        until = rl_monotonic_ns() + Self.pauseInterval
        _ = rl_timerfd_arm(timerFD, until)
        apply()
        guard !reported else { return nil }
        reported = true
        return "cannot accept a connection to \(what): \(String(cString: strerror(error))); "
            + "waiting for a free descriptor (tried again every \(Self.pauseInterval / 1_000_000) ms)"
    }

    /// Ends a pause now (a descriptor was freed, or the listener replaced);
    /// the episode goes on until a connection is accepted.
    package func resume() {
        until = 0
        apply()
    }

    /// A connection was accepted: the shortage is over, the next one is
    /// reported again.
    package func accepted() { reported = false }

    /// Asks for another pass: the set becomes readable at once.
    package func requestPass() { _ = rl_timerfd_arm(timerFD, 1) }

    /// Takes up to `batch` events from the set without waiting, and hands
    /// those of the listener and the owner's descriptors to `body`.  The
    /// timer's ends a pause whose time is up (one that fired early, for a
    /// pass, is armed again for the pause's end).
    package func collect(batch: Int, _ body: (_ token: UInt64, _ events: UInt32) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: batch) { tokens in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: batch) { events in
                let n = Int(rl_epoll_wait(fd, tokens.baseAddress!, events.baseAddress!, Int32(batch), 0))
                for i in 0..<max(n, 0) {
                    if tokens[i] == Self.timerToken { timerFired() } else { body(tokens[i], events[i]) }
                }
            }
        }
    }

    private func timerFired() {
        rl_drain_counter(timerFD)
        guard until != 0 else { return }
        guard rl_monotonic_ns() >= until else {
            _ = rl_timerfd_arm(timerFD, until)
            return
        }
        resume()
    }
}
