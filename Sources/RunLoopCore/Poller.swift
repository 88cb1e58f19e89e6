import CRunLoopShims
import Glibc
import Synchronization

/// The only code that touches epoll: a loop's wait set holding its wake-up
/// eventfd and its timerfd.  The loop sleeps in `wait` and nowhere else.
///
/// Wake-ups coalesce through `state`: 0 = awake, 1 = a wake-up is pending,
/// 2 = asleep in epoll_wait, 3 = ignoring wake-ups.  `wakeUp()` writes the
/// eventfd only when it moves the state from asleep to pending; a burst of
/// calls while the loop is awake costs one compare-and-swap each and no
/// syscall, and makes the loop's next sleep return at once.
///
/// As in CF, wake-ups are ignored while the loop is not running and from
/// the moment it wakes until the top of its next pass: that pass looks at
/// every source and block anyway, so nothing queued before it is missed.
package final class Poller: @unchecked Sendable {
    private static let wakeToken: UInt64 = 1
    private static let timerToken: UInt64 = 2

    private let epollFD: Int32
    private let wakeFD: Int32
    private let timerFD: Int32
    private let state = Atomic<UInt8>(3)
    /// The deadline the timerfd is armed for; 0 when disarmed or expired.
    /// Loop thread only.
    private var armed: UInt64 = 0

    package init?() {
        let ep = rl_epoll_create(), wake = rl_eventfd(), timer = rl_timerfd()
        guard ep >= 0, wake >= 0, timer >= 0,
              rl_epoll_add(ep, wake, EPOLLIN.rawValue, Self.wakeToken) == 0,
              rl_epoll_add(ep, timer, EPOLLIN.rawValue, Self.timerToken) == 0
        else {
            for fd in [ep, wake, timer] where fd >= 0 { close(fd) }
            return nil
        }
        epollFD = ep
        wakeFD = wake
        timerFD = timer
    }

    package func shutdown() {
        Glibc.close(epollFD)
        Glibc.close(wakeFD)
        Glibc.close(timerFD)
    }

    package var isSleeping: Bool { state.load(ordering: .acquiring) == 2 }

    /// Makes the loop's current or next sleep return.  Any thread.
    package func wakeUp() {
        var current = state.load(ordering: .acquiring)
        while true {
            switch current {
            case 1, 3:
                return
            case 0:
                let (done, now) = state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing)
                if done { return }
                current = now
            default:
                let (done, now) = state.compareExchange(expected: 2, desired: 1, ordering: .acquiringAndReleasing)
                if done {
                    _ = rl_eventfd_signal(wakeFD)
                    return
                }
                current = now
            }
        }
    }

    /// Starts accepting wake-ups (run start, top of each pass).
    package func acceptWakeUps() {
        _ = state.compareExchange(expected: 3, desired: 0, ordering: .acquiringAndReleasing)
    }

    /// Stops accepting wake-ups (the outermost run ended).
    package func ignoreWakeUps() {
        state.store(3, ordering: .releasing)
    }

    /// Sleeps until `deadline` (monotonic ns; `Clock.never`: no limit), a
    /// wake-up, or (later) a ready descriptor.  With `poll`, only looks.
    /// A pending wake-up is consumed either way, and wake-ups are ignored
    /// from here until the next `acceptWakeUps()`.
    package func wait(until deadline: UInt64, poll: Bool) {
        if deadline != armed {
            _ = rl_timerfd_arm(timerFD, deadline == Clock.never ? 0 : max(deadline, 1))
            armed = deadline == Clock.never ? 0 : deadline
        }
        var timeout: Int32 = -1
        if poll {
            timeout = 0
        } else {
            acceptWakeUps()
            if !state.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged {
                timeout = 0  // a wake-up is pending
            }
        }
        var tokens = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let n = withUnsafeMutableBytes(of: &tokens) { buffer in
            rl_epoll_wait(epollFD, buffer.baseAddress!.assumingMemoryBound(to: UInt64.self), 4, timeout)
        }
        state.store(3, ordering: .releasing)
        guard n > 0 else { return }
        withUnsafeBytes(of: &tokens) { buffer in
            for i in 0..<Int(n) {
                switch buffer.load(fromByteOffset: i * 8, as: UInt64.self) {
                case Self.wakeToken:
                    rl_drain_counter(wakeFD)
                case Self.timerToken:
                    rl_drain_counter(timerFD)
                    armed = 0
                default:
                    break
                }
            }
        }
    }
}
