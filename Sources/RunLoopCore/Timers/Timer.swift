import CRunLoop
import Synchronization

/// When a timer fires next, and which loop it belongs to.  Readable and
/// writable from any thread (under the timer's stripe lock).
package struct TimerSchedule {
    /// The loop it belongs to while it is in one of its modes or common items.
    package var tie = LoopTie()
    package var loop: Loop? { tie.loop }
    /// Bumped whenever `deadline` is set: a firing tells from it whether
    /// its callout moved the timer.  (32 bits, packed after `tie`.)
    package var epoch: UInt32 = 0
    /// The next fire date as the API reports it (absolute time).
    package var fireDate: Double
    /// The same moment on the monotonic clock (ns); `Clock.never` if none.
    package var deadline: UInt64
}

/// A mode of its loop holding a timer, and the timer's slot in it (see
/// ModeTimers).  12 bytes: a slot per timer, and there are at most 2^26
/// handles (HandleTable), so slots stay far below 2^31.
package struct TimerPlacement {
    package let mode: Unmanaged<Mode>
    private let slotIndex: Int32
    package var slot: Int { Int(slotIndex) }

    package init(mode: Unmanaged<Mode>, slot: Int) {
        self.mode = mode
        slotIndex = Int32(truncatingIfNeeded: slot)
    }

    func isIn(_ mode: Mode) -> Bool { self.mode.toOpaque() == Unmanaged.passUnretained(mode).toOpaque() }
}

/// What few timers have: a repeat interval, an order, a tolerance, a place
/// in more than one mode of their loop.  Kept out of the timer, which then
/// fits a 128-byte heap block (one that malloc's fast bins take back
/// cheaply when a burst of timers is freed): made when the timer is created
/// with an interval or an order, or first needs the rest; never replaced;
/// freed with the timer.
package final class TimerExtras: @unchecked Sendable {
    let interval: Double
    let order: Int
    /// The tolerance in seconds (the bits of a Double), as stored: at most
    /// half the interval if it repeats.  Readable without any lock (the
    /// loop reads the window it gives while choosing when to wake).
    let toleranceBits = Atomic<UInt64>(0)
    /// The timer's placements after the first (Timer.firstPlacement).
    /// Guarded by the owning loop's lock; @exclusivity(unchecked): that
    /// lock makes the accesses exclusive (docs/design.md, "Exclusivity
    /// checks").
    @exclusivity(unchecked) var morePlacements: [TimerPlacement] = []

    init(interval: Double, order: Int) {
        self.interval = interval
        self.order = order
    }
}

/// What a timer calls when it fires.
package enum TimerCallout {
    /// A C callback and its info, from a context with no callbacks.  A
    /// NULL callback is skipped (CF makes such a timer: a placeholder).
    case function(RLRunLoopTimerCallBack?, UnsafeMutableRawPointer?)
    /// A C callback and a context with callbacks (its info held for the
    /// call when the context has a retain, as CF does), version 0.
    case context(RLRunLoopTimerCallBack?, Boxed<RLRunLoopTimerContext>)
    /// A Swift closure (RunLoopKit, block handlers).
    case closure((Timer) -> Void)

    /// The callout for a C callback and its context: the info alone
    /// unless the context has a callback.
    package static func function(_ callback: RLRunLoopTimerCallBack?, _ c: RLRunLoopTimerContext) -> TimerCallout {
        if c.retain == nil && c.release == nil && c.copyDescription == nil { return .function(callback, c.info) }
        var context = c
        context.version = 0  // what RLRunLoopTimerGetContext reports, as CF
        return .context(callback, Boxed(context))
    }
}

