import CRunLoop
import Synchronization

/// What a version-0 source does, as Swift closures.  The C entry point
/// builds these from an `RLRunLoopSourceContext`.
package struct SourceCallbacks {
    package var schedule: ((Loop, ModeName) -> Void)?
    package var cancel: ((Loop, ModeName) -> Void)?
    package var perform: () -> Void
    /// Called once when the source is destroyed (the context's release).
    package var release: (() -> Void)?
    package var describe: (() -> String?)?
    /// Version-1 sources: called instead of `perform` with the ready epoll
    /// events of the descriptor.
    package var ready: ((UInt32) -> Void)? = nil

    package init(schedule: ((Loop, ModeName) -> Void)? = nil, cancel: ((Loop, ModeName) -> Void)? = nil,
                 perform: @escaping () -> Void, release: (() -> Void)? = nil, describe: (() -> String?)? = nil,
                 ready: ((UInt32) -> Void)? = nil) {
        self.schedule = schedule
        self.cancel = cancel
        self.perform = perform
        self.release = release
        self.describe = describe
        self.ready = ready
    }
}

/// A source, performed on a loop's thread.  Version 0: after `signal()`.
/// Version 1: whenever its file descriptor is ready while the loop runs a
/// mode holding it (level-triggered; the library never reads or closes
/// the descriptor).  It may be in several modes of several loops.
package final class Source: Handled, @unchecked Sendable {
    package let order: Int
    /// The watched descriptor of a version-1 source; -1 for version 0.
    package let descriptor: Int32
    /// The epoll events watched on `descriptor` (0: not watched).
    private let interestBits: Atomic<UInt32>
    package let callbacks: SourceCallbacks
    /// The context it was created with, for RLRunLoopSourceGetContext.
    package let cContext: RLRunLoopSourceContext?
    /// The same for a version-1 source made from a C context.
    package private(set) var cContext1: RLRunLoopSourceContext1? = nil

    private let valid = Atomic<Bool>(true)
    // Pending: `hot` is 1 from `signal()` until the loop claims the perform
    // (the hot word, so RLRunLoopSourceSignal on a pending source is one
    // load with no pin).
    package static let signalledBit: UInt32 = 1
    /// When it last became pending; breaks ties between equal orders.
    private let signalSeq = Atomic<UInt64>(0)
    private static let signalCounter = Atomic<UInt64>(0)

    /// CF's equality for sources made from a C context: two sources are
    /// the same item when they have the same order and the same perform,
    /// equal and hash callbacks, and `equal(info1, info2)` says so (or,
    /// without `equal`, their info pointers match).  Adding the second to a
    /// mode holding the first does nothing, Contains finds it, Remove
    /// removes the first.  nil: compared by identity only.
    package struct ContextIdentity {
        package var order: Int
        package var perform: UInt
        package var equal: UInt
        package var hash: UInt
        package var info: UnsafeMutableRawPointer?
        /// hash(info), or the info pointer: the index key.
        package var hashValue: UInt
        package var equalFunction: (@convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> RLBoolean)?

        package func sameCallbacks(_ other: ContextIdentity) -> Bool {
            order == other.order && perform == other.perform && equal == other.equal
                && hash == other.hash && hashValue == other.hashValue
        }
    }
    package private(set) var identity: ContextIdentity? = nil

    /// Whether `other` is the same item by CF's rule.  May call the
    /// context's `equal`: never call it with a lock held.
    package func isEquivalent(to other: Source) -> Bool {
        if self === other { return true }
        guard let a = identity, let b = other.identity, a.sameCallbacks(b) else { return false }
        if let equal = a.equalFunction { return equal(a.info, b.info) != 0 }
        return a.info == b.info
    }

    /// The loops with at least one mode holding this source (usually one:
    /// an array, so `signal` takes a copy of it without allocating).  A
    /// loop's lock may be held while taking this one, never the reverse.
    private let loops = Locked<[Loop]>([])

    package init(order: Int, callbacks: SourceCallbacks, cContext: RLRunLoopSourceContext?) {
        self.order = order
        self.callbacks = callbacks
        self.cContext = cContext
        descriptor = -1
        interestBits = Atomic(0)
        super.init(kind: .source)
        if let c = cContext {
            // Computed once, here, with no lock held (hash is user code).
            let bits = { (f: UnsafeRawPointer?) in UInt(bitPattern: f) }
            identity = ContextIdentity(
                order: order,
                perform: bits(unsafeBitCast(c.perform, to: UnsafeRawPointer?.self)),
                equal: bits(unsafeBitCast(c.equal, to: UnsafeRawPointer?.self)),
                hash: bits(unsafeBitCast(c.hash, to: UnsafeRawPointer?.self)),
                info: c.info,
                hashValue: c.hash.map { $0(c.info) } ?? UInt(bitPattern: c.info),
                equalFunction: c.equal)
        }
    }

    /// A version-1 source watching `descriptor` for `interest` (epoll bits).
    package init(order: Int, callbacks: SourceCallbacks, cContext: RLRunLoopSourceContext?,
                 descriptor: Int32, interest: UInt32, cContext1: RLRunLoopSourceContext1? = nil) {
        self.order = order
        self.callbacks = callbacks
        self.cContext = cContext
        self.cContext1 = cContext1
        self.descriptor = descriptor
        interestBits = Atomic(interest)
        super.init(kind: .source)
    }

    package var isVersion1: Bool { descriptor >= 0 }
    package var interest: UInt32 { interestBits.load(ordering: .acquiring) }

    /// Changes the events watched on the descriptor (any thread; 0 stops
    /// watching).  Loops running a mode that holds the source update their
    /// wait set at once.
    package func setInterest(_ events: UInt32) {
        guard isVersion1, interestBits.exchange(events, ordering: .acquiringAndReleasing) != events else { return }
        for loop in loops.withLock({ $0 }) { loop.descriptorsChanged(self) }
    }

    /// Called on the loop's thread when the descriptor is ready.
    package func handleReady(_ events: UInt32) {
        if let ready = callbacks.ready { ready(events) } else { callbacks.perform() }
    }

    package var isValid: Bool { valid.load(ordering: .acquiring) }
    package var isSignalled: Bool { hot.load() == Self.signalledBit }
    package var pendingSince: UInt64 { signalSeq.load(ordering: .relaxed) }

    /// Marks the source pending and queues it on every loop holding it.
    /// Several signals before the loop looks give one perform.
    package func signal() {
        guard isValid, !isVersion1 else { return }  // version 1 is driven by its descriptor
        // Already pending: nothing to do (no shared counter, no lock).
        if isSignalled { return }
        if hot.compareExchange(expected: 0, desired: Self.signalledBit).exchanged {
            signalSeq.store(Source.signalCounter.wrappingAdd(1, ordering: .relaxed).newValue, ordering: .relaxed)
            for loop in loops.withLock({ $0 }) {
                loop.enqueuePending(self)
            }
        }
    }

    /// Clears the pending mark; true if this caller gets to perform.
    package func claimPerform() -> Bool {
        hot.compareExchange(expected: Self.signalledBit, desired: 0).exchanged
    }

    /// Called by a loop, under its lock, when the source enters its first
    /// mode of that loop / leaves its last one.
    package func joined(_ loop: Loop) {
        loops.withLock { if !$0.contains(where: { $0 === loop }) { $0.append(loop) } }
    }
    package func left(_ loop: Loop) { loops.withLock { $0.removeAll { $0 === loop } } }

    /// Removes the source from every loop and mode (cancel runs for each)
    /// and makes it inert.  Idempotent.
    package func invalidate() {
        guard valid.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let holders = loops.withLock { $0 }
        for loop in holders { loop.removeEverywhere(self) }
    }

    package override func finalize() {
        valid.store(false, ordering: .releasing)
        callbacks.release?()
    }
}
