import RunLoopCore

extension Loop {
    /// Seconds since 2001-01-01 00:00:00 UTC on the wall clock: the unit of
    /// timer fire dates (CoreFoundation's `CFAbsoluteTime`, Foundation's
    /// `Date.timeIntervalSinceReferenceDate`).
    ///
    /// ```swift
    /// timer.nextFireDate = Loop.now + 0.5   // half a second from now
    /// ```
    public typealias AbsoluteTime = Double

    /// The current ``AbsoluteTime``.
    public static var now: AbsoluteTime { Clock.absoluteNow() }

    /// How ``Loop/run(in:for:returnAfterSourceHandled:)`` ended.
    public enum RunResult: Sendable, Hashable, CustomStringConvertible {
        /// The mode had no sources and no timers (or the loop's thread has
        /// exited, or the mode name is invalid): nothing could happen.
        case finished
        /// ``Loop/stop()`` was called, from the loop's thread or another one.
        case stopped
        /// The time limit passed.
        case timedOut
        /// A source was performed and `returnAfterSourceHandled` was true.
        case handledSource

        init(_ engine: RunLoopCore.RunResult) {
            switch engine {
            case .finished: self = .finished
            case .stopped: self = .stopped
            case .timedOut: self = .timedOut
            case .handledSource: self = .handledSource
            }
        }

        /// CoreFoundation's name: `Finished`, `Stopped`, `TimedOut`,
        /// `HandledSource`.
        public var description: String {
            switch self {
            case .finished: return "Finished"
            case .stopped: return "Stopped"
            case .timedOut: return "TimedOut"
            case .handledSource: return "HandledSource"
            }
        }
    }

    /// The points of a pass that a ``LoopObserver`` can watch, in the
    /// order they happen: `entry`, then each pass `beforeTimers`,
    /// `beforeSources`, `beforeWaiting`, (sleep), `afterWaiting`, and
    /// `exit` last.
    ///
    /// ```swift
    /// let observer = LoopObserver(activities: [.beforeWaiting, .afterWaiting]) { _, activity in
    ///     print(activity)   // "BeforeWaiting", "AfterWaiting", ...
    /// }
    /// ```
    public struct Activity: OptionSet, Sendable, Hashable, CustomStringConvertible {
        /// CoreFoundation's activity bits (`kCFRunLoopEntry` = 1, ...).
        public let rawValue: UInt
        /// Makes a set from CoreFoundation's bit values.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// The run starts (once per run).
        public static let entry = Activity(rawValue: RunLoopCore.Activity.entry)
        /// A pass is about to fire due timers.
        public static let beforeTimers = Activity(rawValue: RunLoopCore.Activity.beforeTimers)
        /// A pass is about to perform signalled sources.
        public static let beforeSources = Activity(rawValue: RunLoopCore.Activity.beforeSources)
        /// The loop is about to sleep.
        public static let beforeWaiting = Activity(rawValue: RunLoopCore.Activity.beforeWaiting)
        /// The loop has woken up.
        public static let afterWaiting = Activity(rawValue: RunLoopCore.Activity.afterWaiting)
        /// The run ends (once per run).
        public static let exit = Activity(rawValue: RunLoopCore.Activity.exit)
        /// Every activity.
        public static let allActivities = Activity(rawValue: RunLoopCore.Activity.all)

        /// The names joined by `|` (`"Entry|Exit"`), as in the loop's dump.
        public var description: String { activityNames(rawValue) }
    }
}

/// Why an operation on a ``Loop`` was refused.
public enum LoopError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The timer or observer is already scheduled on another loop (a
    /// source may be in several loops; timers and observers may not).
    case wrongLoop
    /// The item was invalidated.
    case invalidItem
    /// The loop's thread has exited: its loop accepts nothing any more.
    case loopGone
    /// The mode holds the most timers it can (2^26).
    case full
    /// The mode name is over 1024 bytes or contains a NUL byte.
    case invalidModeName(String)
    /// Only the loop's own thread may do this (``Loop/runPending(in:)``,
    /// ``Loop/timeout(in:)``).
    case wrongThread
    /// The system refused a descriptor, or memory ran out.
    case outOfResources
    /// ``Loop/Mode/common`` was given where a mode the loop runs in is
    /// needed (``Loop/timeout(in:)``, ``Loop/runPending(in:)``; ``Loop/run(in:for:returnAfterSourceHandled:)``
    /// reports it and returns `.finished`, as CF does): it stands
    /// for a set of modes, and a loop runs in one mode at a time.
    case commonModes

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .wrongLoop: return "the item belongs to another run loop"
        case .invalidItem: return "the item was invalidated"
        case .loopGone: return "the run loop's thread has exited"
        case .full: return "the mode holds the most timers it can"
        case .invalidModeName(let name): return "invalid mode name (\(name.utf8.count) bytes)"
        case .wrongThread: return "only the loop's own thread may do this"
        case .outOfResources: return "out of descriptors or memory"
        case .commonModes: return "the common modes are not a mode a loop runs in"
        }
    }

    init(_ failure: AddFailure) {
        switch failure {
        case .wrongLoop: self = .wrongLoop
        case .invalidItem: self = .invalidItem
        case .loopGone: self = .loopGone
        case .full: self = .full
        case .outOfMemory: self = .outOfResources
        }
    }
}

extension Duration {
    /// The duration in seconds, as the engine takes it.
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) * 1e-18
    }

    /// `seconds` as a duration; NaN gives zero, huge values saturate.
    init(seconds: Double) {
        let ns = (seconds * 1e9).rounded()
        if ns.isNaN { self = .zero }
        else if ns >= 9.2e18 { self = .nanoseconds(Int64.max) }
        else if ns <= -9.2e18 { self = .nanoseconds(Int64.min) }
        else { self = .nanoseconds(Int64(ns)) }
    }
}
