import CRunLoopShims
import Glibc

/// Spin, then sleep (Poller.wait): when a loop's recent waits were ended
/// by a wake-up within `limitNs`, it polls its state word (state 4,
/// spinning) for up to that long before entering epoll_wait, so a quick
/// wake-up costs neither side a syscall nor a scheduler round trip (a
/// cross-thread round trip drops from two wake-up latencies to two
/// cache-line transfers).  Waits ended by a descriptor, a timer or a
/// timeout, or longer than the limit, turn it off again, so an idle loop,
/// a timer-driven loop or a loop fed by descriptors never spins.
/// RUNLOOP_SPIN_US sets the limit (default 50, or 0 when the process may
/// run on one CPU only; 0 turns spinning off).
///
/// It earns its place in floods: with spinning off, a producer's wake-up
/// finds the loop asleep and writes the eventfd.
///
/// Loop thread only: a value in the poller's `@exclusivity(unchecked)`
/// var (see design.md, "Exclusivity checks").
/// Device: see docs/performance.md, "The engine's devices".
struct SpinBeforeSleep {
    /// The spin limit (ns), read once per process.  0 when the process may
    /// run on one CPU only: the thread that would wake the loop could not
    /// run while it spins.
    static let limitNs: UInt64 = {
        if let text = getenv("RUNLOOP_SPIN_US"), let us = UInt64(String(cString: text)) {
            return min(us, 10_000) * 1_000
        }
        return rl_cpus_available() > 1 ? 50_000 : 0
    }()
    /// A moving average of how long waits took to end by a wake-up (other
    /// endings count as long).
    private var typicalWaitNs: UInt64 = .max / 4
    /// Whether the last wait spun to its limit and then slept.
    private var ranOut = false

    /// When a wait begins, for `sleep` and `waited` (0 with spinning off:
    /// no clock reading).
    static func waitBegins() -> UInt64 { limitNs > 0 ? Clock.monotonicNow() : 0 }

    /// Moves `state` to asleep (2) for epoll_wait, first spinning in
    /// state 4 when wake-ups have been arriving quickly.  False if a
    /// wake-up is pending instead: epoll_wait must only look.
    mutating func sleep(_ state: HotWord, until deadline: UInt64, began: UInt64) -> Bool {
        ranOut = false
        let limit = Self.limitNs
        if limit > 0, typicalWaitNs < limit, deadline > began &+ limit,
           state.compareExchange(expected: Poller.awake, desired: Poller.spinning).exchanged {
            let end = began + limit
            var spins = 0
            while state.load() == Poller.spinning {
                rl_cpu_relax()
                spins += 1
                if spins & 15 == 0 && Clock.monotonicNow() >= end { break }
            }
            let sleeps = state.compareExchange(expected: Poller.spinning, desired: Poller.asleep).exchanged
            ranOut = sleeps
            return sleeps
        }
        return state.compareExchange(expected: Poller.awake, desired: Poller.asleep).exchanged
    }

    /// Records how long the wait that began at `began` took, and whether
    /// a wake-up ended it (after epoll_wait returned; spinning on).
    mutating func waited(since began: UInt64, byWakeUp: Bool) {
        let took = Clock.monotonicNow() &- began
        // A spin that ran out counts as very long: the waker is not
        // coming soon (or cannot run while this thread spins), so
        // several quick waits must follow before the next spin.
        let sample = ranOut ? 8 * Self.limitNs : byWakeUp ? took : max(took, 4 * Self.limitNs)
        typicalWaitNs = typicalWaitNs - typicalWaitNs / 4 + sample / 4
    }
}
