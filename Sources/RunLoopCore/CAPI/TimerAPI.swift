import CRunLoop
import CRunLoopShims

private func makeTimer(_ fireDate: RLAbsoluteTime, _ interval: RLTimeInterval, _ order: RLIndex,
                       _ callout: TimerCallout, _ function: StaticString) -> RLRunLoopTimerRef? {
    publish(Timer(fireDate: fireDate, interval: interval, order: order, callout: callout), function)
}

@c(RLRunLoopTimerCreate)
public func rlRunLoopTimerCreate(_ allocator: RLAllocatorRef?, _ fireDate: RLAbsoluteTime, _ interval: RLTimeInterval,
                                 _ flags: RLOptionFlags, _ order: RLIndex, _ callout: RLRunLoopTimerCallBack?,
                                 _ context: UnsafeMutablePointer<RLRunLoopTimerContext>?) -> RLRunLoopTimerRef? {
    let cFunction: StaticString = "RLRunLoopTimerCreate"
    // A NULL callout is valid (as in CF): the timer fires and calls nothing.
    guard finiteArgument(fireDate, "fire date", cFunction),
          finiteArgument(interval, "interval", cFunction) else { return nil }
    var ctx = context?.pointee ?? RLRunLoopTimerContext()
    if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
    // The C callback is called directly (Timer.fire), with no closure box.
    return makeTimer(fireDate, interval, order, .function(callout, ctx), cFunction)
}

@c(RLRunLoopTimerCreateWithHandler)
public func rlRunLoopTimerCreateWithHandler(_ allocator: RLAllocatorRef?, _ fireDate: RLAbsoluteTime,
                                            _ interval: RLTimeInterval, _ flags: RLOptionFlags, _ order: RLIndex,
                                            _ block: UnsafeRawPointer?) -> RLRunLoopTimerRef? {  // a block, see CopiedBlock
    let cFunction: StaticString = "RLRunLoopTimerCreateWithHandler"
    guard let block else {
        reportError(cFunction, .invalidArgument, "NULL block")
        return nil
    }
    guard finiteArgument(fireDate, "fire date", cFunction),
          finiteArgument(interval, "interval", cFunction) else { return nil }
    let copied = CopiedBlock(block)
    return makeTimer(fireDate, interval, order, .closure { timer in
        rl_block_invoke_timer(copied.pointer, UnsafeMutableRawPointer(timer.opaque))
    }, cFunction)
}

@c(RLRunLoopTimerGetNextFireDate)
public func rlRunLoopTimerGetNextFireDate(_ timer: RLRunLoopTimerRef?) -> RLAbsoluteTime {
    borrow(timer, as: .timer, "RLRunLoopTimerGetNextFireDate", orElse: 0) { (t: Timer) in t.nextFireDate }
}

@c(RLRunLoopTimerSetNextFireDate)
public func rlRunLoopTimerSetNextFireDate(_ timer: RLRunLoopTimerRef?, _ fireDate: RLAbsoluteTime) {
    let cFunction: StaticString = "RLRunLoopTimerSetNextFireDate"
    borrow(timer, as: .timer, cFunction, orElse: ()) { (t: Timer) in
        guard finiteArgument(fireDate, "fire date", cFunction) else { return }
        t.setNextFireDate(fireDate)
    }
}

@c(RLRunLoopTimerGetInterval)
public func rlRunLoopTimerGetInterval(_ timer: RLRunLoopTimerRef?) -> RLTimeInterval {
    borrow(timer, as: .timer, "RLRunLoopTimerGetInterval", orElse: 0) { (t: Timer) in t.interval }
}

@c(RLRunLoopTimerDoesRepeat)
public func rlRunLoopTimerDoesRepeat(_ timer: RLRunLoopTimerRef?) -> RLBoolean {
    borrow(timer, as: .timer, "RLRunLoopTimerDoesRepeat", orElse: 0) { (t: Timer) in cBool(t.repeats) }
}

@c(RLRunLoopTimerGetOrder)
public func rlRunLoopTimerGetOrder(_ timer: RLRunLoopTimerRef?) -> RLIndex {
    borrow(timer, as: .timer, "RLRunLoopTimerGetOrder", orElse: 0) { (t: Timer) in t.order }
}

@c(RLRunLoopTimerInvalidate)
public func rlRunLoopTimerInvalidate(_ timer: RLRunLoopTimerRef?) {
    borrow(timer, as: .timer, "RLRunLoopTimerInvalidate", orElse: ()) { (t: Timer) in t.invalidate() }
}

@c(RLRunLoopTimerIsValid)
public func rlRunLoopTimerIsValid(_ timer: RLRunLoopTimerRef?) -> RLBoolean {
    borrow(timer, as: .timer, "RLRunLoopTimerIsValid", orElse: 0) { (t: Timer) in cBool(t.isValid) }
}

@c(RLRunLoopTimerGetContext)
public func rlRunLoopTimerGetContext(_ timer: RLRunLoopTimerRef?, _ context: UnsafeMutablePointer<RLRunLoopTimerContext>?) {
    let cFunction: StaticString = "RLRunLoopTimerGetContext"
    borrow(timer, as: .timer, cFunction, orElse: ()) { (t: Timer) in
        guard let context else {
            reportError(cFunction, .invalidArgument, "NULL context")
            return
        }
        var ctx = t.cContext ?? RLRunLoopTimerContext()
        if !t.isValid { ctx.info = nil }  // released at invalidation, as CF does
        context.pointee = ctx
    }
}

@c(RLRunLoopTimerGetTolerance)
public func rlRunLoopTimerGetTolerance(_ timer: RLRunLoopTimerRef?) -> RLTimeInterval {
    borrow(timer, as: .timer, "RLRunLoopTimerGetTolerance", orElse: 0) { (t: Timer) in t.tolerance }
}

@c(RLRunLoopTimerSetTolerance)
public func rlRunLoopTimerSetTolerance(_ timer: RLRunLoopTimerRef?, _ tolerance: RLTimeInterval) {
    let cFunction: StaticString = "RLRunLoopTimerSetTolerance"
    borrow(timer, as: .timer, cFunction, orElse: ()) { (t: Timer) in
        guard tolerance >= 0 else {
            reportError(cFunction, .invalidArgument, "tolerance \(tolerance) (stored as 0)")
            t.tolerance = 0
            return
        }
        t.tolerance = tolerance.isFinite ? tolerance : Clock.horizonSeconds
    }
}
