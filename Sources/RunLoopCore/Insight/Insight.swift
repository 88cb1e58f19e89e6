import CRunLoop
import Synchronization

/// The kind of user code being called (RLRunLoopCalloutKind).
package enum CalloutKind: UInt8 {
    case none = 0, observer, timer, source, descriptor, block

    package var name: StaticString {
        switch self {
        case .none: "none"
        case .observer: "observer"
        case .timer: "timer"
        case .source: "source"
        case .descriptor: "descriptor"
        case .block: "block"
        }
    }
}

/// Why a sleep ended (counted in Statistics, shown in traces).
package enum WakeCause: UInt8 {
    case descriptor, wakeUp, timer, timeout

    package var name: StaticString {
        switch self {
        case .descriptor: "descriptor"
        case .wakeUp: "wake-up"
        case .timer: "timer"
        case .timeout: "timeout"
        }
    }
}

/// What one loop lets the outside see: its counters, the step it is in
/// (published for the stall monitor's watchdog), and its trace.
///
/// The pass reports each step (`enter`) and the callouts it makes
/// (`CalloutTiming`).  With neither the stall monitor nor a trace on, a
/// step costs one relaxed atomic load, and each callout reports itself
/// (`calloutBegan` / `calloutEnded`), timed from a mark, the end of the
/// previous callout of its step (or a reading just before the first), so
/// n callouts read the clock n + 1 times.  With a trace or the stall
/// monitor on, each also reads its exact start.
/// Loop-thread state is plain; what other threads read is atomic.
package final class Insight: @unchecked Sendable {
    package static let stallBit: UInt8 = 1
    package static let traceBit: UInt8 = 2
    /// Which of the stall monitor and the trace are on.
    package let flags = Atomic<UInt8>(0)
    package let statistics = Statistics()
    /// The trace writer, made by the loop's first trace (most loops are
    /// never traced: a writer with its lock is 160 bytes).  Set once.
    private let traceWriter = PublishedOnce<TraceWriter>()
    /// The trace writer, if the loop was ever traced.
    package var trace: TraceWriter? { traceWriter.with { $0 } }
    /// The trace writer, made now if the loop has none.
    package func makeTrace() -> TraceWriter { traceWriter.withMade({ TraceWriter() }) { $0 } }

    // Published for the watchdog (seqlock: `marker` is written last and
    // read before and after the others).
    /// step number(48) | callout kind(8) | phase(8).
    package let marker = Atomic<UInt64>(0)
    package let markerStart = Atomic<UInt64>(0)
    package let markerItem = Atomic<UInt>(0)
    package let markerMode = Atomic<UInt>(0)

    // Loop thread only.
    // Declared @exclusivity(unchecked): the guard named here makes their
    // accesses exclusive (docs/design.md, "Exclusivity checks").
    @exclusivity(unchecked) private var phase: Phase = .idle
    /// When the step began (for traces), and when its stall count began
    /// (the same, except after a nested run: see runEnds).
    @exclusivity(unchecked) private var phaseStart: UInt64 = 0
    @exclusivity(unchecked) private var stallStart: UInt64 = 0
    @exclusivity(unchecked) private var step: UInt64 = 0
    @exclusivity(unchecked) private var mode: ModeName? = nil
    @exclusivity(unchecked) private var lastWake: WakeCause? = nil

    package init() {}

    // MARK: steps

    /// The loop moves to step `next` of the pass.
    @inline(__always)
    package func enter(_ next: Phase) {
        let f = flags.load(ordering: .relaxed)
        if f != 0 { enterSlow(next, f) }
    }

    private func enterSlow(_ next: Phase, _ f: UInt8) {
        let now = Clock.monotonicNow()
        if f & Self.traceBit != 0 && phase != .idle {
            let arg: TraceWriter.Arg = phase == .waiting ? lastWake.map { .word("woke", $0.name) } ?? .none : .none
            trace?.complete(name: phase.name, category: "phase", start: phaseStart, end: now, arg)
        }
        phase = next
        phaseStart = now
        stallStart = now
        step &+= 1
        if f & Self.stallBit != 0 { publish(.none, item: 0) }
    }

    /// Set in `marker` while the other published words are rewritten.
    package static let busyBit: UInt64 = 1 << 63

    private func publish(_ kind: CalloutKind, item: UInt) {
        marker.store(Self.busyBit, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        markerStart.store(stallStart, ordering: .relaxed)
        markerItem.store(item, ordering: .relaxed)
        markerMode.store(mode.map { UInt(bitPattern: $0.cString) } ?? 0, ordering: .relaxed)
        marker.store(step << 16 | UInt64(kind.rawValue) << 8 | UInt64(phase.rawValue), ordering: .releasing)
    }

    /// What a run saves of the step it interrupts (a nested run happens
    /// inside a callout of the outer one).
    package struct Saved {
        fileprivate var phase: Phase
        fileprivate var mode: ModeName?
        fileprivate var start: UInt64
        fileprivate var kind: CalloutKind
        fileprivate var item: UInt
        /// When the run began (0: no trace was on).
        fileprivate var begun: UInt64
    }

    /// A run of `name` starts.
    package func runBegins(_ name: ModeName) -> Saved {
        let begun = flags.load(ordering: .relaxed) != 0 ? Clock.monotonicNow() : 0
        let saved = Saved(phase: phase, mode: mode, start: phaseStart, kind: calloutKind, item: calloutItem, begun: begun)
        mode = name
        phase = .idle
        return saved
    }

    /// The run ends: the interrupted step resumes with a fresh count (a
    /// long nested run is not a stall of the callout that started it).
    package func runEnds(_ saved: Saved) {
        let begun = saved.begun
        let f = flags.load(ordering: .relaxed)
        if f != 0 {
            let now = Clock.monotonicNow()
            if f & Self.traceBit != 0 {
                if phase != .idle { trace?.complete(name: phase.name, category: "phase", start: phaseStart, end: now, .none) }
                if let mode, begun != 0 {
                    trace?.complete(name: "run", category: "run", start: begun, end: now, .text("mode", mode.description))
                }
            }
            stallStart = now
        }
        phaseStart = saved.start
        phase = saved.phase
        mode = saved.mode
        calloutKind = saved.kind
        calloutItem = saved.item
        step &+= 1
        if f & Self.stallBit != 0 { publish(saved.kind, item: saved.item) }
    }

    // MARK: callouts

    @exclusivity(unchecked) private var calloutKind: CalloutKind = .none
    @exclusivity(unchecked) private var calloutItem: UInt = 0

    /// A callout starts.  Returns its start time for `calloutEnded`:
    /// `mark` (see the type's comment), or a fresh reading when the stall
    /// monitor or a trace is on.
    @inline(__always)
    package func calloutBegan(_ kind: CalloutKind, item: UInt, mark: UInt64) -> UInt64 {
        let f = flags.load(ordering: .relaxed)
        if f != 0 { return calloutBeganSlow(kind, item: item, f) }
        return mark
    }

    private func calloutBeganSlow(_ kind: CalloutKind, item: UInt, _ f: UInt8) -> UInt64 {
        if f & Self.stallBit != 0 {
            calloutKind = kind
            calloutItem = item
            publish(kind, item: item)
        }
        return Clock.monotonicNow()
    }

    /// The callout that started at `start` ended.  Returns the end time:
    /// the mark of the step's next callout.
    @inline(__always)
    package func calloutEnded(_ kind: CalloutKind, item: UInt, start: UInt64) -> UInt64 {
        let end = Clock.monotonicNow()
        statistics.callout(kind, took: end &- start)
        let f = flags.load(ordering: .relaxed)
        if f != 0 { calloutEndedSlow(kind, item: item, start: start, end: end, f) }
        return end
    }

    private func calloutEndedSlow(_ kind: CalloutKind, item: UInt, start: UInt64, end: UInt64, _ f: UInt8) {
        if f & Self.traceBit != 0 {
            trace?.complete(name: kind.name, category: "callout", start: start, end: end,
                           item == 0 ? .none : .hex("item", item))
        }
        if f & Self.stallBit != 0 {
            calloutKind = .none
            calloutItem = 0
            publish(.none, item: 0)
        }
    }

    // MARK: sleeping

    /// A sleep (not a poll) ended because of `cause`.
    package func woke(_ cause: WakeCause) {
        statistics.bump(.sleeps)
        switch cause {
        case .descriptor: statistics.bump(.wakeUpsByDescriptor)
        case .wakeUp: statistics.bump(.wakeUpsByWakeUp)
        case .timer: statistics.bump(.wakeUpsByTimer)
        case .timeout: statistics.bump(.wakeUpsByTimeout)
        }
        lastWake = cause
    }
}
