import CRunLoop

@c(RLSignalGetTypeID)
public func rlSignalGetTypeID() -> RLTypeID { RLTypeID(HandleKind.signal.rawValue) }

@c(RLSignalCreate)
public func rlSignalCreate(_ allocator: RLAllocatorRef?, _ signo: Int32, _ callout: RLSignalCallBack?,
                           _ context: UnsafePointer<RLSignalContext>?) -> RLSignalRef? {
    let cFunction: StaticString = "RLSignalCreate"
    guard let callout else {
        reportError(cFunction, .invalidArgument, "NULL callout")
        return nil
    }
    let watch: SignalHandler.Watch
    switch SignalHandler.watch(signo) {
    case .failure(let failure):
        failure.report(cFunction)
        return nil
    case .success(let started): watch = started
    }
    var ctx = context?.pointee ?? RLSignalContext()
    if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
    let info = ctx.info
    let object = SignalWatch(signal: signo, watch: watch, callout: { s, signo, count in callout(s.opaque, signo, count, info) },
                             releaseInfo: ctx.release.map { fn in { fn(info) } }, cContext: ctx)
    guard let handle = publish(object, cFunction) else {
        object.invalidate()  // never published: stop catching, release info
        return nil
    }
    return handle
}

@c(RLSignalGetSignal)
public func rlSignalGetSignal(_ s: RLSignalRef?) -> Int32 {
    borrow(s, as: .signal, "RLSignalGetSignal", orElse: 0) { (w: SignalWatch) in w.signal }
}

@c(RLSignalGetContext)
public func rlSignalGetContext(_ s: RLSignalRef?, _ context: UnsafeMutablePointer<RLSignalContext>?) {
    let cFunction: StaticString = "RLSignalGetContext"
    borrow(s, as: .signal, cFunction, orElse: ()) { (w: SignalWatch) in
        guard let context else {
            reportError(cFunction, .invalidArgument, "NULL context")
            return
        }
        var ctx = w.cContext ?? RLSignalContext()
        if !w.isValid { ctx.info = nil }  // released at invalidation
        context.pointee = ctx
    }
}

@c(RLSignalInvalidate)
public func rlSignalInvalidate(_ s: RLSignalRef?) {
    borrow(s, as: .signal, "RLSignalInvalidate", orElse: ()) { (w: SignalWatch) in w.invalidate() }
}

@c(RLSignalIsValid)
public func rlSignalIsValid(_ s: RLSignalRef?) -> RLBoolean {
    borrow(s, as: .signal, "RLSignalIsValid", orElse: 0) { (w: SignalWatch) in cBool(w.isValid) }
}

@c(RLSignalCreateRunLoopSource)
public func rlSignalCreateRunLoopSource(_ allocator: RLAllocatorRef?, _ s: RLSignalRef?,
                                        _ order: RLIndex) -> RLRunLoopSourceRef? {
    borrow(s, as: .signal, "RLSignalCreateRunLoopSource", orElse: nil) { (w: SignalWatch) in
        w.runLoopSource(order: order)?.opaque
    }
}
