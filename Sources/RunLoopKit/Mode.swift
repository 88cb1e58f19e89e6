import RunLoopCore

extension Loop {
    /// The name of a run-loop mode: a loop runs in one mode at a time, and
    /// only the sources, timers and observers added to that mode take part.
    ///
    /// A `Mode` is a plain value (`Sendable`, `Hashable`): equal names are the
    /// same mode on every loop.  Write custom modes as string literals:
    ///
    /// ```swift
    /// let tracking: Loop.Mode = "tracking"
    /// try loop.add(timer, to: tracking)
    /// loop.run(in: tracking, for: .milliseconds(100))
    /// ```
    ///
    /// ``common`` is not a mode a loop runs in but the set of modes marked
    /// common (``default`` and those given to ``Loop/addCommonMode(_:)``):
    /// an item added to it is in all of them, now and later.
    ///
    /// A name longer than 1024 bytes or containing a NUL byte cannot name a
    /// mode: such a `Mode` exists (so literals never trap) but ``isValid`` is
    /// false, adding to it throws ``LoopError/invalidModeName(_:)``, running
    /// it returns ``Loop/RunResult/finished`` and it contains nothing.
    public struct Mode: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        /// The name as given.
        public let name: String
        /// The engine's interned name (compared by integer), nil if invalid.
        let interned: ModeName?

        /// The mode a loop runs in unless told otherwise
        /// (`"kCFRunLoopDefaultMode"`, as in CoreFoundation).
        public static let `default` = Mode(interned: .default)
        /// The pseudo-mode standing for every mode marked common
        /// (`"kCFRunLoopCommonModes"`).
        public static let common = Mode(interned: .common)

        /// A mode named `name`.
        public init(_ name: String) {
            self.name = name
            self.interned = ModeName.intern(name)
        }

        /// A mode named by a string literal: `let tracking: Loop.Mode = "tracking"`.
        public init(stringLiteral name: String) { self.init(name) }

        init(interned: ModeName) {
            self.name = interned.description
            self.interned = interned
        }

        /// False if the name is too long (over 1024 bytes) or contains NUL.
        public var isValid: Bool { interned != nil }

        /// The name.
        public var description: String { name }

        /// Modes are equal when their names are.
        public static func == (a: Mode, b: Mode) -> Bool { a.name == b.name }
        /// Hashes the name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }
}
