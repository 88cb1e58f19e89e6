import CRunLoopShims
import CRunLoop
import Glibc
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
    /// events of the descriptor; whether it called out (false: nothing of
    /// the source's was ready, and the pass did not handle it).
    package var ready: ((UInt32) -> Bool)? = nil

    package init(schedule: ((Loop, ModeName) -> Void)? = nil, cancel: ((Loop, ModeName) -> Void)? = nil,
                 perform: @escaping () -> Void, release: (() -> Void)? = nil, describe: (() -> String?)? = nil,
                 ready: ((UInt32) -> Bool)? = nil) {
        self.schedule = schedule
        self.cancel = cancel
        self.perform = perform
        self.release = release
        self.describe = describe
        self.ready = ready
    }
}

/// What a source calls.  Sources made from a C context call its function
/// pointers directly (no closure per callback).  The usual version-0
/// context, an info and a perform function and nothing else, is kept as
/// those two words; any other context, and the closures of a Swift-made
/// source, in a block of their own, so a source stays within a 144-byte
/// heap block.
package enum SourceActions {
    case function(perform: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?, info: UnsafeMutableRawPointer?)
    case context(Boxed<(context: RLRunLoopSourceContext, hash: UInt)>)
    case context1(Boxed<RLRunLoopSourceContext1>)
    case closures(Boxed<SourceCallbacks>)
}

/// The loops holding a source: for each, how many of its modes hold it
/// and whether it is one of the loop's common items.  The first loop is
/// stored inline (most sources are in one loop).
package struct SourceLoops {
    package struct Membership {
        package let loop: Loop
        /// 32 bits, so the membership stored inline in the source stays
        /// 24 bytes with `soleMode`.
        package var modes: Int32 = 0
        package var common = false
        /// The mode holding it while it is in exactly one mode of the loop
        /// and that mode is known (set when the count becomes 1 by an add;
        /// nil after a removal leaves one): a pass checks a pending source
        /// against its mode without the mode's dictionary.
        package var soleMode: Unmanaged<Mode>?
        var isEmpty: Bool { modes == 0 && !common }

        /// Counts an add to `mode`.
        package mutating func entered(_ mode: Mode) {
            modes += 1
            soleMode = modes == 1 ? .passUnretained(mode) : nil
        }

        /// Counts a removal from a mode.
        package mutating func left() {
            modes -= 1
            soleMode = nil
        }
    }
    private var first: Membership?
    private var others: [Membership] = []

    package var all: [Loop] {
        guard let first else { return [] }
        return [first.loop] + others.map(\.loop)
    }

    /// The loops without building an array when there is one (the signal
    /// path): the first, and the rest.
    package var split: (first: Loop?, rest: [Membership]) { (first?.loop, others) }

    package func membership(in loop: Loop) -> Membership? {
        if let first, first.loop === loop { return first }
        return others.first { $0.loop === loop }
    }

    /// Edits the loop's membership (created if missing, dropped when
    /// empty); returns it.
    package mutating func update(_ loop: Loop, _ body: (inout Membership) -> Void) -> Membership {
        var m = membership(in: loop) ?? Membership(loop: loop)
        body(&m)
        if let f = first, f.loop === loop {
            first = m.isEmpty ? others.popLast() : m
        } else if let i = others.firstIndex(where: { $0.loop === loop }) {
            if m.isEmpty { others.remove(at: i) } else { others[i] = m }
        } else if !m.isEmpty {
            if first == nil { first = m } else { others.append(m) }
        }
        return m
    }
}

