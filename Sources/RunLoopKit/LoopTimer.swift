import RunLoopCore

/// A timer: calls its handler on the loop's thread at its fire date, then
/// every `interval` if it repeats.  Not Foundation's `Timer`: the two can
/// be used in one file.
///
/// ```swift
/// let ticker = LoopTimer(after: .seconds(1), interval: .seconds(1)) { timer in
///     print("tick")
/// }
/// try Loop.current.add(ticker, to: .common)   // keeps ticking in every common mode
/// ```
///
/// A repeating timer keeps its original schedule (first date + k ×
/// interval): when a callout overruns, the missed slots are skipped, not
/// fired in a burst.  A one-shot timer is invalidated after it fires.  A
/// timer belongs to one loop at a time.
///
/// `LoopTimer` is `Sendable`: a handle whose state is guarded by the
/// engine's locks, so `invalidate()`, `nextFireDate` and `tolerance` work
/// from any thread.  The handler runs on the thread of the loop the timer
/// is scheduled on, which need not be the thread that created it: it is
/// `@Sendable`.  The handler receives the timer (do not capture it: that
/// would keep it alive forever).
public final class LoopTimer: Sendable, Hashable, CustomStringConvertible {
    /// Called on the loop's thread each time the timer fires.
    public typealias Handler = @Sendable (LoopTimer) -> Void

    let engine: RunLoopCore.Timer

    init(retaining engine: RunLoopCore.Timer) {
        engine.retainRef()
        self.engine = engine
    }

    /// A timer first firing at `fireDate`, then every `interval` (nil or
    /// zero: once).  Lower `order` fires first among timers due together
    /// (informational, as in CoreFoundation).
    public init(fireDate: Loop.AbsoluteTime, interval: Duration? = nil, order: Int = 0,
                _ handler: @escaping Handler) {
        let seconds = interval?.seconds ?? 0
        engine = RunLoopCore.Timer(fireDate: fireDate, interval: seconds, order: order, callout: .closure { fired in
            handler(LoopTimer(retaining: fired))
        })
        HandleTable.shared.register(engine)  // our reference
    }

    /// A timer first firing `delay` from now, then every `interval` (nil
    /// or zero: once).
    public convenience init(after delay: Duration, interval: Duration? = nil, order: Int = 0,
                            _ handler: @escaping Handler) {
        self.init(fireDate: Loop.now + delay.seconds, interval: interval, order: order, handler)
    }

    deinit { engine.releaseRef() }

    /// The repeat interval, nil for a one-shot timer.
    public var interval: Duration? { engine.repeats ? Duration(seconds: engine.interval) : nil }
    /// Whether it fires more than once.
    public var repeats: Bool { engine.repeats }
    /// Its order, as given at creation.
    public var order: Int { engine.order }
    /// False once invalidated (or, for a one-shot timer, once fired).
    public var isValid: Bool { engine.isValid }

    /// The date it fires next.  Inside its own handler this is still the
    /// date being fired (the timer is rescheduled after the handler
    /// returns, unless the handler set a new date).  Setting it from any
    /// thread moves the timer and wakes its loop if needed.  Dates past
    /// CF's limit (4039289856, +infinity) are stored as that limit.  0 once
    /// the timer is invalid, where setting it does nothing (as in CF).
    public var nextFireDate: Loop.AbsoluteTime {
        get { engine.nextFireDate }
        set { engine.setNextFireDate(newValue) }
    }

    /// How late it may fire (stored; reported in the description).  For a
    /// repeating timer, at most half its interval (clamped when set, as
    /// Darwin's CF does).
    public var tolerance: Duration {
        get { Duration(seconds: engine.tolerance) }
        set { engine.tolerance = max(0, newValue.seconds) }
    }

    /// Removes it from its loop and stops it for good.  From any thread,
    /// also from its own handler.  Idempotent.
    public func invalidate() { engine.invalidate() }

    /// True when both name the same engine object (one object may be
    /// reached through several handles, e.g. the one passed to a callback).
    public static func == (a: LoopTimer, b: LoopTimer) -> Bool { a.engine === b.engine }
    /// Hashes the identity of the engine object.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(engine)) }
    /// `<RLRunLoopTimer 0x…>{valid = Yes, firing = No, interval = …, next fire date = …}`.
    public var description: String { engine.debugDescription }
}
