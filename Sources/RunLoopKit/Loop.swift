import CRunLoopShims
import RunLoopCore

/// A thread's run loop: it sleeps until a timer is due, a source is
/// signalled or work is queued, then runs that work on its thread.
///
/// Every thread has one loop, created on first use; ``current`` is the
/// calling thread's and ``main`` the main thread's.  Only the loop's own
/// thread runs it; every other method may be called from any thread.
///
/// ```swift
/// let loop = Loop.current
/// let timer = LoopTimer(after: .milliseconds(50)) { _ in print("fired") }
/// try loop.add(timer, to: .default)
/// let result = loop.run(in: .default, for: .seconds(1))   // prints "fired"
/// print(result)                                            // Finished
/// ```
///
/// `Loop` is `Sendable`: it is a handle (one reference to the engine's
/// loop, whose state is guarded by the loop's lock), so stopping, waking,
/// adding to or queueing work on another thread's loop is safe.  Two
/// `Loop` values are equal when they name the same loop.  After the
/// loop's thread has exited, the loop accepts nothing: adding throws
/// ``LoopError/loopGone`` and `perform` returns false.
public final class Loop: Sendable, Hashable, CustomStringConvertible {
    let engine: RunLoopCore.Loop

    /// Takes one more reference to `engine` (dropped by `deinit`).
    init(retaining engine: RunLoopCore.Loop) {
        engine.retainRef()
        self.engine = engine
    }

    deinit { engine.releaseRef() }

    /// The calling thread's loop, created on first use.
    ///
    /// Traps only if the library's handle table is full (millions of live
    /// objects).  The loop opens its descriptors at its first run.
    public static var current: Loop {
        guard let engine = Registry.shared.current() else {
            fatalError("runloop: Loop.current: cannot create a run loop (handle table full)")
        }
        return Loop(retaining: engine)
    }

    /// The main thread's loop, from any thread.  Only the main thread runs
    /// it.  Traps like ``current`` if its descriptors cannot be created.
    public static var main: Loop {
        guard let engine = Registry.shared.mainLoop() else {
            fatalError("runloop: Loop.main: cannot create the main run loop (out of file descriptors?)")
        }
        return Loop(retaining: engine)
    }

    /// True when called on this loop's thread (the only thread that can run it).
    public var isCurrent: Bool { engine.isOwnThread }

    /// True if this is the main thread's loop.
    public var isMain: Bool { engine.isMain }

    // MARK: running

    /// Runs the loop in `mode` until `duration` passes, ``stop()`` is
    /// called, the mode has no sources and no timers left, or (with
    /// `returnAfterSourceHandled`) a source was performed.  Call it on the
    /// loop's own thread; it may be called again from a callout (a nested
    /// run).  A zero duration makes one pass without sleeping.
    ///
    /// Called from another thread, or with ``Mode/common`` or an invalid
    /// mode, it does nothing and returns ``RunResult/finished`` (the first
    /// case is also reported on stderr).
    ///
    /// ```swift
    /// switch Loop.current.run(in: .default, for: .seconds(2)) {
    /// case .finished: print("nothing left to do")
    /// case .stopped, .timedOut, .handledSource: break
    /// }
    /// ```
    @discardableResult
    public func run(in mode: Mode = .default, for duration: Duration,
                    returnAfterSourceHandled: Bool = false) -> RunResult {
        guard isCurrent else {
            reportError("Loop.run", .wrongLoop, "a loop runs only on its own thread")
            return .finished
        }
        guard let name = mode.interned else { return .finished }
        guard !name.isCommonModes else {
            reportError("Loop.run", .invalidArgument, LoopError.commonModes.description)
            return .finished
        }
        return RunResult(engine.run(name, seconds: duration.seconds, returnAfterSourceHandled: returnAfterSourceHandled))
    }

    /// Runs the loop in the default mode until ``stop()`` is called or the
    /// mode has no sources and no timers (CoreFoundation's `CFRunLoopRun`).
    /// On the main thread only ``stop()`` ends it: as in CF, a common mode
    /// of the main loop serves the dispatch main queue and is never empty.
    public func run() {
        while true {
            let result = run(in: .default, for: .seconds(1e10))
            if result == .stopped || result == .finished { return }
        }
    }

    /// Makes the innermost run of this loop return ``RunResult/stopped``
    /// (waking it if it sleeps).  From any thread.  A stop while the loop
    /// is not running is ignored.
    public func stop() { engine.stop() }

    /// Wakes the loop if it sleeps (so it looks at queued work and moved
    /// timers).  From any thread.
    public func wakeUp() { engine.wakeUp() }

    /// True while the loop sleeps waiting for something to happen.
    public var isWaiting: Bool { engine.isWaiting }

    // MARK: queued work

    /// Queues `work` to run once on the loop's thread, the next time the
    /// loop runs one of `modes` (``Mode/common``: any common mode).  From
    /// any thread; a sleeping loop does not wake for it, so call
    /// ``wakeUp()`` when it must run now.  Returns false (and drops the
    /// work) if the loop's thread has exited or a mode name is invalid.
    ///
    /// ```swift
    /// worker.perform(in: [.default]) { print("on the worker's thread") }
    /// worker.wakeUp()
    /// ```
    ///
    /// - Parameters:
    ///   - modes: the modes in which it may run (any of them).
    ///   - work: runs on the loop's thread, hence `@Sendable`.
    /// - Returns: whether the work was queued.
    @discardableResult
    public func perform(in modes: [Mode] = [.common], _ work: @escaping @Sendable () -> Void) -> Bool {
        var names: [ModeName] = []
        for mode in modes {
            guard let name = mode.interned else { return false }
            names.append(name)
        }
        return engine.perform(in: names, work)
    }

    // MARK: modes

    /// The mode of the innermost run in progress, nil when not running.
    public var currentMode: Mode? { engine.currentModeName.map(Mode.init(interned:)) }

    /// Every mode this loop has, in the order they were created (the
    /// default mode first).
    public var allModes: [Mode] { engine.allModeNames.map(Mode.init(interned:)) }

    /// Marks `mode` common: it gets every item of ``Mode/common``, those
    /// added before and after.  Marking it again does nothing.
    public func addCommonMode(_ mode: Mode) {
        guard let name = mode.interned, !name.isCommonModes else { return }
        engine.addCommonMode(name)
    }

    /// The earliest fire date of the valid timers in `mode`, nil if none.
    public func nextTimerFireDate(in mode: Mode) -> AbsoluteTime? {
        guard let name = mode.interned else { return nil }
        let date = engine.nextTimerFireDate(in: name)
        return date == 0 ? nil : date
    }

    // MARK: identity and description

    /// True when both name the same engine object (one object may be
    /// reached through several handles, e.g. the one passed to a callback).
    public static func == (a: Loop, b: Loop) -> Bool { a.engine === b.engine }
    /// Hashes the identity of the engine object.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(engine)) }

    /// A dump of the loop: thread, current mode, common modes and items,
    /// and every mode's sources, observers and timers.
    public var description: String { engine.debugDescription }
}
