import CRunLoopShims
import Glibc

/// Accepting in a process out of descriptors (or memory), for a listener
/// watched through its owner's private epoll set (a local message port's,
/// an accepting RLSocket's).
///
/// accept() then fails and the connection stays pending, so the listener
/// stays readable: watched level-triggered, it would be reported on every
/// pass and the loop would spin.  Instead the owner takes the listener out
/// of its set for `interval` (or until it knows a descriptor was freed);
/// this value's timerfd, in the same set, ends the pause.  The shortage is
/// reported once per episode: from the first failure to the next accepted
/// connection, however many pauses that takes.
///
/// A value kept under its owner's lock; the owner closes `timerFD` when
/// its set is closed.
package struct AcceptBackoff {
    /// How long accepting pauses.
    package static let interval: UInt64 = 100_000_000

    /// Ends a pause; the owner may also arm it to fire at once, to get
    /// another pass (`timerFired` tells the two apart).
    package let timerFD: Int32
    /// When the pause ends (monotonic ns); 0 while accepting.
    private var until: UInt64 = 0
    /// The shortage of this episode was reported.
    private var reported = false

    /// With a new timerfd; nil (errno set) when the system refuses one.
    package init?() {
        timerFD = rl_timerfd()
        guard timerFD >= 0 else { return nil }
    }

    /// Whether the listener is out of the set, waiting for the timer.
    package var isPaused: Bool { until != 0 }

    /// A failed accept that leaves the connection pending for lack of
    /// descriptors or memory (and so outlasts a retry).
    package static func isShortage(_ error: Int32) -> Bool { ErrorCode.system(error) == .resources }

    /// accept() failed with `error` (a shortage): pauses until the
    /// interval has passed, the timer armed.  The text to report, for the
    /// episode's first failure (report it once the owner's lock is
    /// released: the error handler is user code); nil after that.
    package mutating func pause(_ error: Int32, accepting what: String) -> String? {
        until = rl_monotonic_ns() + Self.interval
        _ = rl_timerfd_arm(timerFD, until)
        guard !reported else { return nil }
        reported = true
        return "cannot accept a connection to \(what): \(String(cString: strerror(error))); "
            + "waiting for a free descriptor (tried again every \(Self.interval / 1_000_000) ms)"
    }

    /// The timer fired (it is drained): true when a pause is over and the
    /// listener goes back in the set.  A timer that fired early (armed at
    /// once by the owner) is armed again for the pause's end.
    package mutating func timerFired() -> Bool {
        rl_drain_counter(timerFD)
        guard until != 0 else { return false }
        guard rl_monotonic_ns() >= until else {
            _ = rl_timerfd_arm(timerFD, until)
            return false
        }
        until = 0
        return true
    }

    /// Ends a pause now (a descriptor was freed, or the listener
    /// replaced); the episode goes on until a connection is accepted.
    package mutating func resume() { until = 0 }

    /// A connection was accepted: the shortage is over, the next one is
    /// reported again.
    package mutating func accepted() { reported = false }
}
