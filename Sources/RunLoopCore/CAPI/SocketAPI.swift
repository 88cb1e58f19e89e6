import CRunLoop
import Glibc

@c(RLSocketGetTypeID)
public func rlSocketGetTypeID() -> RLTypeID { RLTypeID(HandleKind.socket.rawValue) }

/// Wraps `fd` (see Socket.make), reporting failures as `function`.
private func wrapSocket(_ fd: Int32, _ types: RLOptionFlags, _ callout: RLSocketCallBack?,
                        _ context: UnsafePointer<RLSocketContext>?, _ function: StaticString) -> RLSocketRef? {
    guard fd >= 0 else {
        reportError(function, .invalidArgument, "negative descriptor \(fd)")
        return nil
    }
    let made = Socket.make(fd: fd, callBackTypes: types) {
        var ctx = context?.pointee ?? RLSocketContext()
        if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
        let info = ctx.info
        let bridged: Socket.Callout? = callout.map { fn in
            { s, type, address, data in fn(s.opaque, type, address?.opaque, data, info) }
        }
        return (bridged, ctx.release.map { fn in { fn(info) } }, ctx)
    }
    switch made {
    case .socket(let socket): return socket.opaque
    case .notOpen(let code):
        reportError(function, .invalidArgument, "descriptor \(fd) is not open (\(String(cString: strerror(code))))")
    case .full:
        reportError(function, .resources, "handle table full")
    }
    return nil
}

@c(RLSocketCreateWithNative)
public func rlSocketCreateWithNative(_ allocator: RLAllocatorRef?, _ sock: RLSocketNativeHandle,
                                     _ callBackTypes: RLOptionFlags, _ callout: RLSocketCallBack?,
                                     _ context: UnsafePointer<RLSocketContext>?) -> RLSocketRef? {
    wrapSocket(sock, callBackTypes, callout, context, "RLSocketCreateWithNative")
}

@c(RLSocketCreate)
public func rlSocketCreate(_ allocator: RLAllocatorRef?, _ protocolFamily: Int32, _ socketType: Int32,
                           _ proto: Int32, _ callBackTypes: RLOptionFlags, _ callout: RLSocketCallBack?,
                           _ context: UnsafePointer<RLSocketContext>?) -> RLSocketRef? {
    createSocket(protocolFamily, socketType, proto, callBackTypes, callout, context, "RLSocketCreate")
}

/// socket(2) with CF's defaults, then wrapped.
private func createSocket(_ family: Int32, _ type: Int32, _ proto: Int32, _ types: RLOptionFlags,
                          _ callout: RLSocketCallBack?, _ context: UnsafePointer<RLSocketContext>?,
                          _ function: StaticString) -> RLSocketRef? {
    var (family, type, proto) = (family, type, proto)
    let stream = Int32(SOCK_STREAM.rawValue), datagram = Int32(SOCK_DGRAM.rawValue)
    if family <= 0 { family = PF_INET }
    if family == PF_INET || family == PF_INET6 {
        if type <= 0 { type = stream }
        if proto <= 0 && type == stream { proto = Int32(IPPROTO_TCP) }
        if proto <= 0 && type == datagram { proto = Int32(IPPROTO_UDP) }
    } else if family == PF_UNIX && type <= 0 {
        type = stream
    }
    let fd = socket(family, type, max(proto, 0))
    guard fd >= 0 else {
        let error = errno
        reportError(function, .system(error),  // out of descriptors: kRLErrorResources
                    "socket(\(family), \(type), \(proto)) failed: \(String(cString: strerror(error)))")
        return nil
    }
    let made = wrapSocket(fd, types, callout, context, function)
    if made == nil { close(fd) }
    return made
}

@c(RLSocketCreateWithSocketSignature)
public func rlSocketCreateWithSocketSignature(_ allocator: RLAllocatorRef?, _ signature: UnsafePointer<RLSocketSignature>?,
                                              _ callBackTypes: RLOptionFlags, _ callout: RLSocketCallBack?,
                                              _ context: UnsafePointer<RLSocketContext>?) -> RLSocketRef? {
    createSocket(signature, callBackTypes, callout, context, "RLSocketCreateWithSocketSignature") { s, address in
        rlSocketSetAddress(s, address)
    }
}

