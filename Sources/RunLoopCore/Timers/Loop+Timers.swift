import CRunLoopShims
import Synchronization

/// A timer's whole life in a loop: joining and leaving its modes, being
/// scheduled, firing (its callout trampoline, `callOutToTimer`, included)
/// and expiring.  What a mode holds of its timers is ModeTimers.
extension Loop {
    // MARK: joining and leaving modes

    /// `add` for a timer: no canonical item to look for (a timer is only
    /// ever itself), so a concrete mode goes straight to its insertion.
    package func add(timer: Timer, to name: ModeName) -> Result<Void, AddFailure> {
        if name.isCommonModes { return add(.timer(timer), to: name) }
        var deferred = Deferred()
        let result: Result<Void, AddFailure> = lock.withLock {
            isDead ? .failure(.loopGone) : insertTimerLocked(timer, into: name, &deferred)
        }
        deferred.run()
        return result
    }

    /// Puts a timer into one concrete mode (Loop.insertLocked's path for
    /// a timer): the ownership check and the tie to this loop are one
    /// stripe hold.  Lock held; the wake-up is deferred.
    func insertTimerLocked(_ timer: Timer, into name: ModeName, _ deferred: inout Deferred) -> Result<Void, AddFailure> {
        guard timer.isValid else { return .failure(.invalidItem) }
        // The mode's reference is a handle reference (ModeTimers): a timer
        // the full handle table gave no handle cannot be held.
        guard timer.handle != 0 else { return .failure(.outOfMemory) }
        // Tied to this loop in the same hold as the check and the read.
        let deadline: UInt64? = timer.withSchedule { s in
            guard s.tie.allows(self) else { return nil }
            s.tie.join(self)
            return s.deadline
        }
        guard let deadline else { return .failure(.wrongLoop) }
        let mode = modeLocked(name)
        // nil: already in the mode, nothing to add.  A firing timer is
        // scheduled in all its modes after its callout.
        let inserted: Result<Int, AddFailure>? = timer.placement(in: mode) != nil
            ? nil : mode.timers.insert(timer, scheduleAt: timer.firing ? nil : deadline)
        // Not inserted: no new membership.
        guard case .success(let slot) = inserted else {
            timer.withSchedule { $0.tie.leave(times: 1) }
            if case .failure(let failure) = inserted { return .failure(failure) }
            return .success(())
        }
        timer.insertPlacement(TimerPlacement(mode: Unmanaged.passUnretained(mode), slot: slot))
        // A loop asleep in this mode must re-arm for the new timer.
        // Or waited for in it from outside: the poll descriptor must report it.
        if (runs.last?.mode === mode && !isOwnThread) || (runs.isEmpty && parkedModeName == mode.name) {
            deferred.call { self.wakeUp() }
        }
        timer.retainRef()
        return .success(())
    }

    /// Takes a timer out of one mode (Loop.eraseLocked's path for a
    /// timer).  Lock held; `deferred` drops the mode's reference once
    /// unlocked.
    func eraseTimerLocked(_ timer: Timer, from mode: Mode, _ deferred: inout Deferred) {
        guard let placement = timer.removePlacement(from: mode) else { return }
        deferred.release(owned: mode.timers.remove(slot: placement.slot))
        timer.withSchedule { $0.tie.leave() }
    }

    /// Takes a timer out of every mode of this loop and out of its common
    /// items (Loop.removeEverywhereLocked's path for a timer, and the
    /// expiry's, with no type test): it knows its modes, so no walk over
    /// every mode.  Lock held; the reference drops are deferred.  Returns
    /// the loop the timer belongs to if that is another one (a callout
    /// moved it there), where nothing was removed.
    @discardableResult
    package func removeTimerEverywhereLocked(_ timer: Timer, _ deferred: inout Deferred) -> Loop? {
        let common = !commonItems.isEmpty && commonItems[ObjectIdentifier(timer)] != nil
        // One stripe hold: it is still this loop's (a callout may have
        // moved it to another loop, whose lock guards its placements then),
        // and it leaves every membership here.
        let owner = timer.withSchedule { s -> Loop? in
            guard s.loop === self else { return s.loop }
            s.tie.leave(times: Int32(timer.placementCount) + (common ? 1 : 0))
            return nil
        }
        if let owner { return owner }
        if common { _ = dropCommonLocked(ObjectIdentifier(timer), &deferred, untie: false) }
        timer.removeAllPlacements { mode, slot in
            deferred.release(owned: mode.timers.remove(slot: slot))
        }
        return nil
    }