/// A timer: fires at its fire date, then every `interval` seconds if it
/// repeats.  Belongs to one loop at a time.
package final class Timer: Object, @unchecked Sendable {
    // The fields are in this order so that the two flags fill the end of
    // Object's last word, `gate` the padding after `action`'s tag, and the
    // instance stays within a 128-byte heap block (aTimerFitsIn128Bytes).
    private let valid = Atomic<Bool>(true)
    /// True while its callout runs (so a nested run does not fire it, and
    /// a move or an add waits for the reschedule after the callout).
    /// Written by the firing loop's thread under its lock; read under the
    /// lock of the loop the timer is added to or moved in.
    private let firingFlag = Atomic<Bool>(false)
    /// Its TimerExtras, once made (PublishedOnce: made by whichever thread
    /// first needs them, read with no reference counted).  None for a
    /// one-shot timer of order 0 that never had a tolerance or a second
    /// mode.  Attacked by test_rl_timer_extras (three threads making them
    /// for the same timer).
    private let extras: PublishedOnce<TimerExtras>
    private let action: TimerCallout
    /// Orders its callouts before the release of its info (CalloutGate).
    private let gate = CalloutGate()
    /// Guarded by the timer's stripe (see Stripes): only in `withSchedule`.
    /// This and `firstPlacement` are @exclusivity(unchecked): their locks
    /// make the accesses exclusive (docs/design.md, "Exclusivity checks").
    @exclusivity(unchecked) private var schedule: TimerSchedule
    /// The first mode of its loop holding it (nearly every timer is in one
    /// mode); the others are in its extras.  Guarded by the owning loop's
    /// lock; a mode outlives the placements naming it (modes live as long
    /// as their loop, and a loop's teardown removes every timer).
    @exclusivity(unchecked) private var firstPlacement: TimerPlacement?

    package init(fireDate: Double, interval: Double, order: Int, callout: TimerCallout) {
        let repeating = interval > 0
        extras = repeating || order != 0
            ? PublishedOnce(TimerExtras(interval: repeating ? interval : 0, order: order)) : PublishedOnce()
        self.action = callout
        let date = Clock.clampedFireDate(fireDate)
        schedule = TimerSchedule(fireDate: date, deadline: Clock.deadline(forFireDate: date))
        super.init(kind: .timer)
    }

    private func withMadeExtras<T>(_ body: (TimerExtras) -> T) -> T {
        extras.withMade({ TimerExtras(interval: 0, order: 0) }, body)
    }

    /// Its repeat interval in seconds; 0 if it does not repeat.
    package var interval: Double { extras.with { $0.interval } ?? 0 }
    package var order: Int { extras.with { $0.order } ?? 0 }

    /// The C context it was created with, if any.
    package var cContext: RLRunLoopTimerContext? {
        switch action {
        case .function(_, let info):
            var c = RLRunLoopTimerContext()
            c.info = info
            return c
        case .context(_, let box): return box.value
        case .closure: return nil
        }
    }

    /// Reads or edits the schedule under the timer's stripe lock.
    @inline(__always)
    package func withSchedule<T>(_ body: (inout TimerSchedule) throws -> T) rethrows -> T {
        try Stripes.withLock(self) { try body(&schedule) }
    }

    package var repeats: Bool { interval > 0 }
    /// The step between two fire dates in ns: the interval, at most
    /// `Clock.maxTimerStep` (as CF), at least 1 ns; 0 if it does not repeat.
    package var intervalNs: UInt64 { repeats ? max(1, Clock.nanoseconds(min(interval, Clock.maxTimerStep))) : 0 }
    package var isValid: Bool { valid.load(ordering: .acquiring) }
    package var firing: Bool {
        get { firingFlag.load(ordering: .relaxed) }
        set { firingFlag.store(newValue, ordering: .relaxed) }
    }
    package var owner: Loop? { withSchedule { $0.loop } }
    /// 0 once it is invalid (as CF).
    package var nextFireDate: Double { isValid ? withSchedule { $0.fireDate } : 0 }

    package var tolerance: Double {
        get { extras.with { Double(bitPattern: $0.toleranceBits.load(ordering: .relaxed)) } ?? 0 }
        set {
            // At most half the interval for a repeating timer (Darwin's CF).
            let stored = repeats ? min(newValue, interval / 2) : newValue
            // None stored yet and none to store: no extras needed.
            if stored.bitPattern == 0 && !extras.isMade { return }
            let old = withMadeExtras { Double(bitPattern: $0.toleranceBits.exchange(stored.bitPattern, ordering: .relaxed)) }
            // A sleeping loop may have chosen a wake-up past the new window.
            if window(of: stored) < window(of: old) { owner?.wakeUp() }
        }
    }

    /// How late it may fire (ns): its tolerance, at most half its
    /// interval if it repeats.
    package var windowNs: UInt64 { window(of: tolerance) }

    private func window(of tolerance: Double) -> UInt64 {
        let ns = Clock.nanoseconds(tolerance)
        return repeats ? min(ns, intervalNs / 2) : ns
    }

    // MARK: placements (the owning loop's lock held)

    /// How many modes of its loop hold it.
    package var placementCount: Int {
        firstPlacement == nil ? 0 : 1 + (extras.with { $0.morePlacements.count } ?? 0)
    }

    /// Its placement in `mode`, if the mode holds it.
    package func placement(in mode: Mode) -> TimerPlacement? {
        guard let first = firstPlacement else { return nil }
        if first.isIn(mode) { return first }
        return extras.with { $0.morePlacements.first { $0.isIn(mode) } } ?? nil
    }

    package func forEachPlacement(_ body: (Mode, Int) -> Void) {
        guard let first = firstPlacement else { return }
        first.mode._withUnsafeGuaranteedRef { body($0, first.slot) }
        extras.with { extras in
            for p in extras.morePlacements { p.mode._withUnsafeGuaranteedRef { body($0, p.slot) } }
        }
    }

    package func insertPlacement(_ placement: TimerPlacement) {
        if firstPlacement == nil {
            firstPlacement = placement
        } else {
            withMadeExtras { $0.morePlacements.append(placement) }
        }
    }

    /// Takes its placement in `mode` out, if the mode holds it.
    package func removePlacement(from mode: Mode) -> TimerPlacement? {
        guard let first = firstPlacement else { return nil }
        if first.isIn(mode) {
            firstPlacement = extras.with { $0.morePlacements.popLast() } ?? nil
            return first
        }
        return extras.with { extras in
            guard let i = extras.morePlacements.firstIndex(where: { $0.isIn(mode) }) else { return nil }
            return extras.morePlacements.remove(at: i)
        } ?? nil
    }

    /// Takes every placement out, then calls `body` with each.
    package func removeAllPlacements(_ body: (Mode, Int) -> Void) {
        guard let first = firstPlacement else { return }
        firstPlacement = nil
        var more: [TimerPlacement] = []
        extras.with { swap(&more, &$0.morePlacements) }
        first.mode._withUnsafeGuaranteedRef { body($0, first.slot) }
        for p in more { p.mode._withUnsafeGuaranteedRef { body($0, p.slot) } }
    }

    /// Calls the timer's callback (no lock held), unless its info's
    /// release was asked for; an invalidation by another thread meanwhile
    /// releases the info after it returns (CalloutGate).
    package func fire() {
        // Only a context's info has a release to order after the callout
        // (the gate); the others skip an invalidated timer as the gate would.
        guard case .context(let callback, let box) = action else {
            guard isValid else { return }
            if case .function(let callback, let info) = action { callback?(opaque, info) }
            if case .closure(let body) = action { body(self) }
            return
        }
        _ = gate.callOut({
            let context = box.value
            // As CF: the info is retained around the callout only when
            // the context has a retain, and only such a retain is balanced.
            if let retain = context.retain {
                let held = UnsafeMutableRawPointer(mutating: retain(context.info))
                callback?(opaque, held)
                context.release?(held)
            } else {
                callback?(opaque, context.info)
            }
        }, release: { releaseInfo() })
    }

    /// The context's description of its info (its copyDescription, user
    /// code: call with no lock held), if it has one and the info is not
    /// released: the call holds the info as a callout does.
    package func describeInfo() -> String? {
        guard case .context(_, let box) = action, let copy = box.value.copyDescription else { return nil }
        let info = box.value.info
        return gate.callOut({ copyInfoDescription(copy, info) }, release: { releaseInfo() }) ?? nil
    }

    /// Moves the next fire date; the owning loop re-sorts it.  Ignored
    /// once the timer is invalid (as CF).
    package func setNextFireDate(_ date: Double) {
        guard isValid else { return }
        let date = Clock.clampedFireDate(date)
        let loop = withSchedule { s -> Loop? in
            s.fireDate = date
            s.deadline = Clock.deadline(forFireDate: date)
            s.epoch &+= 1
            return s.loop
        }
        loop?.timerMoved(self)
    }

    /// After a firing that was not edited by the callout: the first slot
    /// of the original schedule later than `now` (missed slots are
    /// skipped, never fired in a burst).  Call inside `withSchedule`.
    /// Returns how many slots it moved (1 when none was missed).
    @discardableResult
    package static func advance(_ s: inout TimerSchedule, interval: Double, intervalNs: UInt64, now: UInt64) -> UInt64 {
        guard s.deadline != Clock.never else { return 0 }
        var slots: UInt64 = 1
        if s.deadline <= now { slots = (now - s.deadline) / intervalNs + 1 }
        let (step, o1) = slots.multipliedReportingOverflow(by: intervalNs)
        let (next, o2) = s.deadline.addingReportingOverflow(step)
        s.deadline = o1 || o2 ? Clock.never : next
        // From the deadline, not the old date + slots × interval: a date in
        // the past (or −∞) was scheduled from the moment it was set.
        s.fireDate = Clock.fireDate(forDeadline: s.deadline)
        s.epoch &+= 1
        return slots
    }

    /// Removes it from its loop and releases its info (as CF does).
    package func invalidate() {
        guard markInvalid() else { return }
        owner?.removeEverywhere(self)
        releaseInfoOnce()
    }

    /// Marks it invalid; true for the one caller that did.
    package func markInvalid() -> Bool {
        valid.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Calls the context's release once (no lock held): now, or when a
    /// callout in flight returns (CalloutGate).
    package func releaseInfoOnce() {
        guard case .context = action else { return }  // nothing to release
        gate.askRelease { releaseInfo() }
    }

    private func releaseInfo() {
        if case .context(_, let box) = action { box.value.release?(box.value.info) }
    }

    package override func finalize() {
        valid.store(false, ordering: .releasing)
        releaseInfoOnce()
    }
}
