import CRunLoopShims
import Synchronization

/// Anything a mode can hold.
package enum ModeItem {
    case source(Source)
    case observer(Observer)
    case timer(LoopTimer)

    package var object: Handled {
        switch self {
        case .source(let s): return s
        case .observer(let o): return o
        case .timer(let t): return t
        }
    }
    package var id: ObjectIdentifier { ObjectIdentifier(object) }
}

/// Which loop an observer or timer belongs to: set when it joins the first
/// mode (or the common items) of a loop, cleared when it has left them all;
/// until then no other loop may take it.  Guarded by the item's own lock.
package struct LoopTie {
    package private(set) var loop: Loop?
    private var memberships: Int32 = 0

    package init() {}

    package func allows(_ candidate: Loop) -> Bool { loop == nil || loop === candidate }

    package mutating func join(_ loop: Loop) {
        self.loop = loop
        memberships += 1
    }

    package mutating func leave(times: Int32 = 1) {
        memberships -= times
        if memberships == 0 { loop = nil }
    }
}

extension ModeItem {
    /// Ties an observer or timer to `loop` for one more membership (sources
    /// may be in several loops: they have no tie).
    func tie(to loop: Loop) {
        switch self {
        case .source: break
        case .observer(let o): o.withOwnership { $0.join(loop) }
        case .timer(let t): t.withSchedule { $0.tie.join(loop) }
        }
    }

    func untie() {
        switch self {
        case .source: break
        case .observer(let o): o.withOwnership { $0.leave() }
        case .timer(let t): t.withSchedule { $0.tie.leave() }
        }
    }

    func mayJoin(_ loop: Loop) -> Bool {
        switch self {
        case .source: return true
        case .observer(let o): return o.withOwnership { $0.allows(loop) }
        case .timer(let t): return t.withSchedule { $0.tie.allows(loop) }
        }
    }
}

/// Why an add was refused.
package enum AddFailure: Error {
    case wrongLoop, invalidItem, loopGone
    /// The mode holds as many timers as it can (Mode.maxTimers).
    case full
}

/// A run of the loop in progress (the innermost is the last).
package final class RunFrame {
    package let mode: Mode
    package var stopped = false
    package init(mode: Mode) { self.mode = mode }
}

