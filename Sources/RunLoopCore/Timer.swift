import CRunLoop
import Synchronization

/// When a timer fires next, and where it is scheduled.
package struct TimerSchedule {
    /// The loop it belongs to while it is in one of its modes or common items.
    package var tie = LoopTie()
    package var loop: Loop? { tie.loop }
    /// The next fire date as the API reports it (absolute time).
    package var fireDate: Double
    /// The same moment on the monotonic clock (ns); `Clock.never` if none.
    package var deadline: UInt64
    /// Bumped whenever `deadline` changes: heap entries carrying an older
    /// epoch are stale and skipped.
    package var epoch: UInt64 = 0
    package var tolerance: Double = 0
    /// True while its callout runs (so a nested run does not fire it).
    package var firing = false

    /// A heap entry for the current deadline (the loop sets its sequence).
    package func entry(for timer: LoopTimer) -> TimerHeap.Entry {
        TimerHeap.Entry(deadline: deadline, seq: 0, epoch: epoch, timer: timer)
    }
}

/// A timer: fires at its fire date, then every `interval` seconds if it
/// repeats.  Belongs to one loop at a time.
package final class LoopTimer: Handled, @unchecked Sendable {
    package let interval: Double
    package let intervalNs: UInt64
    package let order: Int
    package let callout: (LoopTimer) -> Void
    private let releaseInfo: (() -> Void)?
    package let cContext: RLRunLoopTimerContext?

    private let valid = Atomic<Bool>(true)
    /// How late it may fire (ns): its tolerance, at most half its interval
    /// if it repeats.  Readable without any lock (the loop reads it while
    /// choosing when to wake).
    private let window = Atomic<UInt64>(0)
    private let infoReleased = Atomic<Bool>(false)
    /// Guarded by its own lock, taken inside the owning loop's lock.
    package let schedule: Locked<TimerSchedule>

    package init(fireDate: Double, interval: Double, order: Int, callout: @escaping (LoopTimer) -> Void,
         releaseInfo: (() -> Void)?, cContext: RLRunLoopTimerContext?) {
        let repeating = interval > 0
        self.interval = repeating ? interval : 0
        self.intervalNs = repeating ? max(1, Clock.nanoseconds(interval)) : 0
        self.order = order
        self.callout = callout
        self.releaseInfo = releaseInfo
        self.cContext = cContext
        schedule = Locked(TimerSchedule(fireDate: fireDate, deadline: Clock.deadline(forFireDate: fireDate)))
        super.init(kind: .timer)
    }

    package var repeats: Bool { intervalNs != 0 }
    package var isValid: Bool { valid.load(ordering: .acquiring) }
    package var owner: Loop? { schedule.withLock { $0.loop } }
    package var nextFireDate: Double { schedule.withLock { $0.fireDate } }

    package var tolerance: Double {
        get { schedule.withLock { $0.tolerance } }
        set {
            var ns = Clock.nanoseconds(newValue)
            if repeats { ns = min(ns, intervalNs / 2) }
            let (loop, narrower) = schedule.withLock { s -> (Loop?, Bool) in
                s.tolerance = newValue
                return (s.loop, ns < window.exchange(ns, ordering: .relaxed))
            }
            // A sleeping loop may have chosen a wake-up past the new window.
            if narrower { loop?.wakeUp() }
        }
    }

    /// The width of its firing window in ns (see `window`).
    package var windowNs: UInt64 { window.load(ordering: .relaxed) }

    /// Moves the next fire date; the owning loop re-sorts it.
    package func setNextFireDate(_ date: Double) {
        let loop = schedule.withLock { s -> Loop? in
            s.fireDate = date
            s.deadline = Clock.deadline(forFireDate: date)
            s.epoch &+= 1
            return s.loop
        }
        loop?.timerMoved(self)
    }

    /// After a firing that was not edited by the callout: the first slot
    /// of the original schedule later than `now` (missed slots are
    /// skipped, never fired in a burst).  Call with `schedule` locked.
    /// Returns how many slots it moved (1 when none was missed).
    @discardableResult
    package static func advance(_ s: inout TimerSchedule, interval: Double, intervalNs: UInt64, now: UInt64) -> UInt64 {
        guard s.deadline != Clock.never else { return 0 }
        var slots: UInt64 = 1
        if s.deadline <= now { slots = (now - s.deadline) / intervalNs + 1 }
        let (step, o1) = slots.multipliedReportingOverflow(by: intervalNs)
        let (next, o2) = s.deadline.addingReportingOverflow(step)
        s.deadline = o1 || o2 ? Clock.never : next
        s.fireDate += Double(slots) * interval
        s.epoch &+= 1
        return slots
    }

    /// Removes it from its loop and releases its info (as CF does).
    package func invalidate() {
        guard valid.exchange(false, ordering: .acquiringAndReleasing) else { return }
        owner?.removeEverywhere(self)
        releaseInfoOnce()
    }

    private func releaseInfoOnce() {
        if !infoReleased.exchange(true, ordering: .acquiringAndReleasing) { releaseInfo?() }
    }

    package override func finalize() {
        valid.store(false, ordering: .releasing)
        releaseInfoOnce()
    }
}
