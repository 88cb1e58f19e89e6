import CRunLoopShims
import Synchronization

/// A loop's signalled version-0 sources, and the one route a signal takes
/// to them; the walk of a signal, in this file:
///
/// 1. The mark.  `Source.signal()` sets `signalledBit` in the source's hot
///    word (a source already pending costs one load); whoever sets it
///    queues the source, once (`queuePending`).
/// 2. The route: the source is appended to the `PendingSources` of each
///    loop holding it, under that loop's lock (`Loop.enqueuePending`).
/// 3. The take: the sources step (`Loop.performSignalled`) takes, under the
///    lock, the pending sources of its mode.  Nothing else moves them, so
///    a signal made before that step is performed in that pass, wherever
///    the other steps stand (LoopTests `PassOrderTests`,
///    test_signal_before_sources).
/// 4. The claim: `Source.claimPerform` clears the mark just before the
///    perform; a signal after it marks and queues the source again.
///
/// Entries may be stale (the source left the loop, or was taken through a
/// duplicate): the pass drops them (`Loop.pendingEntryLocked`).  Why no
/// signal or wake-up is lost: the wake-up protocol (Wait/WakeState.swift);
/// the fences below are its.
package struct PendingSources {
    /// Sources signalled since a pass last took them (may hold duplicates).
    private var list: [Source] = []

    package init() {}

    /// The locked route (`Loop.enqueuePending`), and sources a pass took but
    /// did not perform (a run that returns after one source).
    package mutating func add(_ source: Source) { list.append(source) }
    package mutating func add(_ sources: ArraySlice<Source>) { list.append(contentsOf: sources) }

    package func contains(where isMine: (Source) -> Bool) -> Bool { list.contains(where: isMine) }

    package mutating func removeAll() { list = [] }

    /// Moves the pending sources into `ready` (empty): `take` answers, for
    /// each, nil to drop it (a stale entry), true to take it, false to leave
    /// it pending (another mode's).  Taken once each.
    package mutating func take(into ready: inout [Source], _ take: (Source) -> Bool?) {
        guard !list.isEmpty else { return }
        // The usual case, one pending source: no set, no copy.
        if list.count == 1 {
            guard let taken = take(list[0]) else { list.removeLast(); return }
            if taken { ready.append(list.removeLast()) }  // else it stays pending for its mode
            return
        }
        var later: [Source] = []
        var seen = Set<ObjectIdentifier>()
        for source in list {
            guard let taken = take(source) else { continue }
            if !taken {
                later.append(source)
            } else if seen.insert(ObjectIdentifier(source)).inserted {
                ready.append(source)
            }
        }
        list = later
    }
}

extension Loop {
    // MARK: the sources step

    /// Performs the signalled sources of the run's mode by order (ties:
    /// first signalled first).  Returns whether any was performed.  With
    /// `returnAfterSourceHandled`, performs one and leaves the rest pending.
    /// A run whose passes keep performing sources gives way now and then
    /// (`giveWay`).
    package func performSignalledSources(_ mode: Mode, returnAfterSourceHandled: Bool,
                                         busySince: inout UInt64) -> Bool {
        let handled = performSignalled(mode, returnAfterSourceHandled: returnAfterSourceHandled)
        busySince = handled ? giveWay(busySince: busySince) : 0
        return handled
    }

