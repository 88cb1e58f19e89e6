import CRunLoopShims
import Synchronization

/// A run of the loop in progress (the innermost is the last).
package struct RunFrame {
    package let mode: Mode
    /// RLRunLoopStop asked this run to end.
    var stopped = false
}

/// A thread's run loop: its modes, common modes and common items, queued
/// blocks and pending sources.  All of that is guarded by `lock`; only
/// the owning thread runs passes (Iteration.swift).
package final class Loop: Object, @unchecked Sendable {
    // MARK: set once

    package let lock = Lock()
    package let ownerTID: Int32
    package let isMain: Bool
    /// The owning thread's `pthread_self()` (ThreadIdentity); 0 for the
    /// main loop, which may be made on another thread and asks
    /// `ThreadIdentity.isMain` instead.
    private let ownerThread: UInt
    /// The loop's wait set (Poller: an epoll set, its wake-up eventfd and
    /// timerfd), made by the loop's first run or the first call that needs
    /// a descriptor (Embedding.swift): a thread that only asks for its loop
    /// holds no descriptor.
    ///
    /// Until then the loop's hot word reads "ignoring" (a loop that never
    /// ran has no sleep to end: a wake-up does nothing, as for a loop
    /// between runs), and only the poller changes it, on the loop's thread,
    /// after publishing itself here.  The compare-and-swap that publishes
    /// it releases, the poller's later change of the hot word is a
    /// sequentially consistent compare-and-swap (after it in program
    /// order), and a waker's load of the hot word acquires: a waker that
    /// reads any other state than "ignoring" finds the poller made
    /// (test_rl_lazy_poller races the two).  Nothing else may assume it:
    /// a caller that may come first reads `pollerOnce.with`, which does
    /// nothing for a loop that never ran.
    let pollerOnce = PublishedOnce<Poller>()
    /// What the loop lets the outside see: counters, the current phase,
    /// callouts, its trace (Insight.swift).  Made by the loop's first run,
    /// or by whoever first asks for its counters, a trace or a stall watch.
    private let insightOnce = PublishedOnce<Insight>()
    /// The process's fork generation when the loop was made: a loop of an
    /// older one is the parent's copy, in a fork child (Fork.swift).
    package let forkGeneration = Fork.generation

    // MARK: guarded by `lock`
    // Declared @exclusivity(unchecked): the guard named here makes their
    // accesses exclusive (docs/design.md, "Exclusivity checks").

    /// The modes in the order they were made (CF's order in a loop's
    /// description), found by comparing name ids in turn
    /// (`existingModeLocked`): a loop has a few.
    @exclusivity(unchecked) var modes: [Mode] = []
    /// The common modes; at first the default one, in an array all new
    /// loops share until one adds a mode (a 56-byte block per loop else).
    @exclusivity(unchecked) var commonModes = Loop.initialCommonModes
    private static let initialCommonModes: [ModeName] = [.default]
    @exclusivity(unchecked) var commonItems: [ObjectIdentifier: ModeItem] = [:] { didSet { equalityEpoch &+= 1 } }
    @exclusivity(unchecked) var commonItemOrder: [ObjectIdentifier] = []
    /// The loop's sources that compare by context (see
    /// Source.ContextIdentity), by hash value.
    /// Changed only through `indexSourceLocked` / `unindexSourceLocked`.
    @exclusivity(unchecked) var sourcesByHash = SourceTable(.contextHash)
    /// Bumped whenever what `canonical` reads changes: an add or remove
    /// checks, under the lock, that the equal source it resolved outside
    /// the lock is still the one (see `canonical`, Loop+Items.swift).
    @exclusivity(unchecked) var equalityEpoch: UInt64 = 0
    /// Signalled version-0 sources and queued blocks (QueuedWork.swift).
    @exclusivity(unchecked) var work: QueuedWork
    /// Set when the loop is finalized: no ring is opened after that, since
    /// the slot is about to go to another object.
    @exclusivity(unchecked) var finalized = false
    /// The runs in progress, innermost last (pushed and popped by the
    /// loop's thread, read by any thread under the lock).  A run finds its
    /// own frame by its depth, the frame's index: the frames under it stay
    /// until it ends.
    @exclusivity(unchecked) var runs: [RunFrame] = []
    /// The name of the mode the loop is waited for in from outside (the
    /// last RLRunLoopRunPending / RLRunLoopGetTimeout; Embedding.swift):
    /// a timer added to it or moved in it wakes the loop when no run is in
    /// progress, so the poll descriptor reports it; so does making the
    /// mode, if it did not exist when the loop was parked (modeLocked).
    /// nil if never.
    @exclusivity(unchecked) var parkedModeName: ModeName?
    /// The mode named `parkedModeName`, if it exists.  Lock held.
    var parkedMode: Mode? { parkedModeName.flatMap { existingModeLocked($0) } }
    /// Set when the loop's thread exits (Loop+TearDown.swift): adds are
    /// refused and runs return at once from then on.
    @exclusivity(unchecked) var isDead = false
    /// Called once when the loop is torn down (see onTearDown).
    @exclusivity(unchecked) var tearDownHandlers: [Int: () -> Void] = [:]
    /// The descriptors in the poller's wait set and their events: those of
    /// the version-1 sources of the mode being run (Loop+Descriptors.swift).
    @exclusivity(unchecked) var watched = DescriptorMap<Mode.Watch>()
    /// Bumped whenever a version-1 source enters or leaves a mode of the
    /// loop or changes its interest.
    @exclusivity(unchecked) var descriptorEpoch: UInt64 = 0
    /// The mode and epoch `watched` was last reconciled for: a run that
    /// starts in the same mode with nothing changed since (the usual
    /// `while (...) RLRunLoopRunInMode(...)` loop) skips rebuilding it.
    @exclusivity(unchecked) var watchedFor: (mode: ObjectIdentifier, epoch: UInt64)?
    /// The main loop's source for libdispatch's main queue, once the
    /// process has been found to have one (DispatchMainQueue.swift).  Not
    /// an item of any mode: every common mode of the main loop watches it
    /// (Loop+Descriptors.swift), as CF's main loop watches the queue's port,
    /// so it makes no mode exist and shows in no mode.  nil on any other
    /// loop.
    @exclusivity(unchecked) var mainQueue: Source?
    /// True while the main loop drains libdispatch's main queue (in the
    /// source's callout): a run nested in one of its blocks does not serve
    /// the queue, as in CF (DispatchMainQueue.swift).
    @exclusivity(unchecked) var drainingMainQueue = false
    /// The last number `nextSequence` gave (observer insertion order,
    /// teardown-handler ids).
    @exclusivity(unchecked) var sequence: UInt64 = 0

    // MARK: the loop's thread only
    // Declared @exclusivity(unchecked): the guard named here makes their
    // accesses exclusive (docs/design.md, "Exclusivity checks").

    /// An emptied array with capacity, swapped with `blocks` so a pass runs
    /// queued work without allocating.
    @exclusivity(unchecked) var spareBlocks: [QueuedBlock] = []
    /// The same for the timers fired by a pass.
    @exclusivity(unchecked) var spareDueTimers: DueTimers? = nil
    /// The same for the sources a pass performs.
    @exclusivity(unchecked) var spareSources: [Source] = []
    /// The same for the version-1 sources a pass performs.
    @exclusivity(unchecked) var spareReadySources: [ReadySource] = []

    // MARK: any thread, atomic

    /// Where blocks are queued: lock-free, no pin (BlockInbox.swift).  A
    /// slot a loop had before keeps its ring, which the loop opens when it
    /// is registered; a fresh slot gets one with the loop's first queued
    /// block (`openInboxLocked`), so a loop that is never sent a block
    /// does not pay its 8.3 KB.  nil until then, and if the handle table
    /// was full.  Read without the lock (the loop's thread polls it).
    package var inbox: BlockInbox? {
        let base = inboxBase.load(ordering: .acquiring)
        return base == 0 ? nil : BlockInbox(UnsafeMutableRawPointer(bitPattern: base)!)
    }
    /// The ring's address, stored (under the lock) once when it is opened.
    let inboxBase = Atomic<UInt>(0)
    /// Whether `work`'s lists are non-empty, readable without the lock.
    package let hints: WorkHints
    /// Set once by `stopEveryRun`, read by every pass without the lock.
    package let stopsEveryRun = Atomic<Bool>(false)
    // MARK: life

    package init(ownerTID: Int32, isMain: Bool) {
        self.ownerTID = ownerTID
        self.isMain = isMain
        // Any other loop is made by its own thread (Registry.current).
        ownerThread = isMain ? 0 : ThreadIdentity.current
        let hints = WorkHints()
        self.hints = hints
        work = QueuedWork(hints: hints)
        super.init(kind: .runLoop, hot: Poller.ignoring)
        _ = modeLocked(.default)  // a new loop has its default mode, as in CF
    }

    /// The slot's block inbox becomes this loop's.
    package override func registered() {
        if handle != 0, let inbox = HandleTable.inbox(UInt(handle)) { open(inbox) }
    }

    /// A live thread's loop keeps the reference its thread holds (the
    /// registry's, dropped at thread exit; the main loop's, never): that
    /// reference is the library's, so an RLRelease that would drop it
    /// (CF's classic `CFRelease(CFRunLoopGetCurrent())`) is an
    /// over-release and is refused.  So a loop cannot be finalized under
    /// its own thread, which may be running it.
    package override func keepsLastReference() -> Bool {
        isMain || lock.withLock { !isDead }
    }

    package override func finalize() {
        // Blocks still queued (a loop torn down has none) are dropped.
        let (left, spare) = lock.withLock {
            finalized = true
            return work.drain(closing: inbox)
        }
        for block in left { block.dispose() }
        spare?.deallocate()
        pollerOnce.with {
            $0.shutdown()
            $0.closePollDescriptor()
        }
    }

    // MARK: the parts a run makes

    /// Makes the insight and the wait set if the loop has none (a run, or
    /// a driver outside, is about to use them); false if the system
    /// refuses the wait set's descriptors.
    package func makeRunParts() -> Bool {
        insightOnce.withMade({ Insight() }) { _ in }
        return makePoller()
    }

    /// Makes the wait set if the loop has none (any thread); false if the
    /// system refuses its descriptors (the caller reports it).
    package func makePoller() -> Bool {
        pollerOnce.withMade(orNil: { Poller(state: hot) }) { _ in true } ?? false
    }

    /// Calls `body` with the wait set, made already: by the run in
    /// progress (the loop's thread) or by `makePoller`.  No reference is
    /// counted (see docs/performance.md, 'The engine's devices').
    @inline(__always)
    package func withPoller<R>(_ body: (Poller) -> R) -> R { pollerOnce.with(body)! }

    /// The insight, made now if the loop has none (any thread: reading the
    /// counters of a loop that never ran makes it, and reads zeros).
    package func makeInsight() -> Insight { insightOnce.withMade({ Insight() }) { $0 } }

    /// Calls `body` with the insight, made already: by the run in progress
    /// (the loop's thread) or by `makeInsight`.  No reference counted.
    @inline(__always)
    package func withInsight<R>(_ body: (Insight) -> R) -> R { insightOnce.with(body)! }

    /// The insight, made already, unmanaged: what a step's CalloutTiming
    /// calls for its callouts.
    @inline(__always)
    package var insightReference: Unmanaged<Insight> { insightOnce.unmanaged! }

    // MARK: modes

    /// A number never given before by this loop.  Lock held.
    package func nextSequence() -> UInt64 {
        sequence &+= 1
        return sequence
    }

    /// The mode named `name`, created on first use.  Lock held.
    package func modeLocked(_ name: ModeName) -> Mode {
        if let mode = existingModeLocked(name) { return mode }
        let mode = Mode(name: name)
        modes.append(mode)
        if parkedModeName == name, runs.isEmpty {
            wakeUp()  // the driver's timeout predates the mode
        }
        return mode
    }

    /// The mode named `name` if it exists.  Lock held.
    package func existingModeLocked(_ name: ModeName) -> Mode? {
        for mode in modes where mode.name.id == name.id { return mode }
        return nil
    }

    /// Whether the calling thread is the loop's.  No system call.
    package var isOwnThread: Bool { isMain ? ThreadIdentity.isMain : ThreadIdentity.current == ownerThread }

    // MARK: stop and wake up

    package var currentModeName: ModeName? { lock.withLock { runs.last?.mode.name } }
    package var allModeNames: [ModeName] { lock.withLock { modes.map(\.name) } }

    /// Asks the innermost run to return `.stopped`: marks its frame (none:
    /// the loop is not running, and the stop is dropped, as in CF and
    /// SPEC.md) and wakes the loop.  The run reads the mark in `outcome`,
    /// at the end of each pass.
    ///
    /// Why no stop is lost.  The wake-up does nothing while the loop
    /// ignores wake-ups (WakeState.swift), from the end of a sleep to the top
    /// of the next pass, and between runs.  A stop there that `outcome`
    /// does not see (it lands after `outcome` read the mark, or after a
    /// run pushed its frame and before its first pass) would find nobody
    /// looking at the mark before the next sleep, and the run would sleep
    /// on, marked: 1 stop in ~1,000-100,000 from another thread was lost
    /// so (test_rl_stop_race).  So a stop takes part in the wake-up
    /// protocol as a queued block or a signalled source does:
    ///
    ///     stop:  mark the frame (lock);  fence;
    ///            load the state, wake if awake, spinning or asleep
    ///     loop:  state = awake;  fence;  right before the sleep, read
    ///            the mark (lock), wake itself if marked
    ///
    /// The mark and the state are a store-buffering pair.  The stop's
    /// fence is in `Poller.wakeUpWithoutSyscall`; the loop's is at the end
    /// of `Poller.acceptWakeUps`, at the top of each pass (or the end of a
    /// nested run, which may change the state), and its read is
    /// `Iteration.wakeUpIfStopped`, after the pass's last callout.  In the
    /// single order of the two fences, either the stop's comes first, and
    /// the loop's read after its own fence sees the mark; or the loop's
    /// comes first, and the stop's load sees "awake" or a later state:
    /// awake, spinning or asleep, and the stop wakes the loop; pending, and
    /// the sleep returns anyway; ignoring, and the loop has woken since,
    /// so the store of "ignoring" the stop read precedes the loop's next
    /// "awake" and fence, which therefore come after the stop's fence, and
    /// the read after them sees the mark.  Either way the sleep after the
    /// stop returns at once and the pass's `outcome` reads the mark.  (The
    /// lock alone orders nothing here: the state is not changed under it.)
    /// The read is after the pass's last callout because a nested run
    /// started there could consume a wake-up meant for this run.
    ///
    /// A loop whose thread is exiting or gone has no run to mark, and its
    /// wake-up reads "ignoring" (or finds the poller shut, see
    /// Poller.shutdown): the call does nothing.
    package func stop() {
        lock.withLock {
            guard !runs.isEmpty else { return }
            runs[runs.count - 1].stopped = true
        }
        wakeUp()
    }

    /// Stops every run of the loop for good: the runs in progress, nested
    /// ones included, and every run started later each return `.stopped`
    /// after at most one more pass, which does not sleep (see `runPasses`
    /// and `outcome`).  A pass still runs queued blocks, so work queued
    /// before the call is not lost.  Used when a worker thread stops
    /// (Thread): `stop()` ends only the innermost run, so a task
    /// running the loop nested (a "modal" task) would keep its thread alive.
    package func stopEveryRun() {
        // The store is published by the wake-up that follows, as a
        // frame's `stopped` is in `stop()`: a pass that read false before
        // it sleeps is woken by it.
        stopsEveryRun.store(true, ordering: .releasing)
        wakeUp()
    }

    /// Makes the loop's current or next sleep return.  Any thread.  A loop
    /// with no poller never slept (see `pollerOnce`): nothing to do.
    package func wakeUp() { pollerOnce.with { $0.wakeUp() } }

    /// The wake-up of `handle`'s loop when its hot word says it needs no
    /// eventfd write; false if the loop is asleep (or the handle names no
    /// loop): the caller pins it and calls `wakeUp()`.
    @inline(__always)
    package static func wakeUpWithoutPin(_ handle: UInt64) -> Bool {
        guard let word = HandleTable.hotWord(UInt(handle), kind: .runLoop) else { return false }
        return Poller.wakeUpWithoutSyscall(word)
    }

    package var isWaiting: Bool { pollerOnce.with { $0.isSleeping } ?? false }
}
