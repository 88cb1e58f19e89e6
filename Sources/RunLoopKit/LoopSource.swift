import RunLoopCore

/// A source of work you signal: after ``signal()`` (from any thread), the
/// next pass of a loop running a mode that holds it calls `perform` on
/// that loop's thread.  Several signals before that pass give one perform.
/// (CoreFoundation's version-0 source.)
///
/// ```swift
/// let source = LoopSource { print("performed") }
/// try worker.add(source, to: .default)
/// source.signal()        // from any thread
/// worker.wakeUp()        // a sleeping loop looks at its sources now
/// ```
///
/// Signalled sources are performed by `order`, lowest first (equal orders
/// in the order they were first signalled).  A source may be in several
/// modes of several loops at once.
///
/// `LoopSource` is `Sendable` (a handle; `signal()` and `invalidate()`
/// work from any thread).  Its callbacks run on the thread of a loop
/// holding it, possibly on several loops' threads, so they are
/// `@Sendable`.
public final class LoopSource: Sendable, Hashable, CustomStringConvertible {
    /// Called on the loop's thread when the source is added to (`schedule`)
    /// or removed from (`cancel`, also on invalidation and thread exit) one
    /// mode of a loop.
    public typealias ModeCallback = @Sendable (Loop, Loop.Mode) -> Void

    let engine: RunLoopCore.Source

    /// A source performing `perform` after each signal.
    /// - Parameters:
    ///   - order: lower is performed first in a pass.
    ///   - schedule: called (on the adding thread) each time it joins a mode.
    ///   - cancel: called each time it leaves a mode (on the removing
    ///     thread; at thread exit, on the exiting loop's thread).
    ///   - perform: called on the loop's thread.
    public init(order: Int = 0, schedule: ModeCallback? = nil, cancel: ModeCallback? = nil,
                perform: @escaping @Sendable () -> Void) {
        var callbacks = SourceCallbacks(perform: perform)
        if let schedule {
            callbacks.schedule = { loop, name in schedule(Loop(retaining: loop), Loop.Mode(interned: name)) }
        }
        if let cancel {
            callbacks.cancel = { loop, name in cancel(Loop(retaining: loop), Loop.Mode(interned: name)) }
        }
        engine = RunLoopCore.Source(order: order, callbacks: callbacks)
        HandleTable.shared.register(engine)  // our reference
    }

    deinit { engine.releaseRef() }

    /// Marks it pending: the next pass of each loop holding it in the mode
    /// it runs performs it once.  From any thread.  Does not wake a
    /// sleeping loop: call ``Loop/wakeUp()``.
    public func signal() { engine.signal() }

    /// ``signal()`` and a wake-up of every loop holding it, in one call
    /// (C: `RLRunLoopSourceSignalAndWakeUp`; CoreFoundation has no such
    /// call).  From any thread.  No loop to name, and a source that is
    /// already pending and woken costs one load.
    ///
    /// ```swift
    /// source.signalAndWakeUp()   // = source.signal(); worker.wakeUp()
    /// ```
    public func signalAndWakeUp() { engine.signalAndWakeUp() }

    /// True between ``signal()`` and the start of its perform.
    public var isSignalled: Bool { engine.isSignalled }
    /// Its order, as given at creation.
    public var order: Int { engine.order }
    /// False once invalidated.
    public var isValid: Bool { engine.isValid }

    /// Removes it from every mode of every loop (running `cancel` for
    /// each) and makes it inert.  From any thread.  Idempotent.
    public func invalidate() { engine.invalidate() }

    /// True when both name the same engine object (one object may be
    /// reached through several handles, e.g. the one passed to a callback).
    public static func == (a: LoopSource, b: LoopSource) -> Bool { a.engine === b.engine }
    /// Hashes the identity of the engine object.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(engine)) }
    /// `<RLRunLoopSource 0x…>{valid = Yes, order = 0, signalled = No}`.
    public var description: String { engine.debugDescription }
}
