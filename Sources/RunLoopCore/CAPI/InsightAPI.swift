import CRunLoop
import CRunLoopShims
import Glibc

// include/runloop/insight.h: stall monitor, statistics, traces.

@c(RLRunLoopPhaseGetName)
public func rlRunLoopPhaseGetName(_ phase: RLRunLoopPhase) -> UnsafePointer<CChar>? {
    guard phase >= 0, phase <= 255, let p = Phase(rawValue: UInt8(phase)) else { return staticCString("?") }
    return staticCString(p.name)
}

@c(RLRunLoopCalloutKindGetName)
public func rlRunLoopCalloutKindGetName(_ kind: RLRunLoopCalloutKind) -> UnsafePointer<CChar>? {
    guard kind >= 0, kind <= 255, let k = CalloutKind(rawValue: UInt8(kind)) else { return staticCString("?") }
    return staticCString(k.name)
}

/// A StaticString literal's bytes are NUL-terminated and permanent.
private func staticCString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}

@c(RLRunLoopSetStallHandler)
public func rlRunLoopSetStallHandler(_ rl: RLRunLoopRef?, _ threshold: RLTimeInterval,
                                     _ handler: RLRunLoopStallHandler?, _ info: UnsafeMutableRawPointer?) {
    borrow(rl, as: .runLoop, "RLRunLoopSetStallHandler", orElse: ()) { (loop: Loop) in
        let ns = threshold > 0 ? max(1, Clock.nanoseconds(threshold)) : 0
        StallMonitor.shared.set(loop, thresholdNs: ns, handler: handler, info: info)
    }
}

@c(RLRunLoopGetStatistics)
public func rlRunLoopGetStatistics(_ rl: RLRunLoopRef?, _ stats: UnsafeMutablePointer<RLRunLoopStatistics>?) {
    let cFunction: StaticString = "RLRunLoopGetStatistics"
    borrow(rl, as: .runLoop, cFunction, orElse: ()) { (loop: Loop) in
        guard let stats else {
            reportError(cFunction, .invalidArgument, "NULL stats")
            return
        }
        if !loop.makeInsight().statistics.snapshot(into: stats) {
            reportError(cFunction, .invalidArgument,
                        "stats->size \(stats.pointee.size) is too small (set it to sizeof(RLRunLoopStatistics))")
        }
    }
}

@c(RLRunLoopResetStatistics)
public func rlRunLoopResetStatistics(_ rl: RLRunLoopRef?) {
    borrow(rl, as: .runLoop, "RLRunLoopResetStatistics", orElse: ()) { (loop: Loop) in
        loop.makeInsight().statistics.reset()
    }
}

@c(RLRunLoopTraceStart)
public func rlRunLoopTraceStart(_ rl: RLRunLoopRef?, _ path: UnsafePointer<CChar>?) -> RLBoolean {
    let cFunction: StaticString = "RLRunLoopTraceStart"
    return borrow(rl, as: .runLoop, cFunction, orElse: 0) { (loop: Loop) in
        guard let path else {
            reportError(cFunction, .invalidArgument, "NULL path")
            return 0
        }
        switch loop.startTrace(path: path) {
        case .started: return 1
        case .alreadyTracing:
            reportError(cFunction, .invalidArgument, "the loop is already recording a trace")
        case .loopGone:
            reportError(cFunction, .loopGone)
        case .cannotCreate(let err):
            reportError(cFunction, .system(err),
                        "cannot create \(String(cString: path)): \(String(cString: strerror(err)))")
        }
        return 0
    }
}

@c(RLRunLoopTraceStop)
public func rlRunLoopTraceStop(_ rl: RLRunLoopRef?) -> RLBoolean {
    borrow(rl, as: .runLoop, "RLRunLoopTraceStop", orElse: 0) { (loop: Loop) in
        loop.stopTrace() ? 1 : 0
    }
}
