import CRunLoopShims
import Glibc

/// Driving a loop from another event loop (GLib, libuv, asyncio):
/// RLRunLoopGetPollDescriptor, RLRunLoopGetTimeout, RLRunLoopRunPending.
///
/// The other loop waits on the poll descriptor (Poller.pollDescriptorLocked:
/// an epoll set holding the loop's own), which is readable while the
/// loop's wait set is: the wake-up eventfd, the timerfd, or a descriptor
/// of a version-1 source of the mode.  Between runs the loop is *parked*
/// in a mode: its wait set holds that mode's descriptors, the timerfd is
/// armed for the mode's earliest timer window, and its wake-up state is
/// "asleep", so a wake-up from any thread writes the eventfd, as when the
/// loop sleeps in epoll_wait.  Parking ends with the loop's half of the
/// wake-up protocol (store, fence, then look at the queues), and if the
/// mode has work queued (a signalled source, a block, an always-ready
/// descriptor) it wakes itself: the descriptor is readable while work
/// remains, whatever the last run left behind — readiness is never
/// consumed with work left (level-triggered by construction).
///
/// And it is quiet while the mode has none: parking in a mode that does
/// not exist (yet) empties the wait set of descriptors (a ready one of the
/// mode last run would otherwise keep it readable: the driver's poll
/// returns at once, and each run finds nothing to do, a busy spin); a run
/// that ran no pass (the mode missing or empty) consumes the wake-up that
/// made the descriptor readable, as a pass would.  kRLRunLoopCommonModes
/// is not a mode a loop runs in (as in CF, a run in it finishes at once):
/// the calls refuse it and leave the loop parked in no mode, its
/// descriptor quiet (`parkNowhere`).
extension Loop {
    /// Why a call of the three could not be made.
    package enum EmbedFailure: Error {
        case wrongThread, gone, resources
        /// kRLRunLoopCommonModes given: not a mode a loop runs in.
        case commonModes
    }

    /// The poll descriptor, made on first use (and anew when the caller
    /// closed the last one: `lost`, see Poller.pollDescriptorLocked).  Any
    /// thread.
    package func pollDescriptor() -> Result<(fd: Int32, lost: Int32?), EmbedFailure> {
        lock.withLock {
            if isDead { return .failure(.gone) }
            guard makePoller(), let made = withPoller({ $0.pollDescriptorLocked() }) else { return .failure(.resources) }
            return .success(made)
        }
    }

    /// Parks the loop in `name` (unless a run is in progress) and returns
    /// how long it may be left alone: 0 if work is queued or a timer is
    /// due, `.infinity` if no timer is scheduled in the mode.  The loop's
    /// thread only.  `lost`: a poll descriptor the caller closed (see
    /// Poller.checkPollDescriptorLocked).
    package func timeout(_ name: ModeName) -> Result<(seconds: Double, lost: Int32?), EmbedFailure> {
        guard !lock.withLock({ isDead }) else { return .failure(.gone) }
        guard isOwnThread else { return .failure(.wrongThread) }
        let running = lock.withLock { !runs.isEmpty }
        if name.isCommonModes { return refuseCommonModes(running: running) }
        guard makeRunParts() else { return .failure(.resources) }
        let parked = running ? peek(name) : park(name)
        if parked.pending { return .success((0, parked.lost)) }
        if parked.deadline == Clock.never { return .success((.infinity, parked.lost)) }
        let now = Clock.monotonicNow()
        let seconds = parked.deadline <= now ? 0 : Double(parked.deadline - now) / 1e9
        return .success((seconds, parked.lost))
    }