@c(RLSocketCreateConnectedToSocketSignature)
public func rlSocketCreateConnectedToSocketSignature(_ allocator: RLAllocatorRef?,
                                                     _ signature: UnsafePointer<RLSocketSignature>?,
                                                     _ callBackTypes: RLOptionFlags, _ callout: RLSocketCallBack?,
                                                     _ context: UnsafePointer<RLSocketContext>?,
                                                     _ timeout: RLTimeInterval) -> RLSocketRef? {
    createSocket(signature, callBackTypes, callout, context, "RLSocketCreateConnectedToSocketSignature") { s, address in
        rlSocketConnectToAddress(s, address, timeout)
    }
}

/// A new socket of the signature's family, type and protocol, then `setUp`
/// with the signature's address (bind or connect); on its failure the
/// socket is invalidated and released, and nil returned.
private func createSocket(_ signature: UnsafePointer<RLSocketSignature>?, _ callBackTypes: RLOptionFlags,
                          _ callout: RLSocketCallBack?, _ context: UnsafePointer<RLSocketContext>?,
                          _ function: StaticString,
                          setUp: (RLSocketRef, RLDataRef?) -> RLSocketError) -> RLSocketRef? {
    guard let signature else {
        reportError(function, .invalidArgument, "NULL signature")
        return nil
    }
    let sig = signature.pointee
    guard let s = createSocket(sig.protocolFamily, sig.socketType, sig.protocol, callBackTypes, callout, context,
                               function) else { return nil }
    if setUp(s, sig.address) != kRLSocketSuccess {
        rlSocketInvalidate(s)
        rlRelease(UnsafeRawPointer(s))
        return nil
    }
    return s
}

/// The address argument's bytes, pinned for `body`; nil (reported) when
/// the handle is bad or the data empty.
private func withAddress<R>(_ address: RLDataRef?, _ function: StaticString, orElse fallback: R,
                            _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
    guard address != nil else {
        reportError(function, .invalidArgument, "NULL address")
        return fallback
    }
    return borrow(address, as: .data, function, orElse: fallback) { (d: Data) in
        guard d.count > 0 else {
            reportError(function, .invalidArgument, "empty address")
            return fallback
        }
        return body(UnsafePointer(d.bytes.assumingMemoryBound(to: sockaddr.self)), socklen_t(d.count))
    }
}

/// `body` with a valid socket's descriptor, the timeout checked first;
/// kRLSocketError (reported) for a bad handle, a NaN or an invalid socket.
private func withDescriptor(_ s: RLSocketRef?, timeout: RLTimeInterval = 0, _ function: StaticString,
                            _ body: (Int32) -> RLSocketError) -> RLSocketError {
    borrow(s, as: .socket, function, orElse: kRLSocketError) { (socket: Socket) in
        guard finiteArgument(timeout, "timeout", function) else { return kRLSocketError }
        let fd = socket.fd
        guard socket.isValid, fd >= 0 else {
            reportError(function, .invalidArgument, "the socket is invalid")
            return kRLSocketError
        }
        return body(fd)
    }
}

@c(RLSocketSetAddress)
public func rlSocketSetAddress(_ s: RLSocketRef?, _ address: RLDataRef?) -> RLSocketError {
    let cFunction: StaticString = "RLSocketSetAddress"
    return withDescriptor(s, cFunction) { fd in
        withAddress(address, cFunction, orElse: kRLSocketError) { SocketIO.bindAndListen(fd, $0, $1) }
    }
}

@c(RLSocketConnectToAddress)
public func rlSocketConnectToAddress(_ s: RLSocketRef?, _ address: RLDataRef?, _ timeout: RLTimeInterval) -> RLSocketError {
    let cFunction: StaticString = "RLSocketConnectToAddress"
    return withDescriptor(s, timeout: timeout, cFunction) { fd in
        withAddress(address, cFunction, orElse: kRLSocketError) { SocketIO.connect(fd, $0, $1, timeout: timeout) }
    }
}

@c(RLSocketSendData)
public func rlSocketSendData(_ s: RLSocketRef?, _ address: RLDataRef?, _ data: RLDataRef?,
                             _ timeout: RLTimeInterval) -> RLSocketError {
    let cFunction: StaticString = "RLSocketSendData"
    return withDescriptor(s, timeout: timeout, cFunction) { fd in
        borrow(data, as: .data, cFunction, orElse: kRLSocketError) { (payload: Data) in
            let send = { (to: Data?) in
                SocketIO.send(fd, payload.raw, to: to.map { UnsafePointer($0.bytes.assumingMemoryBound(to: sockaddr.self)) },
                              socklen_t(to?.count ?? 0), timeout: timeout)
            }
            // No address, or an empty one: the socket's peer.
            guard address != nil else { return send(nil) }
            return borrow(address, as: .data, cFunction, orElse: kRLSocketError) { (a: Data) in send(a.count > 0 ? a : nil) }
        }
    }
}

