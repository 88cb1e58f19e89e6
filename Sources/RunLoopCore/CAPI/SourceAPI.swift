import CRunLoop
import CRunLoopShims

@c(RLRunLoopSourceCreate)
public func rlRunLoopSourceCreate(_ allocator: RLAllocatorRef?, _ order: RLIndex,
                                  _ context: UnsafeMutablePointer<RLRunLoopSourceContext>?) -> RLRunLoopSourceRef? {
    let cFunction: StaticString = "RLRunLoopSourceCreate"
    guard let context else {
        reportError(cFunction, .invalidArgument, "NULL context")
        return nil
    }
    if context.pointee.version == 1 {
        return makeVersion1Source(order, UnsafeMutableRawPointer(context).assumingMemoryBound(to: RLRunLoopSourceContext1.self))
    }
    var ctx = context.pointee
    guard ctx.version == 0 else {
        reportError(cFunction, .invalidArgument, "context version \(ctx.version) (0 or 1 are supported)")
        return nil
    }
    if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
    // The context's callbacks are called directly (Source.perform & co.).
    return registerSource(Source(order: order, context: ctx))
}

/// A version-1 source from CF's context1: getPort gives the descriptor.
private func makeVersion1Source(_ order: RLIndex, _ context: UnsafeMutablePointer<RLRunLoopSourceContext1>) -> RLRunLoopSourceRef? {
    var ctx = context.pointee
    guard let getPort = ctx.getPort else {
        reportError("RLRunLoopSourceCreate", .invalidArgument, "version-1 context without getPort")
        return nil
    }
    let fd = getPort(ctx.info)
    guard fd >= 0 else {
        reportError("RLRunLoopSourceCreate", .invalidArgument, "getPort returned \(fd)")
        return nil
    }
    if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
    return registerSource(Source(order: order, context1: ctx, descriptor: fd, interest: EPOLLIN.rawValue))
}

private func registerSource(_ source: Source) -> RLRunLoopSourceRef? {
    publish(source, "RLRunLoopSourceCreate")
}

@c(RLRunLoopSourceGetOrder)
public func rlRunLoopSourceGetOrder(_ source: RLRunLoopSourceRef?) -> RLIndex {
    borrow(source, as: .source, "RLRunLoopSourceGetOrder", orElse: 0) { (s: Source) in s.order }
}

@c(RLRunLoopSourceInvalidate)
public func rlRunLoopSourceInvalidate(_ source: RLRunLoopSourceRef?) {
    borrow(source, as: .source, "RLRunLoopSourceInvalidate", orElse: ()) { (s: Source) in s.invalidate() }
}

@c(RLRunLoopSourceIsValid)
public func rlRunLoopSourceIsValid(_ source: RLRunLoopSourceRef?) -> RLBoolean {
    borrow(source, as: .source, "RLRunLoopSourceIsValid", orElse: 0) { (s: Source) in cBool(s.isValid) }
}

@c(RLRunLoopSourceGetContext)
public func rlRunLoopSourceGetContext(_ source: RLRunLoopSourceRef?, _ context: UnsafeMutablePointer<RLRunLoopSourceContext>?) {
    let cFunction: StaticString = "RLRunLoopSourceGetContext"
    borrow(source, as: .source, cFunction, orElse: ()) { (s: Source) in
        guard let context else {
            reportError(cFunction, .invalidArgument, "NULL context")
            return
        }
        if let stored = s.cContext1 {
            UnsafeMutableRawPointer(context).assumingMemoryBound(to: RLRunLoopSourceContext1.self).pointee = stored
        } else {
            context.pointee = s.cContext ?? RLRunLoopSourceContext()
        }
    }
}

@c(RLRunLoopSourceSignal)
public func rlRunLoopSourceSignal(_ source: RLRunLoopSourceRef?) {
    // Pending already: one load and one comparison, no pin.
    if _fastPath(HandleTable.hotWordHas(UInt(bitPattern: source), kind: .source, Source.signalledBit)) { return }
    signalPinned(source, "RLRunLoopSourceSignal", andWakeUp: false)
}

@c(RLRunLoopSourceSignalAndWakeUp)
public func rlRunLoopSourceSignalAndWakeUp(_ source: RLRunLoopSourceRef?) {
    // Pending, and its loops woken: one load and one comparison, no pin.
    if _fastPath(HandleTable.hotWordIs(UInt(bitPattern: source), kind: .source, Source.signalledBit | Source.wokenBit)) { return }
    signalPinned(source, "RLRunLoopSourceSignalAndWakeUp", andWakeUp: true)
}

/// The two calls above once the hot word did not settle them.  Out of
/// line, so their checks run without this path's frame; one function for
/// both, so each caller's code has the same shape whatever the compiler
/// merges.
@inline(never)
private func signalPinned(_ source: RLRunLoopSourceRef?, _ function: StaticString, andWakeUp: Bool) {
    borrow(source, as: .source, function, orElse: ()) { (s: Source) in andWakeUp ? s.signalAndWakeUp() : s.signal() }
}

@c(RLRunLoopSourceIsSignalled)
public func rlRunLoopSourceIsSignalled(_ source: RLRunLoopSourceRef?) -> RLBoolean {
    borrow(source, as: .source, "RLRunLoopSourceIsSignalled", orElse: 0) { (s: Source) in cBool(s.isSignalled) }
}