    /// Runs what is pending in `name` without waiting (one pass, as
    /// RLRunLoopRunInMode(mode, 0, false)), then parks the loop in `name`
    /// if this was the outermost run.  The loop's thread only; from a
    /// callout it is a nested run.
    package func runPending(_ name: ModeName) -> Result<(result: RunResult, lost: Int32?), EmbedFailure> {
        guard !lock.withLock({ isDead }) else { return .failure(.gone) }
        guard isOwnThread else { return .failure(.wrongThread) }
        if name.isCommonModes { return refuseCommonModes(running: lock.withLock { !runs.isEmpty }) }
        pollerOnce.with { $0.unpark() }
        let result = run(name, seconds: 0, returnAfterSourceHandled: false)
        guard lock.withLock({ runs.isEmpty && !isDead }) else { return .success((result, nil)) }
        guard pollerOnce.isMade else { return .failure(.resources) }  // the run could not make it
        // Finished: the mode is missing or empty, and the run (most
        // likely) ran no pass, so it read nothing from the wait set; the
        // wake-up that made the descriptor readable is consumed here, as
        // a pass would have (the work it announced, if any, is found by
        // `park`'s look at the queues).
        if result == .finished { withPoller { $0.consumeWakeUp() } }
        return .success((result, park(name).lost))
    }

    /// kRLRunLoopCommonModes given to GetTimeout or RunPending: refused.
    /// Unless a run is in progress (a call from a callout changes
    /// nothing), the loop is left parked in no mode, so its descriptor
    /// does not stay readable for the mode it was parked in before, which
    /// the driver no longer runs.
    private func refuseCommonModes<T>(running: Bool) -> Result<T, EmbedFailure> {
        if !running { pollerOnce.with { parkNowhere($0) } }
        return .failure(.commonModes)
    }

    /// What parking found: the timer wake-up deadline, whether work is
    /// queued, a poll descriptor found closed.
    private struct Parked {
        var deadline: UInt64
        var pending: Bool
        var lost: Int32?
    }

    /// Parks the loop in `name` (see the type's comment).  Loop's thread,
    /// no run in progress.
    private func park(_ name: ModeName) -> Parked { withPoller { park(name, $0) } }

    private func park(_ name: ModeName, _ poller: Poller) -> Parked {
        let (mode, lost): (Mode?, Int32?) = lock.withLock {
            let mode = existingModeLocked(name)
            parkedModeName = name
            // A mode not made yet has no descriptors: none is watched
            // (making it wakes the loop: Loop.modeLocked).
            if let mode { reconcileDescriptorsLocked(mode) } else { watchNoDescriptorsLocked() }
            return (mode, poller.checkPollDescriptorLocked())
        }
        reportDescriptorProblems()
        let deadline = mode.map { timerWakeDeadline($0) } ?? Clock.never
        poller.arm(deadline)
        poller.park()
        // After the fence: a producer that found the loop not yet parked
        // published its work before its own fence, and is seen here.
        let pending = mode.map { m in lock.withLock { hasQueuedWorkLocked(m) } } ?? false
            || poller.hasAlwaysReady.load(ordering: .acquiring)
        if pending { poller.wakeUp() }
        return Parked(deadline: deadline, pending: pending || deadline <= Clock.monotonicNow(), lost: lost)
    }

    /// Parks the loop in no mode: no descriptor watched, the timerfd
    /// disarmed, wake-ups ignored (as between runs) and the last one
    /// consumed, so the descriptor stays quiet until the loop is prepared
    /// again.  Loop's thread, no run in progress.
    private func parkNowhere(_ poller: Poller) {
        lock.withLock {
            parkedModeName = nil
            watchNoDescriptorsLocked()
        }
        reportDescriptorProblems()
        poller.arm(Clock.never)
        poller.ignoreWakeUps()
        // After the store: a wake-up that found the loop asleep before it
        // wrote the eventfd already, or writes it now and is consumed by
        // the next call (one spare round at most).
        poller.consumeWakeUp()
    }

    /// What `park` would report, for a call made while a run is in
    /// progress (from a callout): nothing is changed.
    private func peek(_ name: ModeName) -> Parked {
        guard let mode = lock.withLock({ existingModeLocked(name) }) else { return Parked(deadline: Clock.never, pending: false) }
        let deadline = timerWakeDeadline(mode)
        let pending = lock.withLock { hasQueuedWorkLocked(mode) } || withPoller { $0.hasAlwaysReady.load(ordering: .acquiring) }
        return Parked(deadline: deadline, pending: pending || deadline <= Clock.monotonicNow())
    }
}
