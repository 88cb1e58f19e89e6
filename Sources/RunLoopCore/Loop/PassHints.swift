import Synchronization

/// Hints: copies of state the loop's lock guards, written under the lock
/// and read by the loop's thread without it, so a pass skips locking for
/// whatever its mode lacks: queued blocks (`WorkHints`, set by
/// QueuedWork), timers (`ModeTimers.mayHaveTimers`) and observers of an activity
/// (`Mode.observerHint`).  A producer sets a hint under the lock before
/// its wake-up, so the pass after that wake-up sees it; a hint that says
/// "maybe" only costs the lock.
///
/// Each pays for itself on the ping-pong row (callgrind Ir per pass with
/// the lock taken instead: blocks +41%, observers +26%, timers +17%).
/// Signalled sources have no hint: the pass takes the lock for them.
/// Device: see docs/performance.md, "The engine's devices".
package enum PassStep {
    case blocks
    case timers
    case observers(UInt)
}

extension Loop {
    /// Whether the pass's `step` in `mode` may have something to do; false
    /// lets the step return without taking the lock.  Loop's thread.
    @inline(__always)
    package func mayHaveWork(_ step: PassStep, in mode: Mode) -> Bool {
        switch step {
        case .blocks:
            if hints.blocks.isSet || hints.overflow.isSet { return true }
            return inbox?.mayHaveBlocks() ?? false
        case .timers:
            return mode.timers.mayHaveTimers
        case .observers(let activity):
            return mode.observerHint.load(ordering: .acquiring) & activity != 0
        }
    }
}

/// Whether a loop's queued blocks are non-empty, readable without its
/// lock: a pass skips them cheaply.  A producer sets them under the lock
/// before its wake-up, so the pass after that wake-up sees them.  (The
/// signalled sources have no hint: a pass takes the lock for them.)
package final class WorkHints: Sendable {
    package let blocks = Hint()
    package let overflow = Hint()

    package init() {}

    package struct Hint: ~Copyable, Sendable {
        private let flag = Atomic<Bool>(false)

        package var isSet: Bool { flag.load(ordering: .acquiring) }

        /// Stores only a change: a producer adding to a non-empty list does
        /// not write the line the loop's thread polls.
        package func set(_ value: Bool) {
            if flag.load(ordering: .relaxed) != value { flag.store(value, ordering: .releasing) }
        }
    }
}
