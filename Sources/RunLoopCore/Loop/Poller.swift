import CRunLoopShims
import Glibc
import Synchronization

/// The only code that touches epoll: a loop's wait set holding its wake-up
/// eventfd and its timerfd.  The loop sleeps in `wait` and nowhere else.
///
/// Wake-ups coalesce through `state`: 0 = awake, 1 = a wake-up is pending,
/// 2 = asleep in epoll_wait, 3 = ignoring wake-ups, 4 = spinning before
/// sleeping.  `wakeUp()` writes the eventfd only when it moves the state
/// from asleep to pending; a burst of calls while the loop is awake costs
/// one compare-and-swap (the first) and then one load each, no syscall,
/// and makes the loop's next sleep return at once.  The state is the
/// loop's hot word (HotWord.swift), so RLRunLoopWakeUp reads "pending" or
/// "ignoring" without pinning the loop.
///
/// Spin, then sleep: a loop whose recent waits were ended by quick
/// wake-ups polls `state` (in state 4) for a while before it enters
/// epoll_wait (SpinBeforeSleep.swift).
///
/// As in CF, wake-ups are ignored while the loop is not running and from
/// the moment it wakes until the top of its next pass: that pass looks at
/// every source and block anyway, so nothing queued before it is missed.
///
/// The wake-up protocol.  A producer publishes (queues a block, marks a
/// source pending, adds a timer) and then reads `state` to decide whether
/// the loop needs waking; the loop makes itself awake (`acceptWakeUps`)
/// and then reads its queues to decide whether it may sleep.  Each side
/// stores, then loads what the other stored: a store-buffering handshake,
/// and a CPU may perform a load before an earlier store of the same thread
/// is visible (x86 does).  Without fences both sides can miss each other:
/// the producer reads "ignoring" (the loop just woke) and drops the
/// wake-up, the loop reads its queue as empty and sleeps, and the item
/// waits for an unrelated wake-up (Tests/c/test_rl_wake_pingpong.c).  So
/// each side has a sequentially consistent fence between its store and its
/// load.  The producer's is where the library publishes: at the end of
/// BlockInbox.queue (blocks and signal entries), in Source.signal after
/// queueing, and in `wakeUpWithoutSyscall` (wake-ups the library makes
/// after publishing under a lock); a lock's release and acquire order the
/// rest.  So the "already pending, nothing to do" checks that follow a
/// publish (HandleTable.hotWordIs/hotWordHas, Source.signal,
/// signalAndWakeUp, the opt-in fastpath.h) need only a sequentially
/// consistent load, a plain load on x86.  The loop's fence is at the end of
/// `acceptWakeUps`.  The two fences are ordered one way or the other: if
/// the producer's comes first, the loop's reads after its own fence see
/// the item; if the loop's comes first, the producer's load sees "awake"
/// (or a later state) and it makes the wake-up pending, so the loop's next
/// sleep returns at once.  Every state a producer acts on (awake,
/// spinning, asleep) ends the loop's next or current sleep, and every
/// state it skips (pending, ignoring) is followed by a pass top
/// (`acceptWakeUps`) before the loop can sleep again.  So whatever a
/// producer publishes, the loop must look at after `acceptWakeUps` and
/// before it sleeps: queues are looked at by the pass's steps, a stop's
/// mark right before the sleep (Loop.stop, Iteration.wakeUpIfStopped).
package final class Poller: @unchecked Sendable {
    private static let wakeToken: UInt64 = 1
    private static let timerToken: UInt64 = 2
    /// Descriptors of version-1 sources use `fdTokenBase + fd` in the low
    /// 32 bits and their registration's serial in the high 32 (see
    /// `Registration`).
    private static let fdTokenBase: UInt64 = 16
    /// epoll_wait's buffer starts this small (most loops watch a handful
    /// of descriptors) and grows the first time it fills (growBuffers), to
    /// at least `batch` and at most `batch × maxBatches` (4,096) entries.
    private static let initialBatch = 16
    private static let batch = 256
    /// At most this many epoll_wait calls collect one wait's descriptors.
    private static let maxBatches = 16

    private let epollFD: Int32
    private let wakeFD: Int32
    private let timerFD: Int32
    /// The wake-up state: the loop's hot word (which reads "ignoring"
    /// until this poller changes it: see Loop.pollerOnce).
    let state: HotWord
    package static let awake: UInt32 = 0
    package static let pending: UInt32 = 1
    package static let asleep: UInt32 = 2
    package static let ignoring: UInt32 = 3
    package static let spinning: UInt32 = 4
    /// Whether and how long `wait` spins before it sleeps.  Loop thread only.
    @exclusivity(unchecked) private var spin = SpinBeforeSleep()
    /// The deadline the timerfd is armed for; 0 when disarmed or expired.
    /// Loop thread only.
    @exclusivity(unchecked) private var armed: UInt64 = 0
    /// epoll_wait's output buffer (struct epoll_event entries, read through
    /// rl_epoll_event_token/mask) once a burst has grown it, and its
    /// capacity.  nil before: `wait` reads the first `initialBatch` events
    /// into its stack frame, so a loop that never sees a burst keeps no
    /// buffer (192 bytes per loop).  Loop thread only.
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

    /// Set once by `shutdown`; with `writers`, the gate that keeps an
    /// eventfd write from reaching a closed (and maybe reused) number.
    private let shut = Atomic<Bool>(false)
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

    /// At finalization: closes the poll descriptor kept open by
    /// `shutdown` (and the eventfd that keeps it readable), or handed out
    /// by a loop finalized without being torn down, if it is still ours.
    package func closePollDescriptor() {
        if exportFD >= 0 && keptWakeFD && pollDescriptorIsOurs(exportFD, member: wakeFD) {
            Glibc.close(exportFD)
        }
        exportFD = -1
        if keptWakeFD { Glibc.close(wakeFD) }
        keptWakeFD = false
    }

    /// Writes the wake-up eventfd unless the poller is shut (see `shutdown`).
    private func signalEventFD() {
        writers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if !shut.load(ordering: .sequentiallyConsistent) { _ = rl_eventfd_signal(wakeFD) }
        writers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    }

    /// True while the loop waits (asleep, or spinning before sleeping).
    package var isSleeping: Bool {
        let s = state.load()
        return s == Self.asleep || s == Self.spinning
    }

    /// Whether a wake-up in `state` changes nothing: one is pending
    /// already, or the loop ignores them (see the type's comment).
    @inline(__always)
    package static func wakeUpIsRedundant(_ state: UInt32) -> Bool {
        state == pending || state == ignoring
    }

    // MARK: descriptors of version-1 sources (level-triggered)
    //
    // An epoll registration belongs to the open file, not to the number:
    // epoll_ctl names it by number, but if the number is closed while the
    // file stays open elsewhere (a dup, a forked child, a socket still
    // referenced), the registration lives on, no epoll_ctl can reach it
    // any more (the number is closed, or names another file), and it keeps
    // reporting under its old token: a ghost.  So each registration has a
    // token of its own (a serial in the high bits), a registration that
    // epoll_ctl could not reach by number is remembered as lost, and a lost
    // token reported ready is a ghost, cured by `rebuildWaitSet`.
    //
    // Descriptors epoll refuses with EPERM (regular files, /dev/null) are
    // always ready, as poll(2) reports them: they are kept in `alwaysReady`
    // and the loop treats them as ready on every pass (Loop.readyDescriptors).
    //
    // All of this state is guarded by the loop's lock (so declared
    // @exclusivity(unchecked), as the loop-thread-only state above): `watch`, `unwatch`,
    // `isGhost`, `takeProblems` and `rebuildWaitSet` are called with it held.

    /// A descriptor in the wait set: its events, and the token epoll
    /// reports it under.
    private struct Registration {
        var events: UInt32
        var token: UInt64
    }
    @exclusivity(unchecked) private var registrations: [Int32: Registration] = [:]
    /// Tokens of registrations epoll_ctl could no longer reach by number.
    @exclusivity(unchecked) private var lostTokens: Set<UInt64> = []
    @exclusivity(unchecked) private var serial: UInt32 = 0
    /// Descriptors epoll cannot watch (EPERM), with the events wanted.
    @exclusivity(unchecked) private(set) var alwaysReady: [Int32: UInt32] = [:] {
        didSet { hasAlwaysReady.store(!alwaysReady.isEmpty, ordering: .releasing) }
    }
    /// Whether `alwaysReady` is non-empty, read by each pass without the
    /// lock: such a pass polls instead of sleeping.  A change made from
    /// another thread is followed by a wake-up (Loop.reconcileDescriptorsLocked),
    /// which publishes it as it publishes a queued block.
    package let hasAlwaysReady = Atomic<Bool>(false)
    /// Misuse and failures met by the calls above, to be reported with no
    /// lock held (Loop.reportDescriptorProblems).
    @exclusivity(unchecked) private var problems: [String] = [] {
        didSet { hasProblems.store(!problems.isEmpty, ordering: .releasing) }
    }
    package let hasProblems = Atomic<Bool>(false)
    /// How many times the wait set was rebuilt to remove a ghost.
    @exclusivity(unchecked) private(set) var rebuilds = 0

    package func takeProblems() -> [String] {
        defer { problems = [] }
        return problems
    }

    /// Starts watching `fd` for `events`, or changes what is watched.
    package func watch(_ fd: Int32, events: UInt32) {
        guard !shut.load(ordering: .relaxed) else { return }  // not reached: see `shutdown`
        alwaysReady[fd] = nil  // looked at again: the number may name another file now
        if let old = registrations[fd] {
            if rl_epoll_mod(epollFD, fd, events, old.token) == 0 {
                registrations[fd]?.events = events
                return
            }
            lose(fd, old, rl_errno(), "changing what is watched")
        }
        serial &+= 1
        let token = Self.fdTokenBase + UInt64(UInt32(bitPattern: fd)) | UInt64(serial) << 32
        if rl_epoll_add(epollFD, fd, events, token) == 0 {
            registrations[fd] = Registration(events: events, token: token)
            return
        }
        let error = rl_errno()
        switch error {
        case EPERM:
            alwaysReady[fd] = events
        case EBADF:
            problems.append("descriptor \(fd) is not open: it cannot be watched")
        default:
            problems.append("descriptor \(fd): epoll_ctl(ADD) failed: \(String(cString: strerror(error)))")
        }
    }

    package func unwatch(_ fd: Int32) {
        guard !shut.load(ordering: .relaxed) else { return }  // not reached: see `shutdown`
        if alwaysReady.removeValue(forKey: fd) != nil { return }
        guard let old = registrations.removeValue(forKey: fd) else { return }
        if rl_epoll_del(epollFD, fd) != 0 { lose(fd, old, rl_errno(), "removing it") }
    }

    /// A registration epoll_ctl could not reach by its number: the number
    /// is closed (EBADF) or names a file not in the set (ENOENT), so the
    /// descriptor was closed while watched.  If its file is still open
    /// elsewhere, the registration is a ghost: remembered, so that a
    /// report under its token is known as one.
    private func lose(_ fd: Int32, _ registration: Registration, _ error: Int32, _ doing: String) {
        registrations[fd] = nil
        if error == EBADF || error == ENOENT {
            lostTokens.insert(registration.token)
            problems.append("descriptor \(fd) was closed while a source watched it (found \(doing)): "
                            + "close a descriptor only after invalidating its source")
        } else {
            problems.append("descriptor \(fd): epoll_ctl failed \(doing): \(String(cString: strerror(error)))")
        }
    }

    /// Whether a ready descriptor was reported by a lost registration.
    package func isGhost(_ ready: Ready) -> Bool {
        !lostTokens.isEmpty && lostTokens.contains(ready.token)
    }

    /// Replaces the epoll set with a new one holding the wake-up eventfd,
    /// the timerfd and the registrations still reachable, and closes the
    /// old one: the only way to remove a ghost, which no epoll_ctl can
    /// name.  The new set takes the old one's number (dup3), so `epollFD`
    /// never changes.  Called on the loop's thread (the only one that
    /// waits) with the loop's lock held (every epoll_ctl is made with it).
    /// Pending wake-ups and timer expirations are kept: both descriptors
    /// are level-triggered.  If the system refuses a new set, the ghost
    /// stays (ignored, pass after pass) and that is reported.
    package func rebuildWaitSet(ghost fd: Int32) {
        let fresh = rl_epoll_create()
        guard fresh >= 0,
              rl_epoll_add(fresh, wakeFD, EPOLLIN.rawValue, Self.wakeToken) == 0,
              rl_epoll_add(fresh, timerFD, EPOLLIN.rawValue, Self.timerToken) == 0,
              registrations.allSatisfy({ rl_epoll_add(fresh, $0.key, $0.value.events, $0.value.token) == 0 })
                || rebuildDroppingClosed(fresh),
              rl_epoll_replace(epollFD, fresh) == 0 else {
            let error = String(cString: strerror(rl_errno()))
            if fresh >= 0 { Glibc.close(fresh) }
            problems.append("descriptor \(fd): a ghost registration could not be removed: \(error)")
            return
        }
        Glibc.close(fresh)  // the set lives on under epollFD
        // The poll descriptor watched the old set's file, gone with it.
        if exportFD >= 0 && rl_epoll_add(exportFD, epollFD, EPOLLIN.rawValue, Self.wakeToken) != 0
            && rl_errno() == EEXIST {
            _ = rl_epoll_mod(exportFD, epollFD, EPOLLIN.rawValue, Self.wakeToken)
        }
        lostTokens.removeAll()
        rebuilds += 1
        problems.append("descriptor \(fd): a registration outlived its descriptor (closed while a source "
                        + "watched it, its file still open elsewhere): the wait set was rebuilt")
    }

    /// `rebuildWaitSet` found a registration it could not copy into the
    /// new set `fresh`: its number was closed too.  Copies the others and
    /// forgets the closed ones; false if another error stops the copy.
    private func rebuildDroppingClosed(_ fresh: Int32) -> Bool {
        for (fd, registration) in registrations {
            if rl_epoll_add(fresh, fd, registration.events, registration.token) == 0 { continue }
            let error = rl_errno()
            if error == EEXIST { continue }  // copied by the first attempt
            guard error == EBADF || error == ENOENT || error == EPERM else { return false }
            registrations[fd] = nil
            problems.append("descriptor \(fd) was closed while a source watched it: "
                            + "close a descriptor only after invalidating its source")
        }
        return true
    }

    // MARK: driven from outside (Loop/Embedding.swift)

    /// The descriptor handed out by RLRunLoopGetPollDescriptor, -1 until
    /// then: an epoll set of its own whose only member is `epollFD`, so
    /// it is readable exactly while the loop's wait set is (the eventfd,
    /// the timerfd, a watched descriptor), and a caller who closes it by
    /// mistake closes nothing the loop needs.  Guarded by the loop's lock
    /// (read unlocked by `shutdown` and `closePollDescriptor`, which run
    /// when no one else can use it).
    private var exportFD: Int32 = -1
    /// Set by `shutdown` when it kept `wakeFD` open for `exportFD`.
    private var keptWakeFD = false
    /// The number of the last poll descriptor found closed, never given
    /// to its successor.
    private var lostExportFD: Int32 = -1

    /// The poll descriptor, made on first use; nil if the system refuses
    /// one.  The one handed out before is checked first (one epoll_ctl):
    /// if the caller closed it, its number may name another file already,
    /// so a new one is made and the old number returned as `lost`, for
    /// the caller to report.  Lock held; not after `shutdown`.
    package func pollDescriptorLocked() -> (fd: Int32, lost: Int32?)? {
        let lost = checkPollDescriptorLocked()
        if exportFD >= 0 { return (exportFD, nil) }
        var fd = rl_epoll_create()
        guard fd >= 0 else { return nil }
        // Not the number of one found closed: a driver that compares
        // numbers (libuv's uv_poll_t watches one for life) sees the change.
        if fd == lostExportFD, case let other = fcntl(fd, F_DUPFD_CLOEXEC, 0), other >= 0 {
            Glibc.close(fd)
            fd = other
        }
        guard rl_epoll_add(fd, epollFD, EPOLLIN.rawValue, Self.wakeToken) == 0 else {
            Glibc.close(fd)
            return nil
        }
        exportFD = fd
        return (fd, lost)
    }

    /// Whether the poll descriptor handed out is still the loop's: the
    /// caller may have closed it by mistake, and its number may name
    /// another file since.  If not, it is forgotten (never closed: the
    /// number may be someone else's now) and its number returned, for the
    /// caller to report.  One epoll_ctl.  Lock held.
    package func checkPollDescriptorLocked() -> Int32? {
        guard exportFD >= 0, !shut.load(ordering: .relaxed) else { return nil }
        if pollDescriptorIsOurs(exportFD, member: epollFD) { return nil }
        lostExportFD = exportFD
        defer { exportFD = -1 }
        return exportFD
    }

    /// Whether `fd` is an epoll set holding `member` (only ours is): an
    /// EPOLL_CTL_MOD of `member` succeeds.
    private func pollDescriptorIsOurs(_ fd: Int32, member: Int32) -> Bool {
        rl_epoll_mod(fd, member, EPOLLIN.rawValue, Self.wakeToken) == 0
    }

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

    /// The loop is waited for from outside: wake-ups write the eventfd
    /// from here on, as when it sleeps.  The loop's fence of the wake-up
    /// protocol follows: the caller looks at its queues after this call.
    /// Loop thread only, no run in progress.
    package func park() {
        state.store(Self.asleep)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
    }

    /// Reads and discards a wake-up written to the eventfd: one a run that
    /// ran no pass did not read (Embedding.swift), so the poll descriptor
    /// does not stay readable for it.  Loop thread only, no run in progress.
    package func consumeWakeUp() {
        guard !shut.load(ordering: .relaxed) else { return }
        rl_drain_counter(wakeFD)
    }

    /// The loop runs again (RLRunLoopRunPending): wake-ups made during the
    /// run mark the hot word and write nothing.
    package func unpark() {
        if state.load() == Self.asleep { _ = state.compareExchange(expected: Self.asleep, desired: Self.awake) }
    }

    package var isShut: Bool { shut.load(ordering: .relaxed) }

    /// Makes the loop's current or next sleep return.  Any thread.
    package func wakeUp() {
        // Otherwise the loop is asleep (or the word is no longer the
        // loop's: its handle is gone, nothing to wake): asleep → pending,
        // and the eventfd.  A state that changed meanwhile is looked at again.
        while !Self.wakeUpWithoutSyscall(state) {
            guard state.load() == Self.asleep else { return }
            if state.compareExchange(expected: Self.asleep, desired: Self.pending).exchanged {
                signalEventFD()
                return
            }
        }
    }

    /// Does a wake-up that needs no syscall, touching only the hot word (so
    /// RLRunLoopWakeUp can do it without pinning the loop): nothing when
    /// one is pending or wake-ups are ignored; awake or spinning → pending
    /// (the loop sees the mark itself).  False when the loop is asleep (the
    /// eventfd must be written: `wakeUp()`) or the word is not the loop's.
    @inline(__always)
    package static func wakeUpWithoutSyscall(_ word: HotWord) -> Bool {
        // The producer's fence of the wake-up protocol (see the type's
        // comment): what the caller published before this call is visible
        // to the loop's reads after its own fence, or this load sees the
        // state the loop stored before that fence.
        var current = word.loadAfterFence()
        while let value = current {
            if wakeUpIsRedundant(value) { return true }
            if value == asleep { return false }
            let (done, now) = word.compareExchange(expected: value, desired: pending)
            if done { return true }
            current = now
        }
        return false
    }

    /// Starts accepting wake-ups (run start, top of each pass).
    package func acceptWakeUps() {
        // Looked at first: in a busy loop the state is mostly pending
        // already (see `wait`), and even a failed compare-and-swap takes
        // the line from the producers reading it.
        // Asleep here: the loop was parked for a driver outside
        // (Embedding.swift) and is now run natively.
        if let current = state.load(), current == Self.ignoring || current == Self.asleep {
            _ = state.compareExchange(expected: current, desired: Self.awake)
        }
        // The loop's fence of the wake-up protocol (see the type's
        // comment): the caller reads its queues after this, so either it
        // sees what a producer published before that producer's fence, or
        // the producer's load after its fence sees the state stored above
        // (or a later one) and makes a wake-up pending.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
    }

    /// Stops accepting wake-ups (the outermost run ended).
    package func ignoreWakeUps() {
        state.store(Self.ignoring)
    }

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
        ready.removeAllKeepingStorage()
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
