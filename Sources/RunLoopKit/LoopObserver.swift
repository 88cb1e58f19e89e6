import RunLoopCore

/// Watches points of a loop's passes (``Loop/Activity``) and calls its
/// handler on the loop's thread at each one it is interested in.
///
/// ```swift
/// let observer = LoopObserver(activities: .allActivities) { _, activity in
///     print(activity)   // Entry, BeforeTimers, BeforeSources, BeforeWaiting, ...
/// }
/// try Loop.current.add(observer, to: .default)
/// ```
///
/// Observers of one activity run by `order`, lowest first (equal orders in
/// the order they were added).  A non-repeating observer is called once,
/// then invalidated.  An observer whose handler runs the loop again (a
/// nested run) is not called by that nested run.  An observer belongs to
/// one loop at a time.
///
/// `LoopObserver` is `Sendable` (a handle; `invalidate()` works from any
/// thread); its handler runs on the loop's thread and is `@Sendable`.
public final class LoopObserver: Sendable, Hashable, CustomStringConvertible {
    /// Called on the loop's thread with the observer and the activity.
    public typealias Handler = @Sendable (LoopObserver, Loop.Activity) -> Void

    let engine: RunLoopCore.Observer

    init(retaining engine: RunLoopCore.Observer) {
        engine.retainRef()
        self.engine = engine
    }

    /// An observer of `activities`.
    /// - Parameters:
    ///   - activities: the points of a pass it is called at.
    ///   - repeats: false to be called once, then invalidated.
    ///   - order: lower runs first among observers of one activity.
    ///   - handler: called on the loop's thread (see ``Handler``).
    public init(activities: Loop.Activity, repeats: Bool = true, order: Int = 0, _ handler: @escaping Handler) {
        engine = RunLoopCore.Observer(activities: activities.rawValue, repeats: repeats, order: order, callout: { observer, activity in
            handler(LoopObserver(retaining: observer), Loop.Activity(rawValue: activity))
        }, releaseInfo: nil, cContext: nil)
        HandleTable.shared.register(engine)  // our reference
    }

    deinit { engine.releaseRef() }

    /// The activities it watches.
    public var activities: Loop.Activity { Loop.Activity(rawValue: engine.activities) }
    /// Whether it is called more than once.
    public var repeats: Bool { engine.repeats }
    /// Its order, as given at creation.
    public var order: Int { engine.order }
    /// False once invalidated (or, if it does not repeat, once called).
    public var isValid: Bool { engine.isValid }

    /// Removes it from its loop for good.  From any thread, also from its
    /// own handler.  Idempotent.
    public func invalidate() { engine.invalidate() }

    /// True when both name the same engine object (one object may be
    /// reached through several handles, e.g. the one passed to a callback).
    public static func == (a: LoopObserver, b: LoopObserver) -> Bool { a.engine === b.engine }
    /// Hashes the identity of the engine object.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(engine)) }
    /// `<RLRunLoopObserver 0x…>{valid = Yes, activities = 0x… (Entry|Exit), repeats = Yes, order = 0}`.
    public var description: String { engine.debugDescription }
}
