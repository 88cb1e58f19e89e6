import CRunLoopShims
import Glibc
import Synchronization

/// A loop's wait set: one epoll set holding the loop's wake-up eventfd,
/// its timerfd and the descriptors its version-1 sources watch.  The
/// loop sleeps in `wait` and nowhere else.
///
/// The loop's epoll set is touched in Wait/ and nowhere else, one concern
/// per file: this one (the wait, the timerfd, the descriptors' life),
/// WakeState.swift (the wake-up states and the wake-up protocol),
/// WaitSet.swift (the descriptors of version-1 sources) and
/// PollDescriptor.swift (the descriptor handed to a driver outside,
/// Loop/Embedding.swift).  Spin, then sleep: SpinBeforeSleep.swift.
/// (Local message ports and listening sockets keep epoll sets of their
/// own: Ports/MessagePortLocal.swift, Extras/Socket.swift.)
///
/// Stored properties must sit in this declaration; each group says
/// which file uses it.
package final class Poller: @unchecked Sendable {
    static let wakeToken: UInt64 = 1
    static let timerToken: UInt64 = 2
    /// Descriptors of version-1 sources use `fdTokenBase + fd` in the low
    /// 32 bits and their registration's serial in the high 32 (see
    /// `Registration`).
    static let fdTokenBase: UInt64 = 16
    /// epoll_wait's buffer starts this small (most loops watch a handful
    /// of descriptors) and grows the first time it fills (growBuffers), to
    /// at least `batch` and at most `batch × maxBatches` (4,096) entries.
    private static let initialBatch = 16
    private static let batch = 256
    /// At most this many epoll_wait calls collect one wait's descriptors.
    private static let maxBatches = 16

    // The three descriptors: used by every file of Wait/.
    let epollFD: Int32
    let wakeFD: Int32
    let timerFD: Int32
    /// The wake-up state: the loop's hot word (which reads "ignoring"
    /// until this poller changes it: see Loop.pollerOnce).  Its values and
    /// the protocol around it: WakeState.swift.
    let state: HotWord
    // Used by `wait` (this file).
    /// Whether and how long `wait` spins before it sleeps.  Loop thread only.
    @exclusivity(unchecked) private var spin = SpinBeforeSleep()
    /// The deadline the timerfd is armed for; 0 when disarmed or expired.
    /// Loop thread only.
    @exclusivity(unchecked) private var armed: UInt64 = 0
    /// epoll_wait's output buffer (struct epoll_event entries, read through
    /// rl_epoll_event_token/mask) once a burst has grown it, and its
    /// capacity.  nil before: `wait` reads the first `initialBatch` events
    /// into its stack frame, so a loop that never sees a burst keeps no
    /// buffer.  Loop thread only.
    @exclusivity(unchecked) private var capacity = Poller.initialBatch
    @exclusivity(unchecked) private var grown: UnsafeMutableRawPointer? = nil
    /// One bit per descriptor number: those reported by this call, once a
    /// batch has filled (see `wait`); all clear between calls.
    @exclusivity(unchecked) private var seen: [UInt64] = []
    /// Why the last `wait` that could sleep returned; nil after a poll.
    /// Loop thread only.
    @exclusivity(unchecked) private(set) var wokeBy: WakeCause? = nil
    /// An emptied array with capacity, handed back by the pass after the
    /// last `wait` (`recycle`), so a wait reports its descriptors without
    /// allocating.  Loop thread only.
    @exclusivity(unchecked) private var spareReady: [Ready] = []

    /// A wait set whose wake-up state is `state`; nil if the system
    /// refuses a descriptor (EMFILE, ENFILE, ENOMEM).
    package init?(state: HotWord) {
        self.state = state
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

    /// A poller made by two threads at once (Loop.makePoller) loses the race
    /// and is freed unused: its descriptors close here.  One the loop used
    /// was shut by its loop already (both calls do nothing the second time).
    deinit {
        shutdown()
        closePollDescriptor()
    }

    // Used by `shutdown` and `signalEventFD` (this file); `shut` is
    // looked at by the other files too.
    /// Set once by `shutdown`; with `writers`, the gate that keeps an
    /// eventfd write from reaching a closed (and maybe reused) number.
    let shut = Atomic<Bool>(false)
    /// Wakers between deciding to write the eventfd and having written it.
    private let writers = Atomic<Int>(0)

    /// Closes the three descriptors and frees the buffers, once: when the
    /// loop is torn down (its thread exited), or finalized if it never
    /// was.  The loop's thread never waits again after that, and the loop
    /// makes no epoll_ctl (Loop.reconcileDescriptorsLocked), so the only
    /// other user of a descriptor is a waker on another thread, which may
    /// have moved the state from asleep to pending a long time ago (the
    /// loop has woken since, by a timer, and its thread has exited) and
    /// not have written the eventfd yet.  `signalEventFD` and this settle
    /// that race Dekker-style, every access sequentially consistent:
    ///
    ///     waker:  writers += 1;  if !shut { write(wakeFD) };  writers -= 1
    ///     here:   shut = true;   wait until writers == 0;    close
    ///
    /// In the single order of those operations, either the waker's load
    /// of `shut` comes before our exchange, and then its increment does
    /// too, so our load of `writers` sees it and we wait for its
    /// decrement, which follows its write; or the load comes after and
    /// sees `shut`, and the waker writes nothing.  So no write follows the
    /// close.  (Sequential consistency is needed on both sides: with only
    /// acquire/release, each side's store could be passed by its own later
    /// load, and both could miss the other.)  The wait is for one write
    /// system call at most per waker.
    package func shutdown() {
        guard !shut.exchange(true, ordering: .sequentiallyConsistent) else { return }
        while writers.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        grown?.deallocate()
        grown = nil
        let keepExport = exportFD >= 0 && pollDescriptorIsOurs(exportFD, member: epollFD)
        Glibc.close(epollFD)
        Glibc.close(timerFD)
        // A poll descriptor handed out (Embedding.swift) stays open until
        // the loop is finalized, readable for good, so a driver waiting
        // on it comes back and is told the loop is gone; its number is
        // never reused under that driver.
        if keepExport {
            _ = rl_epoll_add(exportFD, wakeFD, EPOLLIN.rawValue, Self.wakeToken)
            _ = rl_eventfd_signal(wakeFD)
            keptWakeFD = true
        } else {
            exportFD = -1
            Glibc.close(wakeFD)
        }
    }

    /// Writes the wake-up eventfd unless the poller is shut (see `shutdown`).
    func signalEventFD() {
        writers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if !shut.load(ordering: .sequentiallyConsistent) { _ = rl_eventfd_signal(wakeFD) }
        writers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }

    // Used by WaitSet.swift (the descriptors of version-1 sources,
    // guarded by the loop's lock: see there), `registrations` by
    // `growBuffers` too.
    @exclusivity(unchecked) var registrations: [Int32: Registration] = [:]
    /// Tokens of registrations epoll_ctl could no longer reach by number.
    @exclusivity(unchecked) var lostTokens: Set<UInt64> = []
    @exclusivity(unchecked) var serial: UInt32 = 0
    /// Descriptors epoll cannot watch (EPERM), with the events wanted.
    @exclusivity(unchecked) var alwaysReady: [Int32: UInt32] = [:] {
        didSet { hasAlwaysReady.store(!alwaysReady.isEmpty, ordering: .releasing) }
    }
    /// Whether `alwaysReady` is non-empty, read by each pass without the
    /// lock: such a pass polls instead of sleeping.  A change made from
    /// another thread is followed by a wake-up (Loop.reconcileDescriptorsLocked),
    /// which publishes it as it publishes a queued block.
    package let hasAlwaysReady = Atomic<Bool>(false)
    /// Misuse and failures met by WaitSet.swift's calls, to be reported with no
    /// lock held (Loop.reportDescriptorProblems).
    @exclusivity(unchecked) var problems: [String] = [] {
        didSet { hasProblems.store(!problems.isEmpty, ordering: .releasing) }
    }
    package let hasProblems = Atomic<Bool>(false)
    /// How many times the wait set was rebuilt to remove a ghost.
    @exclusivity(unchecked) var rebuilds = 0

    // Used by PollDescriptor.swift (the poll descriptor handed to a driver
    // outside); `exportFD` and `keptWakeFD` by `shutdown` too.
    /// The descriptor handed out by RLRunLoopGetPollDescriptor, -1 until
    /// then: an epoll set of its own whose only member is `epollFD`, so
    /// it is readable exactly while the loop's wait set is (the eventfd,
    /// the timerfd, a watched descriptor), and a caller who closes it by
    /// mistake closes nothing the loop needs.  Guarded by the loop's lock
    /// (read unlocked by `shutdown` and `closePollDescriptor`, which run
    /// when no one else can use it).
    var exportFD: Int32 = -1
    /// Set by `shutdown` when it kept `wakeFD` open for `exportFD`.
    var keptWakeFD = false
    /// The number of the last poll descriptor found closed, never given
    /// to its successor.
    var lostExportFD: Int32 = -1

    /// Arms the timerfd for `deadline` (monotonic ns; `Clock.never`:
    /// disarmed) if the target moved.  Loop thread only.
    package func arm(_ deadline: UInt64) {
        let target = Self.target(deadline)
        if target != armed {
            _ = rl_timerfd_arm(timerFD, target)
            armed = target
        }
    }

    /// `arm`, but a timerfd already armed for an earlier moment is left
    /// as it is: if it fires first, `wait` arms it for `deadline` then and
    /// sleeps on.  A loop run by repeated RLRunLoopRunInMode calls, each
    /// with a run limit a little later than the last, makes one
    /// timerfd_settime per limit reached, not one per run.
    private func armNoLaterThan(_ deadline: UInt64) {
        if !armedEarlierThan(deadline) { arm(deadline) }
    }

    /// Whether the timerfd is armed for a moment before `deadline`
    /// (`Clock.never`: any moment).
    private func armedEarlierThan(_ deadline: UInt64) -> Bool {
        let target = Self.target(deadline)
        return armed != 0 && (target == 0 || armed < target)
    }

    /// The timerfd's setting for `deadline`: 0 disarms ("never").
    @inline(__always)
    private static func target(_ deadline: UInt64) -> UInt64 { deadline == Clock.never ? 0 : max(deadline, 1) }

    /// A descriptor found ready by `wait`, with its epoll event bits and
    /// the token it was reported under (see `isGhost`).
    package struct Ready {
        package var fd: Int32
        package var events: UInt32
        package var token: UInt64 = 0
    }

    /// Sleeps until `deadline` (monotonic ns; `Clock.never`: no limit), a
    /// wake-up, or a watched descriptor is ready; returns the ready
    /// descriptors: one batch once the buffers fit every descriptor
    /// watched; while they grow, up to 16 (more are found by the next call).
    /// With `poll`, only looks, and leaves a pending wake-up pending.
    /// Otherwise a pending wake-up is consumed, and wake-ups are ignored
    /// from here until the next `acceptWakeUps()`.
    package func wait(until deadline: UInt64, poll: Bool) -> [Ready] {
        // The closure captures the poller unmanaged (the caller keeps it
        // alive): capturing `self` retained and released it on every wait.
        let me = Unmanaged.passUnretained(self)
        return withUnsafeTemporaryAllocation(byteCount: Self.initialBatch * rl_epoll_event_size(), alignment: 8) { stack in
            me._withUnsafeGuaranteedRef { $0.wait(until: deadline, poll: poll, stack: stack.baseAddress!) }
        }
    }

    /// `wait`, reading events into `stack` (`initialBatch` entries) until
    /// the buffer has grown.
    private func wait(until deadline: UInt64, poll: Bool, stack: UnsafeMutableRawPointer) -> [Ready] {
        var buffer = grown ?? stack
        armNoLaterThan(deadline)
        var timeout: Int32 = -1
        var began: UInt64 = 0
        if poll {
            timeout = 0
        } else {
            acceptWakeUps()
            began = SpinBeforeSleep.waitBegins()
            if !spin.sleep(state, until: deadline, began: began) { timeout = 0 }  // a wake-up is pending
        }
        var n = rl_epoll_wait_into(epollFD, buffer, Int32(capacity), timeout)
        // The timerfd left armed for an earlier deadline (armNoLaterThan)
        // fired alone: nothing for the pass, so it is armed for this wait's
        // deadline and the wait goes on, still asleep (a wake-up meanwhile
        // writes the eventfd, as before).
        while timeout != 0, n == 1, rl_epoll_event_token(buffer, 0) == Self.timerToken,
              armedEarlierThan(deadline) {
            rl_drain_counter(timerFD)
            armed = 0
            arm(deadline)
            n = rl_epoll_wait_into(epollFD, buffer, Int32(capacity), timeout)
        }
        // A poll leaves the state alone: a wake-up pending stays pending,
        // to be consumed by the next wait that could sleep (one spare
        // pass at most).  So a loop kept busy by a flood of signals, which
        // polls pass after pass, writes nothing to the line its producers
        // read, and their wake-ups keep finding "pending" (one load).
        if !poll { state.store(Self.ignoring) }
        var sawWake = !poll && timeout == 0, sawTimer = false
        var ready = spareReady  // empty: a nested run's wait may have it
        spareReady = []
        var batches = 1
        var wrapped = false
        while n > 0 {
            for i in 0..<n {
                let token = rl_epoll_event_token(buffer, i)
                switch token {
                case Self.wakeToken:
                    rl_drain_counter(wakeFD)
                    sawWake = true
                case Self.timerToken:
                    rl_drain_counter(timerFD)
                    armed = 0
                    sawTimer = true
                default:
                    let fd = Int32(truncatingIfNeeded: (token & 0xFFFF_FFFF) - Self.fdTokenBase)
                    // Level-triggered descriptors come round again once
                    // every ready one has been reported: skip them, and
                    // stop after this batch.
                    if batches > 1 && !markSeen(fd) {
                        wrapped = true
                        continue
                    }
                    ready.append(Ready(fd: fd, events: rl_epoll_event_mask(buffer, i), token: token))
                }
            }
            // A full batch: collect the rest now (bounded), so a burst of
            // ready descriptors is handled in one pass.
            guard Int(n) == capacity, !wrapped, batches < Self.maxBatches else { break }
            if batches == 1 { for r in ready { _ = markSeen(r.fd) } }
            batches += 1
            growBuffers()
            buffer = grown ?? stack
            n = rl_epoll_wait_into(epollFD, buffer, Int32(capacity), 0)
        }
        if batches > 1 { for r in ready { seen[Int(r.fd) >> 6] = 0 } }
        wokeBy = poll ? nil : !ready.isEmpty ? .descriptor : sawWake ? .wakeUp : sawTimer ? .timer : nil
        if !poll && SpinBeforeSleep.limitNs > 0 { spin.waited(since: began, byWakeUp: wokeBy == .wakeUp) }
        return ready
    }

    /// Takes back the array the last `wait` returned, once the pass is
    /// done with it.
    package func recycle(_ ready: consuming [Ready]) {
        guard ready.capacity > 0 else { return }  // the empty array: nothing to keep
        ready.removeAll(keepingCapacity: true)
        spareReady = ready
    }

    /// Sets `fd`'s bit in `seen`; false if it was set already.  (A bitmap,
    /// not a Set: no hashing or allocation per descriptor in a burst.)
    private func markSeen(_ fd: Int32) -> Bool {
        let word = Int(fd) >> 6, bit = UInt64(1) << UInt64(fd & 63)
        if word >= seen.count { seen += repeatElement(0, count: word + 1 - seen.count) }
        if seen[word] & bit != 0 { return false }
        seen[word] |= bit
        return true
    }

    /// A buffer that holds every descriptor watched (and the wake-up and
    /// timer descriptors), from now on: a batch filled up.  The next burst
    /// of that size is read by one epoll_wait, with no batches to merge.
    /// At least `batch`, at most `batch × maxBatches` entries (12 bytes each).
    private func growBuffers() {
        let fit = 1 << (Int.bitWidth - (registrations.count + 1).leadingZeroBitCount)  // > count + 1, a power of 2
        let wanted = min(max(Self.batch, fit), Self.batch * Self.maxBatches)
        guard capacity < wanted else { return }
        grown?.deallocate()
        capacity = wanted
        grown = Self.allocateEvents(capacity)
    }

    private static func allocateEvents(_ count: Int) -> UnsafeMutableRawPointer {
        .allocate(byteCount: count * rl_epoll_event_size(), alignment: 8)
    }
}