/// A source, performed on a loop's thread.  Version 0: after `signal()`.
/// Version 1: whenever its file descriptor is ready while the loop runs a
/// mode holding it (level-triggered; the library never reads or closes
/// the descriptor).  It may be in several modes of several loops.
package final class Source: Object, @unchecked Sendable {
    // Declaration order is layout order.  `valid` first: a byte fits in
    // the last word of Object's fields (an object 16 bytes smaller in
    // malloc's size classes than with it after the 32-bit fields below).
    // Then what signal() and a pass read (signalSeq, loops), on the
    // object's first lines, and the callbacks after them.
    private let valid = Atomic<Bool>(true)
    package let order: Int
    /// Orders its callouts before the release of its info (CalloutGate).
    private let gate = CalloutGate()
    /// The watched descriptor of a version-1 source; -1 for version 0.
    package let descriptor: Int32
    /// The epoll events watched on `descriptor` (0: not watched).
    private let interestBits: Atomic<UInt32>
    /// When it last became pending; breaks ties between equal orders.
    let signalSeq = Atomic<UInt64>(0)

    /// CF's equality (CFEqual) for sources made from a C context, version
    /// 0 or 1: two sources are equal when both are valid or both
    /// invalidated, and they have the same order, version, perform, equal
    /// and hash functions, and `equal(info1, info2)` says so (or, without
    /// `equal`, their info pointers match).  The hash values are not
    /// compared, nor the other callbacks (checked against the real CF).
    /// nil: compared by identity only (sources made in Swift, descriptors,
    /// sockets, ports).
    package struct ContextIdentity {
        package var order: Int
        package var version: Int
        package var perform: UInt
        package var equal: UInt
        package var hash: UInt
        package var info: UnsafeMutableRawPointer?
        package var equalFunction: (@convention(c) (UnsafeRawPointer?, UnsafeRawPointer?) -> RLBoolean)?

        /// What CF compares before it asks `equal`.
        package func sameCallbacks(_ other: ContextIdentity) -> Bool {
            order == other.order && version == other.version && perform == other.perform && equal == other.equal
                && hash == other.hash
        }
    }
    package var identity: ContextIdentity? {
        let bits = { (f: UnsafeRawPointer?) in UInt(bitPattern: f) }
        switch actions {
        case .function(let perform, let info):
            return ContextIdentity(order: order, version: 0, perform: bits(unsafeBitCast(perform, to: UnsafeRawPointer?.self)),
                                   equal: 0, hash: 0, info: info, equalFunction: nil)
        case .context(let box):
            let c = box.value.context
            return ContextIdentity(
                order: order, version: 0,
                perform: bits(unsafeBitCast(c.perform, to: UnsafeRawPointer?.self)),
                equal: bits(unsafeBitCast(c.equal, to: UnsafeRawPointer?.self)),
                hash: bits(unsafeBitCast(c.hash, to: UnsafeRawPointer?.self)),
                info: c.info, equalFunction: c.equal)
        case .context1(let box):
            let c = box.value
            return ContextIdentity(
                order: order, version: 1,
                perform: bits(unsafeBitCast(c.perform, to: UnsafeRawPointer?.self)),
                equal: bits(unsafeBitCast(c.equal, to: UnsafeRawPointer?.self)),
                hash: bits(unsafeBitCast(c.hash, to: UnsafeRawPointer?.self)),
                info: c.info, equalFunction: c.equal)
        case .closures:
            return nil
        }
    }

    /// CF's hash of a version-0 source made from a C context: the info
    /// pointer for a context without `hash`, else `hash(info)` (computed
    /// once at creation: user code, no lock held).  The key of the loop's
    /// index of such sources (SourceTable): a mode holds an equal source
    /// (`isEquivalent`) in a source's place only if their hashes match, as
    /// a CFSet finds an equal member only under the same hash.  nil for
    /// the others, which modes hold by identity (version-1 sources too,
    /// although RLEqual compares them by CF's rule).
    package var contextHash: UInt? {
        switch actions {
        case .function(_, let info): return UInt(bitPattern: info)
        case .context(let box): return box.value.hash
        case .context1, .closures: return nil
        }
    }

    /// Whether `other` is equal by CF's rule (ContextIdentity): RLEqual,
    /// and, among the sources with its `contextHash`, the one a mode holds
    /// in its place.  May call the context's `equal`: never call it with
    /// a lock held.
    package func isEquivalent(to other: Source) -> Bool {
        if self === other { return true }
        guard isValid == other.isValid, let a = identity, let b = other.identity, a.sameCallbacks(b) else { return false }
        if let equal = a.equalFunction { return equal(a.info, b.info) != 0 }
        return a.info == b.info
    }

    /// The loops holding it (see SourceLoops).  A loop's lock may be held
    /// while taking this one, never the reverse.
    @exclusivity(unchecked) private var loops = SourceLoops()
    private let actions: SourceActions

    /// Reads or edits the memberships under the source's stripe.
    func withLoops<T>(_ body: (inout SourceLoops) -> T) -> T { Stripes.withLock(self) { body(&loops) } }

    /// A source with Swift callbacks (RunLoopKit, descriptors, ports).
    package init(order: Int, callbacks: SourceCallbacks) {
        self.order = order
        actions = .closures(Boxed(callbacks))
        descriptor = -1
        interestBits = Atomic(0)
        super.init(kind: .source)
    }

    /// A version-0 source from a C context (info already retained).
    package init(order: Int, context c: RLRunLoopSourceContext) {
        self.order = order
        if c.retain == nil && c.release == nil && c.copyDescription == nil && c.equal == nil && c.hash == nil
            && c.schedule == nil && c.cancel == nil {
            actions = .function(perform: c.perform, info: c.info)
        } else {
            // The hash computed once, here, with no lock held (hash is user code).
            actions = .context(Boxed((c, c.hash.map { $0(c.info) } ?? UInt(bitPattern: c.info))))
        }
        descriptor = -1
        interestBits = Atomic(0)
        super.init(kind: .source)
    }

    /// A version-1 source watching `descriptor` for `interest` (epoll
    /// bits), with Swift callbacks or from a C context1.
    package init(order: Int, callbacks: SourceCallbacks? = nil, context1: RLRunLoopSourceContext1? = nil,
                 descriptor: Int32, interest: UInt32) {
        self.order = order
        if let context1 { actions = .context1(Boxed(context1)) } else { actions = .closures(Boxed(callbacks!)) }
        self.descriptor = descriptor
        interestBits = Atomic(interest)
        super.init(kind: .source)
    }

    /// The context it was created with, for RLRunLoopSourceGetContext.
    package var cContext: RLRunLoopSourceContext? {
        switch actions {
        case .function(let perform, let info):
            var c = RLRunLoopSourceContext()
            c.info = info
            c.perform = perform
            return c
        case .context(let box): return box.value.context
        case .context1, .closures: return nil
        }
    }

    /// The same for a version-1 source made from a C context.
    package var cContext1: RLRunLoopSourceContext1? {
        if case .context1(let box) = actions { return box.value }
        return nil
    }

    // MARK: callouts (no lock held)

    package var hasSchedule: Bool {
        switch actions {
        case .function, .context1: return false
        case .context(let box): return box.value.context.schedule != nil
        case .closures(let box): return box.value.schedule != nil
        }
    }

    package var hasCancel: Bool {
        switch actions {
        case .function, .context1: return false
        case .context(let box): return box.value.context.cancel != nil
        case .closures(let box): return box.value.cancel != nil
        }
    }

    /// Runs `body`, a callout using the info, unless the info's release
    /// was asked for; releases it after, if that was asked meanwhile.
    @inline(__always)
    private func withInfo(_ body: () -> Void) {
        _ = gate.callOut(body, release: { releaseInfo() })
    }

    package func schedule(_ loop: Loop, _ mode: ModeName) {
        withInfo {
            switch actions {
            case .function, .context1: break
            case .context(let box): let c = box.value.context; c.schedule?(c.info, loop.opaque, mode.cString)
            case .closures(let box): box.value.schedule?(loop, mode)
            }
        }
    }

    package func cancel(_ loop: Loop, _ mode: ModeName) {
        withInfo {
            switch actions {
            case .function, .context1: break
            case .context(let box): let c = box.value.context; c.cancel?(c.info, loop.opaque, mode.cString)
            case .closures(let box): box.value.cancel?(loop, mode)
            }
        }
    }

    package func perform() {
        withInfo {
            switch actions {
            case .function(let perform, let info): perform?(info)
            case .context(let box): let c = box.value.context; c.perform?(c.info)
            case .context1(let box): let c = box.value; c.perform?(c.info)
            case .closures(let box): box.value.perform()
            }
        }
    }

    /// The context's description of its info (its copyDescription, user
    /// code: call with no lock held), if it has one and the info is not
    /// released: the call holds the info as a callout does (CalloutGate).
    package func describeInfo() -> String? {
        let copy: InfoDescriber?
        let info: UnsafeRawPointer?
        switch actions {
        case .function: return nil
        case .context(let box): (copy, info) = (box.value.context.copyDescription, UnsafeRawPointer(box.value.context.info))
        case .context1(let box): (copy, info) = (box.value.copyDescription, UnsafeRawPointer(box.value.info))
        case .closures(let box): return box.value.describe?()
        }
        guard let copy else { return nil }
        return gate.callOut({ copyInfoDescription(copy, info) }, release: { releaseInfo() }) ?? nil
    }

    private func releaseInfo() {
        switch actions {
        case .function: break
        case .context(let box): let c = box.value.context; c.release?(c.info)
        case .context1(let box): let c = box.value; c.release?(c.info)
        case .closures(let box): box.value.release?()
        }
    }

    package var isVersion1: Bool { descriptor >= 0 }
    /// The loops holding the source now (any thread).
    package var holdingLoops: [Loop] { withLoops { $0.all } }
    package var interest: UInt32 { interestBits.load(ordering: .acquiring) }

    /// Changes the events watched on the descriptor (any thread; 0 stops
    /// watching).  Loops running a mode that holds the source update their
    /// wait set at once.
    package func setInterest(_ events: UInt32) {
        guard isVersion1, interestBits.exchange(events, ordering: .acquiringAndReleasing) != events else { return }
        for loop in withLoops({ $0.all }) { loop.descriptorsChanged(self) }
    }

    /// Called on the loop's thread when the descriptor is ready; whether
    /// it called out.
    package func handleReady(_ events: UInt32) -> Bool {
        if case .closures(let box) = actions, let ready = box.value.ready {
            return gate.callOut({ ready(events) }, release: { releaseInfo() }) ?? false
        }
        perform()
        return true
    }

    package var isValid: Bool { valid.load(ordering: .acquiring) }

    /// Called by a loop, under its lock, when the source enters (+1) or
    /// leaves (-1) one of its modes, or its common items: returns the
    /// loop's membership after the change.
    @discardableResult
    package func updateMembership(in loop: Loop, _ body: (inout SourceLoops.Membership) -> Void) -> SourceLoops.Membership {
        withLoops { $0.update(loop, body) }
    }

    /// Its membership in `loop` (nil: none).
    package func membership(in loop: Loop) -> SourceLoops.Membership? { withLoops { $0.membership(in: loop) } }

    /// Removes the source from every loop and mode (cancel runs for each)
    /// and makes it inert.  Idempotent.
    package func invalidate() {
        guard valid.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let holders = withLoops { $0.all }
        for loop in holders { loop.removeEverywhere(self) }
    }

    package override func finalize() {
        valid.store(false, ordering: .releasing)
        // A callout another thread's loop is making (or about to make: it
        // passed isValid) releases the info when it returns.
        gate.askRelease { releaseInfo() }
    }
}