    /// Performs the signalled sources of `mode` (see
    /// `performSignalledSources`); returns whether any was performed.
    private func performSignalled(_ mode: Mode, returnAfterSourceHandled: Bool) -> Bool {
        var ready: [Source] = []
        swap(&ready, &spareSources)  // empty: a nested run may have it
        lock.withLock { work.takePending(into: &ready) { pendingEntryLocked($0, mode) } }
        var handled = false
        if !ready.isEmpty {
            if ready.count > 1 {
                ready.sort { $0.order != $1.order ? $0.order < $1.order : $0.pendingSince < $1.pendingSince }
            }
            var timing = CalloutTiming(.source, insightReference)
            for index in ready.indices {
                if handled && returnAfterSourceHandled {
                    let rest = ready[index...]
                    lock.withLock { work.addPending(rest) }
                    break
                }
                // `ready` holds a reference to each until it is emptied below.
                Unmanaged.passUnretained(ready[index])._withUnsafeGuaranteedRef { source in
                    guard source.isValid, source.claimPerform() else { return }
                    callOutToSource(source, &timing)
                    handled = true
                }
            }
            ready.removeAll(keepingCapacity: true)
        }
        swap(&ready, &spareSources)
        return handled
    }

    /// Version-0 sources have kept this run busy (every pass since
    /// `busySince` performed one, so none waited): once that has lasted
    /// `giveWayAfterNs`, the loop's thread gives its CPU to any thread
    /// waiting for one (`sched_yield`) before the pass goes on (it will
    /// poll, not sleep), and the streak starts again.  Returns the
    /// streak's new start.
    ///
    /// Signals coalesce: a pass performs a source once however many times
    /// it was signalled, so a loop that drains a flood as fast as it can
    /// buys nothing by it, and on a machine with more runnable threads
    /// than CPUs it takes a CPU share from the threads doing the
    /// signalling (two producers and a loop on two CPUs: the loop had ~25%
    /// of the samples, ~500 signals a perform).  Given way, a later pass
    /// performs the source once for all the signals sent meanwhile.  With
    /// no other thread waiting the call returns at once (one system call,
    /// ~0.7 µs on our VMs, at most once per `giveWayAfterNs` of busy
    /// passes: ~1.5%).  Queued blocks and descriptors do not count: each
    /// block is work of its own, and a ready descriptor stays ready.
    private func giveWay(busySince: UInt64) -> UInt64 {
        let now = Clock.monotonicNow()
        guard busySince != 0 else { return now }
        guard now &- busySince >= Self.giveWayAfterNs else { return busySince }
        rl_yield()
        withInsight { $0.statistics.bump(.busyYields) }
        return Clock.monotonicNow()
    }

    /// How long sources may keep a run busy before it gives way (50 µs).
    package static let giveWayAfterNs: UInt64 = 50_000

    /// A `pending` entry: nil if it no longer counts (not signalled,
    /// invalid, or in none of this loop's modes: a stale duplicate),
    /// otherwise whether `mode` holds it.  A source in one mode knows which
    /// (its membership's `soleMode`), so the usual check reads only the
    /// source, not the mode's set.  Lock held.
    func pendingEntryLocked(_ source: Source, _ mode: Mode) -> Bool? {
        guard source.isSignalled, source.isValid, let membership = source.membership(in: self),
              membership.modes > 0 else { return nil }
        if let sole = membership.soleMode { return sole.toOpaque() == Unmanaged.passUnretained(mode).toOpaque() }
        return mode.containsSource(source)
    }

    /// The route of a signal (see PendingSources).
    package func enqueuePending(_ source: Source) { lock.withLock { work.addPending(source) } }
}

extension Source {
    /// The mark: `hot` has signalledBit from `signal()` until the loop
    /// claims the perform (in the hot word, so RLRunLoopSourceSignal on a
    /// pending source is one load with no pin).
    package static let signalledBit: UInt32 = 1
    /// Set with signalledBit by `signalAndWakeUp()`: a wake-up of every
    /// loop holding the source follows this pending mark, so another
    /// signal-and-wake-up has nothing to do (one load, like a pending
    /// signal).  Cleared with signalledBit by the claim.
    package static let wokenBit: UInt32 = 2
    private static let signalCounter = Atomic<UInt64>(0)

    package var isSignalled: Bool { (hot.load() ?? 0) & Self.signalledBit != 0 }
    package var pendingSince: UInt64 { signalSeq.load(ordering: .relaxed) }

