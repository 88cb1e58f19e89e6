import CRunLoopShims
import Synchronization

extension Loop {
    // MARK: timers

    /// Schedules a timer at `deadline` in every mode of this loop holding
    /// it, each entry behind those already there (FIFO).  Lock held.
    package func scheduleTimerLocked(_ timer: Timer, at deadline: UInt64) {
        timer.placements.forEach { mode, slot in
            mode.timers.schedule(slot: slot, deadline: deadline)
        }
    }

    /// A timer's fire date changed (from any thread): schedule its new
    /// deadline in each of its modes and wake the loop so it re-arms.
    package func timerMoved(_ timer: Timer) {
        let wake: Bool = lock.withLock {
            // It may have left this loop meanwhile.
            let (deadline, loop) = timer.withSchedule { ($0.deadline, $0.loop) }
            guard loop === self else { return false }
            // Taken by a pass to fire: scheduled after its callout (which
            // keeps the new date), and checked again before it, when its
            // turn comes (fireDueTimers).
            if timer.firing {
                timer.noteChangedWhileFiring()
                return false
            }
            scheduleTimerLocked(timer, at: deadline)
            if let run = runs.last { return timer.placements.placement(in: run.mode) != nil && !isOwnThread }
            // Waited for from outside: the poll descriptor must report it.
            return parkedMode.map { timer.placements.placement(in: $0) != nil } ?? false
        }
        if wake { poller.wakeUp() }
    }

    /// The earliest fire date of the mode's valid timers, or 0.
    package func nextTimerFireDate(in name: ModeName) -> Double {
        lock.withLock {
            guard let mode = existingModeLocked(name), let entry = mode.timers.earliest() else { return 0 }
            return mode.timers.timer(at: entry.slot)._withUnsafeGuaranteedRef { $0.nextFireDate }
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
    package func fireDueTimers(_ mode: Mode) {
        guard mayHaveWork(.timers, in: mode) else { return }
        let now = Clock.monotonicNow()
        // The list of the last pass, unless a pass below this one on the
        // stack (a nested run from one of its callouts) has it.
        let due = spareDueTimers ?? DueTimers()
        spareDueTimers = nil
        lock.withLock {
            // Room for every entry at once if the earliest is due; if
            // memory ran out making it, the timers that do not fit stay
            // due, for the next pass.
            let bound = mode.timers.dueBound(now: now)
            if due.capacity < bound { due.reserve(bound) }
            // The pass takes a reference of its own to each due timer, and
            // while it fires the timer is due in none of its modes (a nested
            // run must not fire it again).
            while due.hasRoom, let (entry, unmanaged) = mode.timers.popDue(now: now) {
                let epoch = unmanaged.retain()._withUnsafeGuaranteedRef { timer in
                    timer.firing = true
                    timer.placements.forEach { other, slot in if other !== mode { other.timers.unschedule(slot: slot) } }
                    // Only a repeating timer needs to know whether its callout moved it.
                    return timer.repeats ? timer.withSchedule { $0.epoch } : 0
                }
                due.append(DueTimer(timer: unmanaged, deadline: entry.deadline, epoch: epoch))
            }
        }
        // One clock reading per timer (CalloutTiming): each callout starts
        // at the reading that ended the previous one.
        var timing = CalloutTiming(.timer, insight)
        for i in 0 ..< due.count {
            let firing = due[i]
            // The pass's reference keeps the timer alive until the release below.
            firing.timer._withUnsafeGuaranteedRef { timer in
                var epoch = firing.epoch
                // Moved or removed since the pass took it (by an earlier
                // callout, or another thread): as in CF, it fires now only
                // if it is still due and still this loop's; otherwise it
                // waits for its new date or its next add, unfired.
                if timer.changedWhileFiring {
                    guard let current = epochIfStillDue(timer) else {
                        putBack(timer)
                        timing.skip()
                        return
                    }
                    epoch = current
                }
                if timer.isValid { callOutToTimer(timer, due: firing.deadline, &timing) }
                if timer.repeats { reschedule(timer, firedAtEpoch: epoch) } else { expire(timer) }
            }
            // The pass's reference: for most expired timers the last one.
            firing.timer.release()
        }
        due.removeAll()
        spareDueTimers = due
    }

    /// A timer taken to fire whose fire date was set, or which left a mode,
    /// before its turn: its schedule's epoch if it is still this loop's and
    /// due now (it fires, and a later move is its callout's), nil if not
    /// (CF's __CFRunLoopDoTimer checks both).  Clears the mark.
    private func epochIfStillDue(_ timer: Timer) -> UInt32? {
        let now = Clock.monotonicNow()
        return lock.withLock {
            timer.firing = true  // the change is read now
            return timer.withSchedule { $0.loop === self && $0.deadline <= now ? $0.epoch : nil }
        }
    }

    /// A timer taken to fire, not fired after all (`epochIfStillDue`):
    /// scheduled again wherever it is now, at its date (a one-shot timer
    /// stays valid).
    private func putBack(_ timer: Timer) {
        let elsewhere: Loop? = lock.withLock {
            timer.firing = false
            return scheduleAgainLocked(timer)
        }
        elsewhere?.timerMoved(timer)
    }

    /// After a repeating timer's callout: it is scheduled again in all its
    /// modes, at the date its callout set or on its original grid.  The
    /// date moves on even if the callout took the timer out of every mode
    /// (CF too: GetNextFireDate reports it, and a later add uses it).
    private func reschedule(_ timer: Timer, firedAtEpoch epoch: UInt32) {
        let now = Clock.monotonicNow()  // to skip missed slots
        let elsewhere: Loop? = lock.withLock {
            timer.firing = false
            guard timer.isValid else { return nil }
            timer.withSchedule { s in
                guard s.epoch == epoch else { return }
                let slots = Timer.advance(&s, interval: timer.interval, intervalNs: timer.intervalNs, now: now)
                if slots > 1 { insight.statistics.bump(.timerSlotsSkipped, by: slots - 1) }
            }
            return scheduleAgainLocked(timer)
        }
        elsewhere?.timerMoved(timer)
    }

    /// Schedules a timer that was firing (no longer marked so) at its date
    /// in its modes of this loop.  Returns the loop it belongs to if that
    /// is another one (a callout moved it there while it fired; that
    /// loop's add left it unscheduled): the caller schedules it there, out
    /// of this lock.  Lock held.
    private func scheduleAgainLocked(_ timer: Timer) -> Loop? {
        guard timer.isValid else { return nil }
        let (deadline, loop) = timer.withSchedule { ($0.deadline, $0.loop) }
        guard loop === self else { return loop }
        scheduleTimerLocked(timer, at: deadline)
        return nil
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
