/// The phases of a run, in the order of a pass (docs/design.md, "A run").
/// `Loop.step` records each (RLRunLoopPhase: what the stall monitor
/// reports and traces show) and calls the observers of its activity, for
/// the six phases that have one.
package enum Phase: UInt8 {
    case idle = 0, entry, beforeTimers, beforeSources, blocks, sources, beforeWaiting, waiting, afterWaiting
    case timers, descriptors, exit

    /// The observers' activity (CF's bit) this phase notifies, if any.
    package var activity: UInt? {
        switch self {
        case .entry: Activity.entry
        case .beforeTimers: Activity.beforeTimers
        case .beforeSources: Activity.beforeSources
        case .beforeWaiting: Activity.beforeWaiting
        case .afterWaiting: Activity.afterWaiting
        case .exit: Activity.exit
        case .idle, .blocks, .sources, .waiting, .timers, .descriptors: nil
        }
    }

    package var name: StaticString {
        switch self {
        case .idle: "Idle"
        case .entry: "Entry"
        case .beforeTimers: "BeforeTimers"
        case .beforeSources: "BeforeSources"
        case .blocks: "Blocks"
        case .sources: "Sources"
        case .beforeWaiting: "BeforeWaiting"
        case .waiting: "Waiting"
        case .afterWaiting: "AfterWaiting"
        case .timers: "Timers"
        case .descriptors: "Descriptors"
        case .exit: "Exit"
        }
    }
}

/// The activities observers watch (CF's bits, RLRunLoopActivity): an
/// observer's mask is a set of them.  Each is notified by one `Phase`.
package enum Activity {
    package static let entry: UInt = 1 << 0
    package static let beforeTimers: UInt = 1 << 1
    package static let beforeSources: UInt = 1 << 2
    package static let beforeWaiting: UInt = 1 << 5
    package static let afterWaiting: UInt = 1 << 6
    package static let exit: UInt = 1 << 7
    package static let all: UInt = 0x0FFF_FFFF
}
