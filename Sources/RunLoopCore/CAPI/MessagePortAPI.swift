import CRunLoop
import Glibc

@c(RLMessagePortGetTypeID) public func rlMessagePortGetTypeID() -> RLTypeID { RLTypeID(HandleKind.messagePort.rawValue) }

/// A port-name argument, as the bytes given (not decoded: any bytes but
/// NUL); NULL and a malformed name are reported.
private func portName(_ name: UnsafePointer<CChar>?, _ function: StaticString) -> [UInt8]? {
    guard let name else {
        reportError(function, .invalidArgument, "NULL name")
        return nil
    }
    let bytes = Array(UnsafeRawBufferPointer(start: name, count: strlen(name)))
    guard PortWire.isValidName(bytes) else {
        reportError(function, .invalidArgument, "a port name is 1 to \(PortWire.maxNameLength) bytes (got \(bytes.count))")
        return nil
    }
    return bytes
}

/// The user's port directory is another uid's (see PortDirectory).
private func reportSquat(_ function: StaticString, _ owner: uid_t, _ path: String) {
    reportError(function, .invalidArgument,
                "\(path), the directory of this user's port sockets, belongs to uid \(owner) (squatted); "
                + "no port of this user can be created or reached until it is removed")
}

private func reportSystem(_ function: StaticString, _ error: Int32) {
    reportError(function, .system(error), "the system refused: \(String(cString: strerror(error)))")
}

/// A name that cannot be had: the directory squatted, or the system
/// refused (a name in use is for the caller to report).
private func reportListenFailure(_ function: StaticString, _ failure: PortWire.ListenError) {
    switch failure {
    case .nameTaken: break
    case .squatted(let owner, let path): reportSquat(function, owner, path)
    case .system(let error): reportSystem(function, error)
    }
}

/// A name for messages.
private func display(_ name: [UInt8]?) -> String { String(decoding: name ?? [], as: UTF8.self) }

@c(RLMessagePortCreateLocal)
public func rlMessagePortCreateLocal(_ allocator: RLAllocatorRef?, _ name: UnsafePointer<CChar>?,
                                     _ callout: RLMessagePortCallBack?,
                                     _ context: UnsafeMutablePointer<RLMessagePortContext>?,
                                     _ shouldFreeInfo: UnsafeMutablePointer<RLBoolean>?) -> RLMessagePortRef? {
    let function: StaticString = "RLMessagePortCreateLocal"
    shouldFreeInfo?.pointee = 1
    guard let callout else {
        reportError(function, .invalidArgument, "NULL callout")
        return nil
    }
    guard let context else {
        reportError(function, .invalidArgument, "NULL context")
        return nil
    }
    guard context.pointee.version == 0 else {
        reportError(function, .invalidArgument, "context version \(context.pointee.version) (only 0 is supported)")
        return nil
    }
    let text = name.flatMap { portName($0, function) }
    if name != nil && text == nil { return nil }
    switch LocalPort.make(name: text, callout: callout, context: context.pointee) {
    case .success(.created(let port)):
        shouldFreeInfo?.pointee = 0
        return port.opaque
    case .success(.existing(let port)):
        return port.opaque  // *shouldFreeInfo stays true: this call's context was not kept
    case .failure(.nameTaken):
        reportError(function, .invalidArgument, "the name \"\(display(text))\" is in use by a local port of another process "
                    + "(or of this one, being made or freed at this moment)")
        return nil
    case .failure(let failure):
        reportListenFailure(function, failure)
        return nil
    }
}

@c(RLMessagePortCreateRemote)
public func rlMessagePortCreateRemote(_ allocator: RLAllocatorRef?, _ name: UnsafePointer<CChar>?) -> RLMessagePortRef? {
    let function: StaticString = "RLMessagePortCreateRemote"
    guard let text = portName(name, function) else { return nil }
    switch RemotePort.connect(text) {
    case .success(let port):
        return port.opaque
    case .failure(.noSuchPort):
        return nil  // an answer, not a misuse
    case .failure(.foreignOwner):
        reportError(function, .invalidArgument, "the port \"\(display(text))\" belongs to another user")
        return nil
    case .failure(.squatted(let owner, let path)):
        reportSquat(function, owner, path)
        return nil
    case .failure(.busy):
        reportError(function, .resources, "the port \"\(display(text))\" accepts no connection: its backlog stayed full "
                    + "for \(PortWire.connectPatience / 1_000_000) ms")
        return nil
    case .failure(.system(let error)):
        reportSystem(function, error)
        return nil
    }
}

@c(RLMessagePortIsRemote)
public func rlMessagePortIsRemote(_ ms: RLMessagePortRef?) -> RLBoolean {
    borrow(ms, as: .messagePort, "RLMessagePortIsRemote", orElse: 0) { (port: MessagePort) in cBool(port.isRemote) }
}

@c(RLMessagePortGetName)
public func rlMessagePortGetName(_ ms: RLMessagePortRef?) -> UnsafePointer<CChar>? {
    borrow(ms, as: .messagePort, "RLMessagePortGetName", orElse: nil) { (port: MessagePort) in port.nameCString }
}