    // MARK: schedule and firing

    /// Schedules a timer at `deadline` in every mode of this loop holding
    /// it, each entry behind those already there (FIFO).  Lock held.
    package func scheduleTimerLocked(_ timer: Timer, at deadline: UInt64) {
        timer.forEachPlacement { mode, slot in
            mode.timers.schedule(slot: slot, deadline: deadline)
        }
    }

    /// A timer's fire date changed (from any thread): schedule its new
    /// deadline in each of its modes and wake the loop so it re-arms.
    package func timerMoved(_ timer: Timer) {
        let wake: Bool = lock.withLock {
            // A timer in its callout is scheduled after it (its callout's
            // new date is kept).  It may have left this loop meanwhile.
            let (deadline, loop) = timer.withSchedule { ($0.deadline, $0.loop) }
            guard !timer.firing, loop === self else { return false }
            scheduleTimerLocked(timer, at: deadline)
            if let run = runs.last { return timer.placement(in: run.mode) != nil && !isOwnThread }
            // Waited for from outside: the poll descriptor must report it.
            return parkedMode.map { timer.placement(in: $0) != nil } ?? false
        }
        if wake { wakeUp() }
    }

    /// The earliest fire date of the mode's valid timers, or 0.
    package func nextTimerFireDate(in name: ModeName) -> Double {
        lock.withLock {
            guard let mode = existingModeLocked(name), let timer = mode.timers.earliestTimer() else { return 0 }
            return timer._withUnsafeGuaranteedRef { $0.nextFireDate }
        }
    }

    /// When the loop must wake for the mode's timers: the earliest end of
    /// a timer's window (fire date + tolerance; see ModeTimers.wakeDeadline).
    package func timerWakeDeadline(_ mode: Mode) -> UInt64 {
        guard mayHaveWork(.timers, in: mode) else { return Clock.never }
        return lock.withLock { mode.timers.wakeDeadline() }
    }

    /// Fires every timer of the mode that is due, earliest first, then
    /// reschedules each: one-shot timers are invalidated (even if the
    /// callout moved them, as in CF), a repeating timer whose callout set a
    /// new fire date keeps that date, other repeating timers continue on
    /// their original grid (skipping missed slots).
    ///
    /// As CF's __CFRunLoopDoTimers: the list of due timers is made first,
    /// and each is checked again when its turn comes (`takeToFire`), for
    /// earlier callouts may have moved, removed or invalidated it, or fired
    /// it from a nested run: the timers wait for their turn scheduled as
    /// they were, and only the one in its callout is out of the schedule.
    package func fireDueTimers(_ mode: Mode) {
        guard mayHaveWork(.timers, in: mode) else { return }
        let now = Clock.monotonicNow()
        // The list of the last pass, unless a pass below this one on the
        // stack (a nested run from one of its callouts) has it.
        let due = spareDueTimers ?? DueTimers()
        spareDueTimers = nil
        // Each with a reference of the pass's own.  If memory runs out
        // making room for all, those that do not fit stay due for the next
        // pass.
        lock.withLock { mode.timers.collectDue(now: now, into: due) }
        due.sortByDeadline()
        // One clock reading per timer (CalloutTiming): each callout starts
        // at the reading that ended the previous one.
        var timing = CalloutTiming(.timer, insightReference)
        for i in 0 ..< due.count {
            let listed = due[i]
            // The pass's reference keeps the timer alive until the release below.
            listed.timer._withUnsafeGuaranteedRef { timer in
                guard let (epoch, deadline) = takeToFire(timer, listed.token, in: mode, now: timing.latestReading)
                else { return }
                callOutToTimer(timer, due: deadline, &timing)
                if timer.repeats { reschedule(timer, firedAtEpoch: epoch) } else { expire(timer) }
            }
            // The pass's reference: for most expired timers the last one.
            listed.timer.release()
        }
        due.removeAll()
        spareDueTimers = due
    }