/// A thread's run loop: its modes, common modes and common items, queued
/// blocks and pending sources.  All of that is guarded by `lock`; only
/// the owning thread runs passes (Iteration.swift).
package final class Loop: Handled, @unchecked Sendable {
    package let lock = Lock()
    package let ownerTID: Int32
    package let isMain: Bool
    package let poller: Poller
    /// The process's fork generation when the loop was made: a loop of an
    /// older one is the parent's copy, in a fork child (Fork.swift).
    package let forkGeneration = Fork.generation

    // Guarded by `lock`.
    package var modes: [ModeName: Mode] = [:]
    package var modeOrder: [ModeName] = []
    package var commonModes: [ModeName] = [.default]
    package var commonItems: [ObjectIdentifier: ModeItem] = [:] { didSet { equalityEpoch &+= 1 } }
    package var commonItemOrder: [ObjectIdentifier] = []
    /// The loop's sources that compare by context (see
    /// Source.ContextIdentity), by hash value.
    package var sourcesByHash = SourceIndex() { didSet { equalityEpoch &+= 1 } }
    /// Bumped whenever what `canonical` reads changes: an add or remove
    /// checks, under the lock, that the equal source it resolved outside
    /// the lock is still the one (see `canonical`).
    private var equalityEpoch: UInt64 = 0
    /// Sources signalled since the last pass (may hold stale duplicates).
    package var pending: [Source] = [] {
        didSet { Self.setHint(pendingHint, !pending.isEmpty) }
    }
    /// Queued blocks taken from `inbox` and `overflowBlocks`, in the order
    /// queued, waiting for a pass of one of their modes.
    package var blocks: [QueuedBlock] = [] {
        didSet { Self.setHint(blocksHint, !blocks.isEmpty) }
    }
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
    private let inboxBase = Atomic<UInt>(0)
    /// Set (under the lock) when the loop is finalized: no ring is opened
    /// after that, since the slot is about to go to another object.
    private var finalized = false
    /// Blocks queued when the loop has no inbox (the handle table was full).
    package var overflowBlocks: [QueuedBlock] = [] {
        didSet { Self.setHint(overflowHint, !overflowBlocks.isEmpty) }
    }
    /// Whether `pending` / `blocks` / `overflowBlocks` are non-empty,
    /// readable without the lock: a pass skips them cheaply.  A producer
    /// sets them under the lock before its wake-up, so the pass after that
    /// wake-up sees them.
    package let pendingHint = Atomic<Bool>(false)
    package let blocksHint = Atomic<Bool>(false)
    package let overflowHint = Atomic<Bool>(false)

    /// Stores a hint only when it changes: a producer adding to a
    /// non-empty list does not write the line the loop's thread polls.
    private static func setHint(_ hint: borrowing Atomic<Bool>, _ value: Bool) {
        if hint.load(ordering: .relaxed) != value { hint.store(value, ordering: .releasing) }
    }
    /// An emptied array with capacity, swapped with `blocks` by the loop's
    /// thread so a pass runs queued work without allocating.  Loop thread only.
    package var spareBlocks: [QueuedBlock] = []
    /// An empty overflow array swapped with the inbox's full one
    /// (BlockInbox.collect).  Guarded by `lock`.
    package var spareOverflow: BlockInbox.OverflowArray?
    /// The same for the timers fired by a pass.  Loop thread only.
    package var spareDueTimers: [DueTimer] = []
    /// The same for the sources a pass performs.  Loop thread only.
    package var spareSources: [Source] = []
    package var runs: [RunFrame] = []
    package var isDead = false
    /// Called once when the loop is torn down (see onTearDown).
    package var tearDownHandlers: [Int: () -> Void] = [:]
    /// The descriptors in the poller's wait set and their events: those of
    /// the version-1 sources of the mode being run (see reconcileDescriptorsLocked).
    package var watched: [Int32: Mode.Watch] = [:]
    /// Bumped whenever a version-1 source enters or leaves a mode of the
    /// loop or changes its interest.  Lock held.
    private var descriptorEpoch: UInt64 = 0
    /// The mode and epoch `watched` was last reconciled for: a run that
    /// starts in the same mode with nothing changed since (the usual
    /// `while (...) RLRunLoopRunInMode(...)` loop) skips rebuilding it.
    private var watchedFor: (mode: ObjectIdentifier, epoch: UInt64)?
    package var sequence: UInt64 = 0
    /// The mode `existingModeLocked` found last, by name (modes are never
    /// removed, so it lives as long as the loop: no reference counted).
    private var lastModeName: ModeName?
    private var lastMode: Unmanaged<Mode>?

    package init?(ownerTID: Int32, isMain: Bool) {
        guard let poller = Poller() else { return nil }
        self.ownerTID = ownerTID
        self.isMain = isMain
        self.poller = poller
        super.init(kind: .runLoop, hot: Poller.ignoring)
        _ = modeLocked(.default)  // a new loop has its default mode, as in CF
    }

    /// The poller's wake-up state is the loop's hot word; the slot's block
    /// inbox becomes this loop's.
    package override func registered() {
        poller.state = hot
        if handle != 0, let inbox = HandleTable.inbox(UInt(handle)) { open(inbox) }
    }

    private func open(_ inbox: BlockInbox) {
        inbox.open(handle: handle)
        inboxBase.store(UInt(bitPattern: inbox.address), ordering: .releasing)
    }

    /// Makes the loop's ring if it has none yet (lock held; see `inbox`).
    /// Producers that find the slot's new ring before it is open take the
    /// locked path, which waits for this lock.
    private func openInboxLocked() {
        guard inbox == nil, handle != 0, !isDead, !finalized,
              let made = HandleTable.inbox(forLoop: handle) else { return }
        open(made)
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
        var left: [QueuedBlock] = []
        let spare: BlockInbox.OverflowArray? = lock.withLock {
            finalized = true
            inbox?.close(into: &left)
            left += blocks
            left += overflowBlocks
            blocks = []
            overflowBlocks = []
            defer { spareOverflow = nil }
            return spareOverflow
        }
        for block in left { block.dispose() }
        spare?.deallocate()
        poller.shutdown()
    }

    package func nextSequence() -> UInt64 {
        sequence &+= 1
        return sequence
    }

    /// The mode named `name`, created on first use.  Lock held.
    package func modeLocked(_ name: ModeName) -> Mode {
        if let mode = existingModeLocked(name) { return mode }
        let mode = Mode(name: name)
        modes[name] = mode
        modeOrder.append(name)
        return mode
    }

    /// Makes sure the mode named `name` exists (no reference taken in the
    /// usual case: the mode of the previous call).  Lock held.
    package func ensureModeLocked(_ name: ModeName) {
        if lastModeName == name { return }
        _ = modeLocked(name)
    }

    /// The mode named `name` if it exists.  Lock held.
    package func existingModeLocked(_ name: ModeName) -> Mode? {
        // Most calls name the mode of the previous one: no hashing then.
        if lastModeName == name, let last = lastMode { return last.takeUnretainedValue() }
        guard let mode = modes[name] else { return nil }
        lastModeName = name
        lastMode = Unmanaged.passUnretained(mode)
        return mode
    }

    package var currentModeName: ModeName? { lock.withLock { runs.last?.mode.name } }
    package var allModeNames: [ModeName] { lock.withLock { modeOrder } }

    package func addCommonMode(_ name: ModeName) {
        var deferred = Deferred()
        lock.withLock {
            guard !isDead, !commonModes.contains(name) else { return }
            commonModes.append(name)
            for id in commonItemOrder {
                _ = insertLocked(commonItems[id]!, into: name, &deferred)
            }
        }
        deferred.run()
    }

    // MARK: adding and removing items

    /// The item the loop already holds that CF would consider the same as
    /// `item`: for a source, an equal-context source (see
    /// Source.ContextIdentity); otherwise `item` itself.  Calls the
    /// context's `equal` with no lock held, so the answer can be stale by
    /// the time the caller takes the lock again (another thread removed and
    /// released that source, or added an equal one): `epoch` is
    /// `equalityEpoch` as it was read, and the caller redoes the lookup
    /// when it changed (`withCanonical`).  nil for an item that compares by
    /// identity.
    private func canonical(_ item: ModeItem) -> (item: ModeItem, epoch: UInt64?) {
        guard case .source(let source) = item, let identity = source.identity else { return (item, nil) }
        let (candidates, epoch): ([Source], UInt64) = lock.withLock {
            if (source.membership(in: self)?.modes ?? 0) > 0 || commonItems[item.id] != nil { return ([], equalityEpoch) }
            return (sourcesByHash.sources(hash: identity.hashValue), equalityEpoch)
        }
        for candidate in candidates where candidate.isEquivalent(to: source) { return (.source(candidate), epoch) }
        return (item, epoch)
    }

    /// Runs `body` with the lock held on `item` resolved by `canonical`,
    /// the resolution still current (looked up again if the equal sources
    /// changed meanwhile).  Before, a source resolved to an equal one that
    /// another thread then removed and released was added back dead (its
    /// reference silently not taken) and released again by a later remove:
    /// spurious kRLErrorOverRelease reports from balanced code (issue 22).
    private func withCanonical<T>(_ item: ModeItem, _ body: (ModeItem) -> T) -> T {
        while true {
            let (resolved, epoch) = canonical(item)
            let result: T? = lock.withLock {
                if let epoch, epoch != equalityEpoch { return nil }
                return body(resolved)
            }
            if let result { return result }
        }
    }

    /// Adds an item to a mode or to the common modes.  No-op if present.
    package func add(_ item: ModeItem, to name: ModeName) -> Result<Void, AddFailure> {
        var deferred = Deferred()
        let result: Result<Void, AddFailure> = withCanonical(item) { item in
            if isDead { return .failure(.loopGone) }
            if !name.isCommonModes { return insertLocked(item, into: name, &deferred) }
            if commonItems[item.id] != nil { return .success(()) }
            if let failure = ownershipFailure(item) { return .failure(failure) }
            commonItems[item.id] = item
            commonItemOrder.append(item.id)
            commonJoinedLocked(item)
            item.object.retainRef()
            for mode in commonModes { _ = insertLocked(item, into: mode, &deferred) }
            return .success(())
        }
        deferred.run()
        return result
    }

    /// `add` for a timer: no canonical item to look for (a timer is only
    /// ever itself), so a concrete mode goes straight to its insertion.
    package func add(timer: LoopTimer, to name: ModeName) -> Result<Void, AddFailure> {
        if name.isCommonModes { return add(.timer(timer), to: name) }
        var deferred = Deferred()
        let result: Result<Void, AddFailure> = lock.withLock {
            isDead ? .failure(.loopGone) : insertTimerLocked(timer, into: name, &deferred)
        }
        deferred.run()
        return result
    }

    package func remove(_ item: ModeItem, from name: ModeName) {
        var deferred = Deferred()
        withCanonical(item) { item in
            if !name.isCommonModes {
                eraseLocked(item, from: name, &deferred)
            } else if dropCommonLocked(item.id, &deferred) != nil {
                for mode in commonModes { eraseLocked(item, from: mode, &deferred) }
            }
        }
        deferred.run()
    }

    package func contains(_ item: ModeItem, in name: ModeName) -> Bool {
        withCanonical(item) { item in
            if name.isCommonModes { return commonItems[item.id] != nil }
            guard let mode = existingModeLocked(name) else { return false }
            switch item {
            case .source(let s): return mode.sources[ObjectIdentifier(s)] != nil
            case .observer(let o): return mode.containsObserver(o)
            case .timer(let t): return t.placements.placement(in: mode) != nil
            }
        }
    }

    /// Removes an item from every mode and from the common items (used by
    /// invalidation).
    package func removeEverywhere(_ object: Handled) {
        var deferred = Deferred()
        lock.withLock { removeEverywhereLocked(object, &deferred) }
        deferred.run()
    }

    /// The same with the lock held; cancel callouts and reference drops
    /// are deferred.
    package func removeEverywhereLocked(_ object: Handled, _ deferred: inout Deferred) {
        if let timer = object as? LoopTimer { return removeTimerEverywhereLocked(timer, &deferred) }
        if !commonItems.isEmpty { _ = dropCommonLocked(ObjectIdentifier(object), &deferred) }
        switch object {
        case let s as Source: for name in modeOrder { eraseLocked(.source(s), from: name, &deferred) }
        case let o as Observer: for name in modeOrder { eraseLocked(.observer(o), from: name, &deferred) }
        default: break
        }
    }

    /// The same for a timer (no type test): it knows its modes, so no walk
    /// over every mode either.
    package func removeTimerEverywhereLocked(_ timer: LoopTimer, _ deferred: inout Deferred) {
        let common = !commonItems.isEmpty && commonItems[ObjectIdentifier(timer)] != nil
        // One stripe hold: it is still this loop's (a callout may have
        // moved it to another loop, whose lock guards its placements then),
        // and it leaves every membership here.
        let owned = timer.withSchedule { s -> Bool in
            guard s.loop === self else { return false }
            s.tie.leave(times: Int32(timer.placements.count) + (common ? 1 : 0))
            return true
        }
        guard owned else { return }
        if common { _ = dropCommonLocked(ObjectIdentifier(timer), &deferred, untie: false) }
        while let placement = timer.placements.removeAny() {
            deferred.release(owned: placement.mode.takeUnretainedValue().removeTimer(slot: placement.slot))
        }
    }

    // An item belongs to this loop while it is in one of its modes or in its
    // common items: that tie is what invalidation follows (the source's
    // loops, the observer's and timer's owner), so a common item that was
    // removed by name from every mode is still found and dropped.

    private func commonJoinedLocked(_ item: ModeItem) {
        if case .source(let s) = item { s.updateMembership(in: self) { $0.common = true } } else { item.tie(to: self) }
    }

    private func commonLeftLocked(_ item: ModeItem) {
        if case .source(let s) = item {
            s.updateMembership(in: self) { $0.common = false }
        } else {
            item.untie()
        }
    }

    /// Takes an item out of the common items (not out of the modes); the
    /// reference drop is deferred.  Lock held.
    private func dropCommonLocked(_ id: ObjectIdentifier, _ deferred: inout Deferred, untie: Bool = true) -> ModeItem? {
        guard let item = commonItems.removeValue(forKey: id) else { return nil }
        commonItemOrder.removeAll { $0 == id }
        if untie { commonLeftLocked(item) }
        deferred.release(item.object)
        return item
    }

    /// An observer or timer already scheduled on another loop cannot join
    /// this one.  Lock held.
    private func ownershipFailure(_ item: ModeItem) -> AddFailure? {
        switch item {
        case .source(let s): guard s.isValid else { return .invalidItem }
        case .observer(let o): guard o.isValid else { return .invalidItem }
        case .timer(let t): guard t.isValid else { return .invalidItem }
        }
        return item.mayJoin(self) ? nil : .wrongLoop
    }

    /// Puts an item into one concrete mode.  Lock held; the schedule
    /// callout and nothing else is deferred.
    private func insertLocked(_ item: ModeItem, into name: ModeName, _ deferred: inout Deferred) -> Result<Void, AddFailure> {
        if case .timer(let timer) = item { return insertTimerLocked(timer, into: name, &deferred) }
        if let failure = ownershipFailure(item) { return .failure(failure) }
        let mode = modeLocked(name)
        let id = item.id
        switch item {
        case .source(let source):
            guard mode.sources[id] == nil else { return .success(()) }
            mode.insertSource(source)
            if source.isVersion1 { descriptorsEditedLocked(mode) }
            let count = source.updateMembership(in: self) { $0.entered(mode) }.modes
            if count == 1, let identity = source.identity { sourcesByHash.insert(source, hash: identity.hashValue) }
            // After the sequentially consistent store of the source's
            // soleLoop (updateMembership) and a fence: a signal() whose
            // compare-and-swap of the mark this load misses loads soleLoop
            // after it, sees this loop, and queues on it.
            if (source.hot.loadAfterFence() ?? 0) & Source.signalledBit != 0 {
                pending.append(source)
                // Signalled and woken elsewhere: a sleeping loop of another
                // thread would not look at it (RLRunLoopSourceSignalAndWakeUp).
                if source.takeWokenMark() && rl_gettid() != ownerTID { deferred.call { [poller] in poller.wakeUp() } }
            }
            if source.hasSchedule { deferred.call { source.schedule(self, name) } }
        case .observer(let observer):
            guard !mode.containsObserver(observer) else { return .success(()) }
            item.tie(to: self)
            mode.insertObserver(observer, added: nextSequence())
        case .timer:
            return .success(())  // not reached: insertTimerLocked, above
        }
        item.object.retainRef()
        return .success(())
    }

    /// `insertLocked` for a timer: the ownership check and the tie to this
    /// loop are one stripe hold.
    private func insertTimerLocked(_ timer: LoopTimer, into name: ModeName, _ deferred: inout Deferred) -> Result<Void, AddFailure> {
        guard timer.isValid else { return .failure(.invalidItem) }
        // Tied to this loop in the same hold as the check and the read.
        let deadline: UInt64? = timer.withSchedule { s in
            guard s.tie.allows(self) else { return nil }
            s.tie.join(self)
            return s.deadline
        }
        guard let deadline else { return .failure(.wrongLoop) }
        let mode = modeLocked(name)
        let already = timer.placements.placement(in: mode) != nil
        guard !already, mode.timerCount < Mode.maxTimers else {
            timer.withSchedule { $0.tie.leave(times: 1) }  // no new membership
            return already ? .success(()) : .failure(.full)
        }
        let slot = mode.insertTimer(timer)
        timer.placements.insert(.init(mode: Unmanaged.passUnretained(mode), slot: slot))
        // A firing timer is scheduled in all its modes after its callout.
        if !timer.firing { mode.scheduleTimer(slot: slot, deadline: deadline) }
        // A loop asleep in this mode must re-arm for the new timer.
        if runs.last?.mode === mode && rl_gettid() != ownerTID { deferred.call { [poller] in poller.wakeUp() } }
        timer.retainRef()
        return .success(())
    }

    /// Takes an item out of one concrete mode.  Lock held; cancel and the
    /// reference drop are deferred.
    private func eraseLocked(_ item: ModeItem, from name: ModeName, _ deferred: inout Deferred) {
        guard let mode = existingModeLocked(name) else { return }
        eraseLocked(item, from: mode, &deferred)
    }

    private func eraseLocked(_ item: ModeItem, from mode: Mode, _ deferred: inout Deferred) {
        let name = mode.name
        switch item {
        case .source(let source):
            guard mode.removeSource(source) else { return }
            if source.isVersion1 { descriptorsEditedLocked(mode) }
            let count = source.updateMembership(in: self) { $0.left() }.modes
            if count == 0, let identity = source.identity { sourcesByHash.remove(source, hash: identity.hashValue) }
            if source.hasCancel { deferred.call { source.cancel(self, name) } }
        case .observer(let observer):
            guard mode.removeObserver(observer) else { return }
            item.untie()
        case .timer(let timer):
            guard let placement = timer.placements.remove(from: mode) else { return }
            // `deferred` takes over the mode's reference, dropped once unlocked.
            deferred.release(owned: mode.removeTimer(slot: placement.slot))
            item.untie()
            return
        }
        deferred.release(item.object)
    }

    // MARK: timers

    /// Schedules a timer at `deadline` in every mode of this loop holding
    /// it, each entry behind those already there (FIFO).  Lock held.
    package func scheduleTimerLocked(_ timer: LoopTimer, at deadline: UInt64) {
        timer.placements.forEach { mode, slot in
            mode.scheduleTimer(slot: slot, deadline: deadline)
        }
    }

    /// A timer's fire date changed (from any thread): schedule its new
    /// deadline in each of its modes and wake the loop so it re-arms.
    package func timerMoved(_ timer: LoopTimer) {
        let affectsCurrent: Bool = lock.withLock {
            // A firing timer is rescheduled after its callout (which keeps
            // the new date).  It may have left this loop meanwhile.
            let (deadline, loop) = timer.withSchedule { ($0.deadline, $0.loop) }
            guard !timer.firing, loop === self else { return false }
            scheduleTimerLocked(timer, at: deadline)
            return runs.last.map { timer.placements.placement(in: $0.mode) != nil } ?? false
        }
        if affectsCurrent && rl_gettid() != ownerTID { poller.wakeUp() }
    }

    /// The earliest fire date of the mode's valid timers, or 0.
    package func nextTimerFireDate(in name: ModeName) -> Double {
        lock.withLock {
            guard let mode = existingModeLocked(name), let entry = mode.earliestTimer() else { return 0 }
            return mode.timer(at: entry.slot)._withUnsafeGuaranteedRef { $0.nextFireDate }
        }
    }

    // MARK: descriptors of version-1 sources

    /// Makes the poller watch exactly the descriptors of `mode`'s valid
    /// version-1 sources (level-triggered, so a ready descriptor of a mode
    /// not being run must not stay in the set).  Called when a run starts
    /// or returns to an outer run, and when the running mode's version-1
    /// sources or their interests change.  Lock held.
    package func reconcileDescriptorsLocked(_ mode: Mode) {
        // A torn-down loop's poller is shut (its descriptors closed):
        // nothing may reach epoll_ctl, and only this checks, under the lock
        // that `tearDown` sets `isDead` under before it shuts the poller.
        if isDead { return }
        let key = (mode: ObjectIdentifier(mode), epoch: descriptorEpoch)
        if let done = watchedFor, done == key { return }
        watchedFor = key
        if watched.isEmpty && mode.descriptorSources.isEmpty { return }
        let wanted = mode.wantedDescriptors()
        for fd in watched.keys where wanted[fd] == nil { poller.unwatch(fd) }
        for (fd, watch) in wanted where watched[fd] != watch {
            poller.watch(fd, events: watch.events)
        }
        watched = wanted
        // A descriptor epoll cannot watch is ready at once: a sleeping
        // loop would not hear of it (see Poller.alwaysReady).
        if poller.hasAlwaysReady.load(ordering: .relaxed) && rl_gettid() != ownerTID { poller.wakeUp() }
    }

    /// A version-1 source entered or left `mode`: the wait set is rebuilt
    /// now if `mode` is being run or was the last one run (the set still
    /// holds its descriptors: a source invalidated while the loop is idle
    /// must leave it before the user closes its descriptor, or the
    /// registration could outlive the number), else when a run next
    /// starts.  Lock held.
    private func descriptorsEditedLocked(_ mode: Mode) {
        descriptorEpoch &+= 1
        if runs.last?.mode === mode || watchedFor?.mode == ObjectIdentifier(mode) { reconcileDescriptorsLocked(mode) }
    }

    /// A version-1 source's interest changed (any thread).
    package func descriptorsChanged(_ source: Source) {
        lock.withLock {
            descriptorEpoch &+= 1
            if let mode = runs.last?.mode, mode.sources[ObjectIdentifier(source)] != nil {
                reconcileDescriptorsLocked(mode)
            }
        }
        reportDescriptorProblems()
    }

    /// Reports what the poller met watching descriptors (misuse such as a
    /// descriptor closed while watched, a ghost removed, an epoll_ctl
    /// failure), through the error channel, with no lock held.
    package func reportDescriptorProblems() {
        guard poller.hasProblems.load(ordering: .acquiring) else { return }
        for problem in lock.withLock({ poller.takeProblems() }) {
            reportError("RLRunLoopRunInMode", .invalidArgument, problem)
        }
    }

    /// The running mode's version-1 sources for the ready descriptors, by
    /// order, with the events each should see.  Descriptors epoll cannot
    /// watch count as ready for the events wanted.  A report from a ghost
    /// registration (see Poller) is dropped, and the wait set is rebuilt
    /// without it.  Lock held.
    package func readySourcesLocked(_ mode: Mode, _ polled: [Poller.Ready]) -> [ReadySource] {
        let always = EPOLLHUP.rawValue | EPOLLERR.rawValue
        var ready = polled
        if poller.hasAlwaysReady.load(ordering: .relaxed) {
            for (fd, events) in poller.alwaysReady { ready.append(Poller.Ready(fd: fd, events: events)) }
        }
        var found: [ReadySource] = []
        found.reserveCapacity(ready.count)
        var ordersDiffer = false
        var rebuilt = false
        for r in ready {
            if poller.isGhost(r) {
                if !rebuilt { poller.rebuildWaitSet(ghost: r.fd) }
                rebuilt = true
                continue
            }
            guard let list = mode.descriptorSources[r.fd] else { continue }
            for source in list where source.isValid {
                let events = r.events & (source.interest | always)
                guard events != 0 else { continue }
                if let first = found.first, first.source.order != source.order { ordersDiffer = true }
                found.append(ReadySource(source: source, events: events))
            }
        }
        // Usually every source has the same order: nothing to sort.
        return ordersDiffer ? found.sorted { $0.source.order < $1.source.order } : found
    }

    /// A version-1 source to perform, with the events it should see.
    package struct ReadySource {
        package let source: Source
        package let events: UInt32
    }

    // MARK: sources, blocks, stop

    /// Queues a signalled source under the lock (Source.signal, when its
    /// lock-free path cannot), and opens the ring that path uses, so the
    /// next signal of a source in this loop alone takes it.
    package func enqueuePending(_ source: Source) {
        lock.withLock {
            pending.append(source)
            openInboxLocked()
        }
    }

    package func perform(in names: [ModeName], _ work: @escaping () -> Void) -> Bool {
        enqueue(QueuedBlock(modes: BlockModes(names), closure: work))
    }

    package func perform(in modes: BlockModes, _ work: @escaping () -> Void) -> Bool {
        enqueue(QueuedBlock(modes: modes, closure: work))
    }

    package func perform(in modes: BlockModes, function: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void,
                         info: UnsafeMutableRawPointer?) -> Bool {
        enqueue(QueuedBlock(modes: modes, function: function, info: info))
    }

    /// Queues `block` (the path with the lock: RLRunLoopPerformFunction
    /// takes the inbox directly when it can); false (the block disposed
    /// of) if the loop is gone.
    private func enqueue(_ block: QueuedBlock) -> Bool {
        let queued: Bool = lock.withLock {
            guard !isDead else { return false }
            openInboxLocked()
            // A block's modes exist from when it is queued (as in CF); the
            // usual case, every block for the same mode, is one comparison.
            switch block.modes {
            case .one(let name):
                if !name.isCommonModes {
                    ensureModeLocked(name)
                    inbox?.ensured(name)  // the lock-free path may queue for it now
                }
            case .list(let names):
                for name in names where !name.isCommonModes { ensureModeLocked(name) }
            }
            if let inbox, inbox.queue(block, handle: handle) {
                return true
            }
            overflowBlocks.append(block)  // no inbox (or no longer the loop's: never run)
            return true
        }
        if !queued { block.dispose() }
        return queued
    }

    /// Whether a block may be queued: a cheap check with no lock, for the
    /// loop's thread.
    @inline(__always)
    package var mayHaveBlocks: Bool {
        if blocksHint.load(ordering: .acquiring) || overflowHint.load(ordering: .acquiring) { return true }
        return inbox?.mayHaveBlocks() ?? false
    }

    /// Moves the blocks queued since the last call to `blocks`, in order.
    /// Lock held; the loop's thread (the inbox's one consumer, see
    /// BlockInbox).
    /// Signal entries among them (Source.signal) go to `pending`.
    package func collectQueuedLocked() {
        if let inbox, inbox.mayHaveBlocks() {
            let start = blocks.count
            if inbox.collect(into: &blocks, spare: &spareOverflow) { takeSignalEntriesLocked(from: start) }
        }
        if !overflowBlocks.isEmpty {
            blocks += overflowBlocks
            overflowBlocks.removeAll(keepingCapacity: true)
        }
    }

    /// Moves the signal entries among `blocks[start...]` to `pending`,
    /// keeping the blocks in order.  Lock held.
    private func takeSignalEntriesLocked(from start: Int) {
        var kept = start
        for index in start..<blocks.count {
            if let source = blocks[index].takeSignalledSource() {
                pending.append(source)
            } else {
                if kept != index { blocks[kept] = blocks[index] }
                kept += 1
            }
        }
        if kept < blocks.count { blocks.removeSubrange(kept...) }
    }

    package func stop() {
        lock.withLock { runs.last?.stopped = true }
        poller.wakeUp()
    }

    /// Stops every run of the loop for good: the runs in progress, nested
    /// ones included, and every run started later each return `.stopped`
    /// after at most one more pass, which does not sleep (see `runPasses`
    /// and `outcome`).  A pass still runs queued blocks, so work queued
    /// before the call is not lost.  Used when a worker thread stops
    /// (WorkerThread): `stop()` ends only the innermost run, so a task
    /// running the loop nested (a "modal" task) would keep its thread alive.
    package func stopEveryRun() {
        // The store is published by the wake-up that follows, as a
        // frame's `stopped` is in `stop()`: a pass that read false before
        // it sleeps is woken by it.
        stopsEveryRun.store(true, ordering: .releasing)
        poller.wakeUp()
    }

    /// Set once by `stopEveryRun`, read by every pass without the lock.
    package let stopsEveryRun = Atomic<Bool>(false)

    package func wakeUp() { poller.wakeUp() }

    /// Wakes the loop `handle` names, if it is still alive; nothing
    /// otherwise (no error).  Awake, spinning or already pending: the hot
    /// word alone, no pin.
    package static func wakeUp(handle: UInt64, from function: StaticString) {
        if wakeUpWithoutPin(handle) { return }
        guard case .pinned(let object) = HandleTable.pin(UInt(handle), kind: .runLoop) else { return }
        defer { HandleTable.unpin(handle, from: function) }
        Unmanaged<Loop>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.wakeUp() }
    }

    /// The wake-up of `handle`'s loop when its hot word says it needs no
    /// eventfd write; false if the loop is asleep (or the handle names no
    /// loop): the caller pins it and calls `wakeUp()`.
    @inline(__always)
    package static func wakeUpWithoutPin(_ handle: UInt64) -> Bool {
        guard let word = HandleTable.hotWord(UInt(handle), kind: .runLoop) else { return false }
        return Poller.wakeUpWithoutSyscall(word)
    }

    package var isWaiting: Bool { poller.isSleeping }

    // MARK: teardown

    /// Registers `handler` to run (on the exiting thread, no lock held)
    /// when the loop is torn down.  Returns an id for
    /// `removeTearDownHandler`, or nil if the loop is already gone.
    package func onTearDown(_ handler: @escaping () -> Void) -> Int? {
        lock.withLock {
            guard !isDead else { return nil }
            let id = Int(truncatingIfNeeded: nextSequence())
            tearDownHandlers[id] = handler
            return id
        }
    }

    package func removeTearDownHandler(_ id: Int) {
        lock.withLock { _ = tearDownHandlers.removeValue(forKey: id) }
    }

    /// Empties the loop when its thread exits: every item leaves every
    /// mode (sources get their cancel callouts on this thread), queued
    /// blocks are dropped, further adds are refused, and the poller's
    /// three descriptors are closed, however many handles to the loop are
    /// still retained (a dead loop never sleeps again; see
    /// Poller.shutdown for the wake-ups that race the close).
    package func tearDown() {
        var deferred = Deferred()
        let dropped: [QueuedBlock] = lock.withLock {
            isDead = true
            // No block is queued from here; those queued are dropped.
            inbox?.close(into: &blocks)
            blocks += overflowBlocks
            overflowBlocks = []
            for id in commonItemOrder { _ = dropCommonLocked(id, &deferred) }
            for name in modeOrder {
                guard let mode = modes[name] else { continue }
                var items: [ModeItem] = mode.sources.values.map { .source($0) }
                items += mode.observers.map { .observer($0.observer) }
                items += mode.allTimers.map { .timer($0) }
                for item in items { eraseLocked(item, from: mode, &deferred) }
                mode.resetTimers()
            }
            pending = []
            defer { blocks = [] }
            return blocks
        }
        // Queued work is released here, with no lock held.
        deferred.run()
        for block in dropped { block.dispose() }
        let handlers = lock.withLock { () -> [() -> Void] in
            defer { tearDownHandlers = [:] }
            return tearDownHandlers.sorted { $0.key < $1.key }.map(\.value)
        }
        for handler in handlers { handler() }
        // Last: a teardown handler may still wake the loop (harmless).
        // From here the loop's descriptors are closed: `isDead` (set above,
        // under the lock) keeps reconcileDescriptorsLocked from epoll_ctl,
        // `run` refuses a dead loop (no wait), and wake-ups are settled by
        // the poller.
        poller.shutdown()
    }
}