    /// Marks the source pending and queues it on every loop holding it.
    /// Several signals before the loop looks give one perform.
    package func signal() {
        guard isValid, !isVersion1 else { return }  // version 1 is driven by its descriptor
        // Already pending: nothing to do (no shared counter, no lock).  A
        // sequentially consistent load: if it still sees the mark, the
        // claim that clears it comes later, and the perform after that
        // claim's fence (`claimPerform`) sees what the caller published
        // before this call with a lock or sequentially consistent atomics.
        if (hot.loadSeqCst() ?? 0) & Self.signalledBit != 0 { return }
        guard hot.compareExchange(expected: 0, desired: Self.signalledBit).exchanged else { return }
        queuePending()
        // A signalAndWakeUp() that found the mark set while it was being
        // queued left the wake-up to this call (it could not know when the
        // queue was done).
        if (hot.loadAfterFence() ?? 0) & Self.wokenBit != 0 { wakeLoops() }
    }

    /// `signal()` and a wake-up of every loop holding the source, in one
    /// call (RLRunLoopSourceSignalAndWakeUp).  Whoever sets wokenBit wakes
    /// the loops, after the source is queued; a call that finds it set does
    /// nothing.  One load when the source is pending and woken.
    package func signalAndWakeUp() {
        guard isValid, !isVersion1 else { return }
        // Sequentially consistent, like `signal()`'s check.
        var current = hot.loadSeqCst()
        while let value = current, value & Self.wokenBit == 0 {
            let (done, now) = hot.compareExchange(expected: value, desired: Self.signalledBit | Self.wokenBit)
            if done {
                // From 0 this call queues the source.  From signalledBit a
                // signal() is queueing it: the loops are woken here, and
                // by that signal() if it has not finished queueing.
                if value == 0 { queuePending() }
                wakeLoops()
                return
            }
            current = now
        }
    }

    /// Clears wokenBit; true if it was set.  A loop that adds a pending
    /// source calls it: the wake-up the bit promised went to the loops the
    /// source was in then, so the adding loop wakes itself (when another
    /// thread adds it), and the next signalAndWakeUp() wakes again.
    package func takeWokenMark() -> Bool { clearMarks(Self.wokenBit, ifSet: Self.wokenBit) }

    /// Clears `marks` in the hot word if `trigger` is set there; true if
    /// this call cleared them.
    private func clearMarks(_ marks: UInt32, ifSet trigger: UInt32) -> Bool {
        var current = hot.load()
        while let value = current, value & trigger != 0 {
            let (done, now) = hot.compareExchange(expected: value, desired: value & ~marks)
            if done { return true }
            current = now
        }
        return false
    }

    /// Queues the newly pending source on every loop holding it (the
    /// route, see PendingSources).  The loops are read under the source's
    /// stripe, after the mark was set: a loop adding the source meanwhile
    /// either is among them or sees the mark (`Loop.insertLocked`).
    private func queuePending() {
        signalSeq.store(Source.signalCounter.wrappingAdd(1, ordering: .relaxed).newValue, ordering: .relaxed)
        let (first, rest) = withLoops { $0.split }
        first?.enqueuePending(self)
        for membership in rest { membership.loop.enqueuePending(self) }
    }

    /// Wakes every loop holding the source.
    private func wakeLoops() {
        let (first, rest) = withLoops { $0.split }
        first?.wakeUp()
        for membership in rest { membership.loop.wakeUp() }
    }

    /// Clears the pending mark; true if this caller gets to perform.
    package func claimPerform() -> Bool {
        guard clearMarks(Self.signalledBit | Self.wokenBit, ifSet: Self.signalledBit) else { return false }
        // The loop's fence: a producer that still saw the mark (and so
        // returned without signalling) published its data before its
        // sequentially consistent load, and the perform reads it after this
        // fence; a producer whose load comes after this fence sees the mark
        // cleared and signals again (see `signal()`).
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        return true
    }
}