    /// Fires `timer`, due at `deadline` (its lateness is counted from the
    /// callout's start).  Out of line, so a backtrace taken in a timer's
    /// callback names it (see Callouts.swift).
    @inline(never)
    package func callOutToTimer(_ timer: Timer, due deadline: UInt64, _ timing: inout CalloutTiming) {
        timing.time(timer.handle) { start in
            withInsight { $0.statistics.timerFired(lateNs: start > deadline ? start - deadline : 0, windowNs: timer.windowNs) }
            timer.fire()
        }
    }

    /// A listed timer's turn (CF's __CFRunLoopDoTimer): it fires if it is
    /// still valid, this loop's, due by `now` and not in a callout (a
    /// nested run's); it is then out of its modes' schedules until it is
    /// scheduled again after its callout.  Returns its schedule's epoch
    /// (0 for a one-shot timer, which does not need it) and the deadline
    /// it fires for; nil if it does not fire.
    private func takeToFire(_ timer: Timer, _ token: DueToken, in mode: Mode,
                            now: UInt64) -> (epoch: UInt32, deadline: UInt64)? {
        lock.withLock {
            guard timer.isValid, !timer.firing else { return nil }
            let fire: (epoch: UInt32, deadline: UInt64)?
            if !timer.repeats && mode.timers.isLive(token) {
                // Scheduled as when the list was made: due, and this loop's.
                fire = (0, token.deadline)
            } else {
                // Moved, removed or fired since (or repeating: its epoch is
                // needed): the timer's own schedule says.
                fire = timer.withSchedule { s in s.loop === self && s.deadline <= now ? (s.epoch, s.deadline) : nil }
            }
            guard let fire else { return nil }
            timer.firing = true
            timer.forEachPlacement { holder, slot in holder.timers.unschedule(slot: slot) }
            return fire
        }
    }

    /// After a repeating timer's callout: it is scheduled again in all its
    /// modes, at the date its callout set or on its original grid.  The
    /// date moves on even if the callout took the timer out of every mode
    /// (CF too: GetNextFireDate reports it, and a later add uses it).
    /// If its callout moved it to another thread's loop, that loop's add
    /// left it unscheduled (it was firing): that loop schedules it, out of
    /// this lock.
    private func reschedule(_ timer: Timer, firedAtEpoch epoch: UInt32) {
        let now = Clock.monotonicNow()  // to skip missed slots
        let elsewhere: Loop? = lock.withLock {
            timer.firing = false
            guard timer.isValid else { return nil }
            let (deadline, loop) = timer.withSchedule { s -> (UInt64, Loop?) in
                if s.epoch == epoch {
                    let slots = Timer.advance(&s, interval: timer.interval, intervalNs: timer.intervalNs, now: now)
                    if slots > 1 { withInsight { $0.statistics.bump(.timerSlotsSkipped, by: slots - 1) } }
                }
                return (s.deadline, s.loop)
            }
            guard loop === self else { return loop }
            scheduleTimerLocked(timer, at: deadline)
            return nil
        }
        elsewhere?.timerMoved(timer)
    }

    /// After a one-shot timer's callout: it is invalidated, even if the
    /// callout moved it (as in CF): removed from its modes in one lock
    /// hold (or from the loop its callout moved it to), then its info
    /// released.  Nothing to do if the callout invalidated it.
    private func expire(_ timer: Timer) {
        var deferred = Deferred()
        let (expired, elsewhere): (Bool, Loop?) = lock.withLock {
            timer.firing = false
            guard timer.markInvalid() else { return (false, nil) }
            return (true, removeTimerEverywhereLocked(timer, &deferred))
        }
        deferred.run()
        elsewhere?.removeEverywhere(timer)
        if expired { timer.releaseInfoOnce() }
    }
}