@c(RLSocketInvalidate)
public func rlSocketInvalidate(_ s: RLSocketRef?) {
    borrow(s, as: .socket, "RLSocketInvalidate", orElse: ()) { (socket: Socket) in socket.invalidate() }
}

@c(RLSocketIsValid)
public func rlSocketIsValid(_ s: RLSocketRef?) -> RLBoolean {
    borrow(s, as: .socket, "RLSocketIsValid", orElse: 0) { (socket: Socket) in cBool(socket.isValid) }
}

/// The socket's address as `query` gives it, in a new RLData.
private func copyAddress(_ s: RLSocketRef?, _ query: SocketIO.AddressQuery, _ function: StaticString) -> RLDataRef? {
    borrow(s, as: .socket, function, orElse: nil) { (socket: Socket) in
        guard let bytes = socket.address(query) else { return nil }
        guard let data = Data.make(bytes) else {
            reportError(function, .resources, "handle table full")
            return nil
        }
        return data.opaque
    }
}

@c(RLSocketCopyAddress)
public func rlSocketCopyAddress(_ s: RLSocketRef?) -> RLDataRef? { copyAddress(s, getsockname, "RLSocketCopyAddress") }

@c(RLSocketCopyPeerAddress)
public func rlSocketCopyPeerAddress(_ s: RLSocketRef?) -> RLDataRef? {
    copyAddress(s, getpeername, "RLSocketCopyPeerAddress")
}

@c(RLSocketGetContext)
public func rlSocketGetContext(_ s: RLSocketRef?, _ context: UnsafeMutablePointer<RLSocketContext>?) {
    let cFunction: StaticString = "RLSocketGetContext"
    borrow(s, as: .socket, cFunction, orElse: ()) { (socket: Socket) in
        guard let context else {
            reportError(cFunction, .invalidArgument, "NULL context")
            return
        }
        // CF clears the context at invalidation (its info is released).
        context.pointee = socket.isValid ? (socket.cContext ?? RLSocketContext()) : RLSocketContext()
    }
}

@c(RLSocketGetNative)
public func rlSocketGetNative(_ s: RLSocketRef?) -> RLSocketNativeHandle {
    borrow(s, as: .socket, "RLSocketGetNative", orElse: -1) { (socket: Socket) in socket.fd }
}

@c(RLSocketCreateRunLoopSource)
public func rlSocketCreateRunLoopSource(_ allocator: RLAllocatorRef?, _ s: RLSocketRef?,
                                        _ order: RLIndex) -> RLRunLoopSourceRef? {
    borrow(s, as: .socket, "RLSocketCreateRunLoopSource", orElse: nil) { (socket: Socket) in
        socket.runLoopSource(order: order)?.opaque
    }
}

@c(RLSocketGetSocketFlags)
public func rlSocketGetSocketFlags(_ s: RLSocketRef?) -> RLOptionFlags {
    borrow(s, as: .socket, "RLSocketGetSocketFlags", orElse: 0) { (socket: Socket) in socket.flags }
}

@c(RLSocketSetSocketFlags)
public func rlSocketSetSocketFlags(_ s: RLSocketRef?, _ flags: RLOptionFlags) {
    borrow(s, as: .socket, "RLSocketSetSocketFlags", orElse: ()) { (socket: Socket) in socket.flags = flags }
}

@c(RLSocketDisableCallBacks)
public func rlSocketDisableCallBacks(_ s: RLSocketRef?, _ callBackTypes: RLOptionFlags) {
    borrow(s, as: .socket, "RLSocketDisableCallBacks", orElse: ()) { (socket: Socket) in socket.disableCallBacks(callBackTypes) }
}

@c(RLSocketEnableCallBacks)
public func rlSocketEnableCallBacks(_ s: RLSocketRef?, _ callBackTypes: RLOptionFlags) {
    borrow(s, as: .socket, "RLSocketEnableCallBacks", orElse: ()) { (socket: Socket) in socket.enableCallBacks(callBackTypes) }
}
