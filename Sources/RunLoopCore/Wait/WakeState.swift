import CRunLoopShims
import Glibc
import Synchronization

// The wake-up states of a loop and the wake-up protocol: how a producer
// on any thread ends the loop's sleep in `Poller.wait`, and how the loop
// makes sure it misses no producer before it sleeps.
//
// Wake-ups coalesce through `state`: 0 = awake, 1 = a wake-up is pending,
// 2 = asleep in epoll_wait, 3 = ignoring wake-ups, 4 = spinning before
// sleeping.  `wakeUp()` writes the eventfd only when it moves the state
// from asleep to pending; a burst of calls while the loop is awake costs
// one compare-and-swap (the first) and then one load each, no syscall,
// and makes the loop's next sleep return at once.  The state is the
// loop's hot word (HotWord.swift), so RLRunLoopWakeUp reads "pending" or
// "ignoring" without pinning the loop.
//
// Spin, then sleep: a loop whose recent waits were ended by quick
// wake-ups polls `state` (in state 4) for a while before it enters
// epoll_wait (SpinBeforeSleep.swift).
//
// As in CF, wake-ups are ignored while the loop is not running and from
// the moment it wakes until the top of its next pass: that pass looks at
// every source and block anyway, so nothing queued before it is missed.
//
// The wake-up protocol.  A producer publishes (queues a block, marks a
// source pending, adds a timer) and then reads `state` to decide whether
// the loop needs waking; the loop makes itself awake (`acceptWakeUps`)
// and then reads its queues to decide whether it may sleep.  Each side
// stores, then loads what the other stored: a store-buffering handshake,
// and a CPU may perform a load before an earlier store of the same thread
// is visible (x86 does).  Without fences both sides can miss each other:
// the producer reads "ignoring" (the loop just woke) and drops the
// wake-up, the loop reads its queue as empty and sleeps, and the item
// waits for an unrelated wake-up (Tests/c/test_rl_wake_pingpong.c).  So
// each side has a sequentially consistent fence between its store and its
// load.  The producer's is where the library publishes: at the end of
// BlockInbox.queue, in Source.signal after
// queueing, and in `wakeUpWithoutSyscall` (wake-ups the library makes
// after publishing under a lock); a lock's release and acquire order the
// rest.  So the "already pending, nothing to do" checks that follow a
// publish (HandleTable.hotWordIs/hotWordHas, Source.signal,
// signalAndWakeUp, the opt-in fastpath.h) need only a sequentially
// consistent load, a plain load on x86.  The loop's fence is at the end of
// `acceptWakeUps`.  The two fences are ordered one way or the other: if
// the producer's comes first, the loop's reads after its own fence see
// the item; if the loop's comes first, the producer's load sees "awake"
// (or a later state) and it makes the wake-up pending, so the loop's next
// sleep returns at once.  Every state a producer acts on (awake,
// spinning, asleep) ends the loop's next or current sleep, and every
// state it skips (pending, ignoring) is followed by a pass top
// (`acceptWakeUps`) before the loop can sleep again.  So whatever a
// producer publishes, the loop must look at after `acceptWakeUps` and
// before it sleeps: queues are looked at by the pass's steps, a stop's
// mark right before the sleep (Loop.stop, Iteration.wakeUpIfStopped).

extension Poller {
    /// The wake-up states, stored in `state` (the loop's hot word).
    package static let awake: UInt32 = 0
    package static let pending: UInt32 = 1
    package static let asleep: UInt32 = 2
    package static let ignoring: UInt32 = 3
    package static let spinning: UInt32 = 4

    /// True while the loop waits (asleep, or spinning before sleeping).
    package var isSleeping: Bool {
        let s = state.load()
        return s == Self.asleep || s == Self.spinning
    }

    /// Whether a wake-up in `state` changes nothing: one is pending
    /// already, or the loop ignores them (see the top of this file).
    @inline(__always)
    package static func wakeUpIsRedundant(_ state: UInt32) -> Bool {
        state == pending || state == ignoring
    }

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
        // The producer's fence of the wake-up protocol (see the top of
        // this file): what the caller published before this call is visible
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
        // The loop's fence of the wake-up protocol (see the top of
        // this file): the caller reads its queues after this, so either it
        // sees what a producer published before that producer's fence, or
        // the producer's load after its fence sees the state stored above
        // (or a later one) and makes a wake-up pending.
        atomicMemoryFence(ordering: .sequentiallyConsistent)
    }

    /// Stops accepting wake-ups (the outermost run ended).
    package func ignoreWakeUps() {
        state.store(Self.ignoring)
    }
}