@c(RLMessagePortSetName)
public func rlMessagePortSetName(_ ms: RLMessagePortRef?, _ newName: UnsafePointer<CChar>?) -> RLBoolean {
    let function: StaticString = "RLMessagePortSetName"
    return borrow(ms, as: .messagePort, function, orElse: 0) { (port: MessagePort) in
        guard let local = port as? LocalPort else { return 0 }  // CF: a remote cannot be renamed
        guard let text = portName(newName, function) else { return 0 }
        switch local.rename(text) {
        case .success(let renamed): return cBool(renamed)
        case .failure(let failure):
            reportListenFailure(function, failure)  // a name in use: false, as in CF
            return 0
        }
    }
}

@c(RLMessagePortGetContext)
public func rlMessagePortGetContext(_ ms: RLMessagePortRef?, _ context: UnsafeMutablePointer<RLMessagePortContext>?) {
    let cFunction: StaticString = "RLMessagePortGetContext"
    borrow(ms, as: .messagePort, cFunction, orElse: ()) { (port: MessagePort) in
        guard let context else {
            reportError(cFunction, .invalidArgument, "NULL context")
            return
        }
        context.pointee = (port as? LocalPort)?.context ?? RLMessagePortContext()
    }
}

@c(RLMessagePortInvalidate)
public func rlMessagePortInvalidate(_ ms: RLMessagePortRef?) {
    borrow(ms, as: .messagePort, "RLMessagePortInvalidate", orElse: ()) { (port: MessagePort) in port.invalidate() }
}

@c(RLMessagePortIsValid)
public func rlMessagePortIsValid(_ ms: RLMessagePortRef?) -> RLBoolean {
    borrow(ms, as: .messagePort, "RLMessagePortIsValid", orElse: 0) { (port: MessagePort) in
        cBool((port as? RemotePort)?.checkValid() ?? port.isValid)
    }
}

@c(RLMessagePortGetInvalidationCallBack)
public func rlMessagePortGetInvalidationCallBack(_ ms: RLMessagePortRef?) -> RLMessagePortInvalidationCallBack? {
    borrow(ms, as: .messagePort, "RLMessagePortGetInvalidationCallBack", orElse: nil) { (port: MessagePort) in
        port.invalidationCallBack
    }
}

@c(RLMessagePortSetInvalidationCallBack)
public func rlMessagePortSetInvalidationCallBack(_ ms: RLMessagePortRef?, _ callout: RLMessagePortInvalidationCallBack?) {
    borrow(ms, as: .messagePort, "RLMessagePortSetInvalidationCallBack", orElse: ()) { (port: MessagePort) in
        port.setInvalidationCallBack(callout)
    }
}

@c(RLMessagePortSendRequest)
public func rlMessagePortSendRequest(_ ms: RLMessagePortRef?, _ msgid: Int32, _ data: RLDataRef?,
                                     _ sendTimeout: RLTimeInterval, _ rcvTimeout: RLTimeInterval,
                                     _ replyMode: RLRunLoopMode?,
                                     _ returnData: UnsafeMutablePointer<RLDataRef?>?) -> Int32 {
    let function: StaticString = "RLMessagePortSendRequest"
    returnData?.pointee = nil
    return borrow(ms, as: .messagePort, function, orElse: PortStatus.isInvalid) { (port: MessagePort) in
        guard finiteArgument(sendTimeout, "sendTimeout", function),
              finiteArgument(rcvTimeout, "rcvTimeout", function) else { return PortStatus.transportError }
        let wantsReply = replyMode != nil
        // A local port's own callout, on this thread; a remote's local
        // port, through its connection.
        let send = { (payload: Data?) -> MessagePort.Outcome in
            if let local = port as? LocalPort { return local.sendToSelf(msgid: msgid, data: payload, wantsReply: wantsReply) }
            guard let remote = port as? RemotePort else { return .failed(PortStatus.isInvalid) }
            return remote.send(msgid: msgid, payload: payload?.raw, sendTimeout: sendTimeout, rcvTimeout: rcvTimeout,
                               wantsReply: wantsReply)
        }
        let outcome: MessagePort.Outcome
        if let data {
            outcome = borrow(data, as: .data, function, orElse: .failed(PortStatus.transportError)) { (d: Data) in
                guard d.count <= PortWire.maxPayload else {
                    reportError(function, .invalidArgument, "data of \(d.count) bytes (at most \(PortWire.maxPayload))")
                    return .failed(PortStatus.transportError)
                }
                return send(d)
            }
        } else {
            outcome = send(nil)
        }
        switch outcome {
        case .success(let reply):
            if let reply {
                if let returnData { returnData.pointee = reply.opaque } else { reply.releaseRef() }
            }
            return PortStatus.success
        case .failed(let code):
            return code
        }
    }
}

@c(RLMessagePortCreateRunLoopSource)
public func rlMessagePortCreateRunLoopSource(_ allocator: RLAllocatorRef?, _ local: RLMessagePortRef?,
                                             _ order: RLIndex) -> RLRunLoopSourceRef? {
    let function: StaticString = "RLMessagePortCreateRunLoopSource"
    return borrow(local, as: .messagePort, function, orElse: nil) { (port: MessagePort) in
        guard let local = port as? LocalPort else {
            reportError(function, .invalidArgument, "a remote port has no run-loop source")
            return nil
        }
        return local.runLoopSource(order: order)?.opaque
    }
}
