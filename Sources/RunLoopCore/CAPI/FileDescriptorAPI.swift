import CRunLoop

@c(RLFileDescriptorGetTypeID)
public func rlFileDescriptorGetTypeID() -> RLTypeID { RLTypeID(HandleKind.fileDescriptor.rawValue) }

@c(RLFileDescriptorCreate)
public func rlFileDescriptorCreate(_ allocator: RLAllocatorRef?, _ fd: RLFileDescriptorNativeDescriptor,
                                   _ closeOnInvalidate: RLBoolean, _ callout: RLFileDescriptorCallBack?,
                                   _ context: UnsafePointer<RLFileDescriptorContext>?) -> RLFileDescriptorRef? {
    let cFunction: StaticString = "RLFileDescriptorCreate"
    guard fd >= 0 else {
        reportError(cFunction, .invalidArgument, "negative descriptor \(fd)")
        return nil
    }
    guard let callout else {
        reportError(cFunction, .invalidArgument, "NULL callout")
        return nil
    }
    var ctx = context?.pointee ?? RLFileDescriptorContext()
    if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
    let info = ctx.info
    let object = FileDescriptor(fd: fd, closeOnInvalidate: closeOnInvalidate != 0,
                                callout: { f, types in callout(f.opaque, types, info) },
                                releaseInfo: ctx.release.map { fn in { fn(info) } }, cContext: ctx)
    return publish(object, cFunction)
}

@c(RLFileDescriptorGetNativeDescriptor)
public func rlFileDescriptorGetNativeDescriptor(_ f: RLFileDescriptorRef?) -> RLFileDescriptorNativeDescriptor {
    borrow(f, as: .fileDescriptor, "RLFileDescriptorGetNativeDescriptor", orElse: -1) { (d: FileDescriptor) in d.fd }
}

@c(RLFileDescriptorGetContext)
public func rlFileDescriptorGetContext(_ f: RLFileDescriptorRef?, _ context: UnsafeMutablePointer<RLFileDescriptorContext>?) {
    let cFunction: StaticString = "RLFileDescriptorGetContext"
    borrow(f, as: .fileDescriptor, cFunction, orElse: ()) { (d: FileDescriptor) in
        guard let context else {
            reportError(cFunction, .invalidArgument, "NULL context")
            return
        }
        var ctx = d.cContext ?? RLFileDescriptorContext()
        if !d.isValid { ctx.info = nil }  // released at invalidation
        context.pointee = ctx
    }
}

@c(RLFileDescriptorEnableCallBacks)
public func rlFileDescriptorEnableCallBacks(_ f: RLFileDescriptorRef?, _ types: RLOptionFlags) {
    borrow(f, as: .fileDescriptor, "RLFileDescriptorEnableCallBacks", orElse: ()) { (d: FileDescriptor) in
        d.enableCallBacks(types)
    }
}

@c(RLFileDescriptorDisableCallBacks)
public func rlFileDescriptorDisableCallBacks(_ f: RLFileDescriptorRef?, _ types: RLOptionFlags) {
    borrow(f, as: .fileDescriptor, "RLFileDescriptorDisableCallBacks", orElse: ()) { (d: FileDescriptor) in
        d.disableCallBacks(types)
    }
}

@c(RLFileDescriptorInvalidate)
public func rlFileDescriptorInvalidate(_ f: RLFileDescriptorRef?) {
    borrow(f, as: .fileDescriptor, "RLFileDescriptorInvalidate", orElse: ()) { (d: FileDescriptor) in d.invalidate() }
}

@c(RLFileDescriptorIsValid)
public func rlFileDescriptorIsValid(_ f: RLFileDescriptorRef?) -> RLBoolean {
    borrow(f, as: .fileDescriptor, "RLFileDescriptorIsValid", orElse: 0) { (d: FileDescriptor) in cBool(d.isValid) }
}

@c(RLFileDescriptorCreateRunLoopSource)
public func rlFileDescriptorCreateRunLoopSource(_ allocator: RLAllocatorRef?, _ f: RLFileDescriptorRef?,
                                                _ order: RLIndex) -> RLRunLoopSourceRef? {
    borrow(f, as: .fileDescriptor, "RLFileDescriptorCreateRunLoopSource", orElse: nil) { (d: FileDescriptor) in
        d.runLoopSource(order: order)?.opaque
    }
}
