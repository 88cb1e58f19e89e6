import CRunLoop
import CRunLoopShims

private func makeTimer(_ fireDate: RLAbsoluteTime, _ interval: RLTimeInterval, _ order: RLIndex,
                       releaseInfo: (() -> Void)?, context: RLRunLoopTimerContext?, _ function: StaticString,
                       _ callout: @escaping (LoopTimer) -> Void) -> RLRunLoopTimerRef? {
    let timer = LoopTimer(fireDate: fireDate, interval: interval, order: order, callout: callout,
                          releaseInfo: releaseInfo, cContext: context)
    return publish(timer, function)
}

@c(RLRunLoopTimerCreate)
public func rlRunLoopTimerCreate(_ allocator: RLAllocatorRef?, _ fireDate: RLAbsoluteTime, _ interval: RLTimeInterval,
                                 _ flags: RLOptionFlags, _ order: RLIndex, _ callout: RLRunLoopTimerCallBack?,
                                 _ context: UnsafeMutablePointer<RLRunLoopTimerContext>?) -> RLRunLoopTimerRef? {
    guard let callout else {
        reportError("RLRunLoopTimerCreate", .invalidArgument, "NULL callout")
        return nil
    }
    guard finiteArgument(fireDate, "fire date", "RLRunLoopTimerCreate"),
          finiteArgument(interval, "interval", "RLRunLoopTimerCreate") else { return nil }
    var ctx = context?.pointee ?? RLRunLoopTimerContext()
    if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
    let info = ctx.info, retain = ctx.retain, release = ctx.release
    return makeTimer(fireDate, interval, order, releaseInfo: release.map { fn in { fn(info) } },
                     context: ctx, "RLRunLoopTimerCreate") { timer in
        // CF holds an extra reference to info for the length of the callout.
        let held = retain.map { UnsafeMutableRawPointer(mutating: $0(info)) } ?? info
        callout(timer.opaque, held)
        release?(held)
    }
}

@c(RLRunLoopTimerCreateWithHandler)
public func rlRunLoopTimerCreateWithHandler(_ allocator: RLAllocatorRef?, _ fireDate: RLAbsoluteTime,
                                            _ interval: RLTimeInterval, _ flags: RLOptionFlags, _ order: RLIndex,
                                            _ block: UnsafeRawPointer?) -> RLRunLoopTimerRef? {  // a block, see CopiedBlock
    guard let block else {
        reportError("RLRunLoopTimerCreateWithHandler", .invalidArgument, "NULL block")
        return nil
    }
    guard finiteArgument(fireDate, "fire date", "RLRunLoopTimerCreateWithHandler"),
          finiteArgument(interval, "interval", "RLRunLoopTimerCreateWithHandler") else { return nil }
    let copied = CopiedBlock(block)
    return makeTimer(fireDate, interval, order, releaseInfo: nil, context: nil,
                     "RLRunLoopTimerCreateWithHandler") { timer in
        rl_block_invoke_timer(copied.pointer, UnsafeMutableRawPointer(timer.opaque))
    }
}

@c(RLRunLoopTimerGetNextFireDate)
public func rlRunLoopTimerGetNextFireDate(_ timer: RLRunLoopTimerRef?) -> RLAbsoluteTime {
    borrow(timer, as: .timer, "RLRunLoopTimerGetNextFireDate", orElse: 0) { (t: LoopTimer) in t.nextFireDate }
}

@c(RLRunLoopTimerSetNextFireDate)
public func rlRunLoopTimerSetNextFireDate(_ timer: RLRunLoopTimerRef?, _ fireDate: RLAbsoluteTime) {
    borrow(timer, as: .timer, "RLRunLoopTimerSetNextFireDate", orElse: ()) { (t: LoopTimer) in
        guard finiteArgument(fireDate, "fire date", "RLRunLoopTimerSetNextFireDate") else { return }
        t.setNextFireDate(fireDate)
    }
}

@c(RLRunLoopTimerGetInterval)
public func rlRunLoopTimerGetInterval(_ timer: RLRunLoopTimerRef?) -> RLTimeInterval {
    borrow(timer, as: .timer, "RLRunLoopTimerGetInterval", orElse: 0) { (t: LoopTimer) in t.interval }
}

@c(RLRunLoopTimerDoesRepeat)
public func rlRunLoopTimerDoesRepeat(_ timer: RLRunLoopTimerRef?) -> RLBoolean {
    borrow(timer, as: .timer, "RLRunLoopTimerDoesRepeat", orElse: 0) { (t: LoopTimer) in cBool(t.repeats) }
}

@c(RLRunLoopTimerGetOrder)
public func rlRunLoopTimerGetOrder(_ timer: RLRunLoopTimerRef?) -> RLIndex {
    borrow(timer, as: .timer, "RLRunLoopTimerGetOrder", orElse: 0) { (t: LoopTimer) in t.order }
}

@c(RLRunLoopTimerInvalidate)
public func rlRunLoopTimerInvalidate(_ timer: RLRunLoopTimerRef?) {
    borrow(timer, as: .timer, "RLRunLoopTimerInvalidate", orElse: ()) { (t: LoopTimer) in t.invalidate() }
}

@c(RLRunLoopTimerIsValid)
public func rlRunLoopTimerIsValid(_ timer: RLRunLoopTimerRef?) -> RLBoolean {
    borrow(timer, as: .timer, "RLRunLoopTimerIsValid", orElse: 0) { (t: LoopTimer) in cBool(t.isValid) }
}

@c(RLRunLoopTimerGetContext)
public func rlRunLoopTimerGetContext(_ timer: RLRunLoopTimerRef?, _ context: UnsafeMutablePointer<RLRunLoopTimerContext>?) {
    borrow(timer, as: .timer, "RLRunLoopTimerGetContext", orElse: ()) { (t: LoopTimer) in
        guard let context else {
            reportError("RLRunLoopTimerGetContext", .invalidArgument, "NULL context")
            return
        }
        var ctx = t.cContext ?? RLRunLoopTimerContext()
        if !t.isValid { ctx.info = nil }  // released at invalidation, as CF does
        context.pointee = ctx
    }
}

@c(RLRunLoopTimerGetTolerance)
public func rlRunLoopTimerGetTolerance(_ timer: RLRunLoopTimerRef?) -> RLTimeInterval {
    borrow(timer, as: .timer, "RLRunLoopTimerGetTolerance", orElse: 0) { (t: LoopTimer) in t.tolerance }
}

@c(RLRunLoopTimerSetTolerance)
public func rlRunLoopTimerSetTolerance(_ timer: RLRunLoopTimerRef?, _ tolerance: RLTimeInterval) {
    borrow(timer, as: .timer, "RLRunLoopTimerSetTolerance", orElse: ()) { (t: LoopTimer) in
        guard tolerance >= 0 else {
            reportError("RLRunLoopTimerSetTolerance", .invalidArgument, "tolerance \(tolerance) (stored as 0)")
            t.tolerance = 0
            return
        }
        t.tolerance = tolerance.isFinite ? tolerance : Clock.horizonSeconds
    }
}
