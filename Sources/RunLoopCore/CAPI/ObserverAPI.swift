import CRunLoop
import CRunLoopShims

private func makeObserver(_ activities: RLOptionFlags, _ repeats: RLBoolean, _ order: RLIndex,
                          releaseInfo: (() -> Void)?, context: RLRunLoopObserverContext?,
                          _ function: StaticString,
                          _ callout: @escaping (Observer, UInt) -> Void) -> RLRunLoopObserverRef? {
    let observer = Observer(activities: activities, repeats: repeats != 0, order: order, callout: callout,
                            releaseInfo: releaseInfo, cContext: context)
    return publish(observer, function)
}

@c(RLRunLoopObserverCreate)
public func rlRunLoopObserverCreate(_ allocator: RLAllocatorRef?, _ activities: RLOptionFlags, _ repeats: RLBoolean,
                                    _ order: RLIndex, _ callout: RLRunLoopObserverCallBack?,
                                    _ context: UnsafeMutablePointer<RLRunLoopObserverContext>?) -> RLRunLoopObserverRef? {
    // A NULL callout is valid (as in CF): the observer is called for
    // nothing, and a one-shot one is still invalidated after its activity.
    var ctx = context?.pointee ?? RLRunLoopObserverContext()
    if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
    let info = ctx.info
    return makeObserver(activities, repeats, order, releaseInfo: ctx.release.map { fn in { fn(info) } },
                        context: ctx, "RLRunLoopObserverCreate") { observer, activity in
        callout?(observer.opaque, activity, info)
    }
}

@c(RLRunLoopObserverCreateWithHandler)
public func rlRunLoopObserverCreateWithHandler(_ allocator: RLAllocatorRef?, _ activities: RLOptionFlags,
                                               _ repeats: RLBoolean, _ order: RLIndex,
                                               _ block: UnsafeRawPointer?) -> RLRunLoopObserverRef? {  // a block, see CopiedBlock
    let cFunction: StaticString = "RLRunLoopObserverCreateWithHandler"
    guard let block else {
        reportError(cFunction, .invalidArgument, "NULL block")
        return nil
    }
    let copied = CopiedBlock(block)
    return makeObserver(activities, repeats, order, releaseInfo: nil, context: nil,
                        cFunction) { observer, activity in
        rl_block_invoke_observer(copied.pointer, UnsafeMutableRawPointer(observer.opaque), activity)
    }
}

@c(RLRunLoopObserverGetActivities)
public func rlRunLoopObserverGetActivities(_ observer: RLRunLoopObserverRef?) -> RLOptionFlags {
    borrow(observer, as: .observer, "RLRunLoopObserverGetActivities", orElse: 0) { (o: Observer) in o.activities }
}

@c(RLRunLoopObserverDoesRepeat)
public func rlRunLoopObserverDoesRepeat(_ observer: RLRunLoopObserverRef?) -> RLBoolean {
    borrow(observer, as: .observer, "RLRunLoopObserverDoesRepeat", orElse: 0) { (o: Observer) in cBool(o.repeats) }
}

@c(RLRunLoopObserverGetOrder)
public func rlRunLoopObserverGetOrder(_ observer: RLRunLoopObserverRef?) -> RLIndex {
    borrow(observer, as: .observer, "RLRunLoopObserverGetOrder", orElse: 0) { (o: Observer) in o.order }
}

@c(RLRunLoopObserverInvalidate)
public func rlRunLoopObserverInvalidate(_ observer: RLRunLoopObserverRef?) {
    borrow(observer, as: .observer, "RLRunLoopObserverInvalidate", orElse: ()) { (o: Observer) in o.invalidate() }
}

@c(RLRunLoopObserverIsValid)
public func rlRunLoopObserverIsValid(_ observer: RLRunLoopObserverRef?) -> RLBoolean {
    borrow(observer, as: .observer, "RLRunLoopObserverIsValid", orElse: 0) { (o: Observer) in cBool(o.isValid) }
}

@c(RLRunLoopObserverGetContext)
public func rlRunLoopObserverGetContext(_ observer: RLRunLoopObserverRef?, _ context: UnsafeMutablePointer<RLRunLoopObserverContext>?) {
    let cFunction: StaticString = "RLRunLoopObserverGetContext"
    borrow(observer, as: .observer, cFunction, orElse: ()) { (o: Observer) in
        guard let context else {
            reportError(cFunction, .invalidArgument, "NULL context")
            return
        }
        var ctx = o.cContext ?? RLRunLoopObserverContext()
        if !o.isValid { ctx.info = nil }  // released at invalidation, as CF does
        context.pointee = ctx
    }
}
