import CRunLoop
import CRunLoopShims
import Glibc
import Synchronization

/// CF's CFSocket: a native socket whose readiness is delivered through a
/// version-1 run loop source, with CF's callback types (read, accept,
/// data, connect, write), one-shot callbacks re-enabled by the socket's
/// flags, and close-on-invalidate.
///
/// The descriptor is watched by the loop's own wait set (the source's
/// interest), only for the directions that are armed: `armRead` for the
/// read type, `armWrite` for write (or connect, while not connected).  A
/// direction is disarmed when it fires, before the callout, and re-armed
/// after it when the flags ask for it — so two loops holding the source
/// never both handle one readiness.  Accepting and reading (the accept and
/// data types) happen on the loop's thread, just before the callout.
///
/// An accepting socket's source watches a private epoll set instead, made
/// with its first source: the listener (for the armed directions) and the
/// timer of an AcceptBackoff.  When accept() fails for lack of descriptors
/// the listener leaves the set until the timer fires, so the loop does not
/// spin on a listener that stays readable; the shortage is reported once.
package final class Socket: Object, @unchecked Sendable {
    package static let readType: UInt = 1
    package static let acceptType: UInt = 2
    package static let dataType: UInt = 3
    package static let connectType: UInt = 4
    package static let writeType: UInt = 8
    package static let leaveErrors: UInt = 64
    package static let closeOnInvalidate: UInt = 128

    /// The bytes a data callout gets at most from one read.
    static let streamChunk = 32 * 1024
    static let datagramChunk = 64 * 1024

    /// What the callout receives: the socket, the type, the address (a
    /// borrowed data object) and the data pointer.
    package typealias Callout = (Socket, UInt, Data?, UnsafeRawPointer?) -> Void

    package let callBackTypes: UInt
    /// Read, accept, data or none (the low two bits of the types).
    private let readKind: UInt
    /// SOCK_STREAM: waits for a connection before write callbacks, and
    /// its peer's address is known.
    private let connectionOriented: Bool
    /// A read of zero bytes is the end of the stream: the peer closed the
    /// connection (SOCK_STREAM, SOCK_SEQPACKET, and anything that is not a
    /// socket).  On a socket of connectionless messages (SOCK_DGRAM,
    /// SOCK_RAW, SOCK_RDM) it is an empty message: data, and the socket
    /// stays valid, as in CF.
    private let zeroReadEnds: Bool
    /// The file the descriptor named at creation, to tell at close time
    /// whether the number still names it.
    private let identity: (device: UInt, inode: UInt)
    package let cContext: RLSocketContext?
    private let callout: Callout?
    private let releaseInfo: (() -> Void)?
    private let gate = CalloutGate()
    private let valid = Atomic<Bool>(true)

    private struct State {
        var fd: Int32
        var flags: UInt
        var disabled: UInt = 0
        var connected = false
        /// How many modes of loops hold the source (CF's set count).
        var scheduled = 0
        var armRead = false
        var armWrite = false
        var source: Source?
        /// getpeername's answer, once known (the address of stream data).
        var peer: [UInt8]?
        /// An accepting socket's private epoll set (see the type's
        /// comment), -1 until its first source; closed in deinit, after
        /// every loop let go of the sources watching it.
        var acceptSet: Int32 = -1
        /// The pause of accepting, and its timer (in `acceptSet`).
        var backoff: AcceptBackoff?
        /// The events `acceptSet` watches on the listener (0: not in it).
        var listenerEvents: UInt32 = 0
    }
    private let state: Guarded<State>
    private static let listenerToken: UInt64 = 0
    private static let timerToken: UInt64 = 1

    /// Valid sockets by descriptor: CreateWithNative of a descriptor that
    /// has one gives that one, as in CF.
    private static let byDescriptor = Guarded<[Int32: Socket]>([:])

    private init(fd: Int32, callBackTypes: UInt, callout: Callout?, releaseInfo: (() -> Void)?,
                 cContext: RLSocketContext?, identity: (UInt, UInt)) {
        self.callBackTypes = callBackTypes
        readKind = callBackTypes & 3
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 { type = 0 }
        connectionOriented = type == Int32(SOCK_STREAM.rawValue)
        zeroReadEnds = ![SOCK_DGRAM, SOCK_RAW, SOCK_RDM].contains { Int32($0.rawValue) == type }
        self.identity = identity
        self.callout = callout
        self.releaseInfo = releaseInfo
        self.cContext = cContext
        // CF's default flags: the read type re-enables itself, write does
        // not, connect is once only; the descriptor is closed at the end.
        let flags = (callBackTypes & ~(Self.connectType | Self.writeType)) | Self.closeOnInvalidate
        state = Guarded(State(fd: fd, flags: flags))
        super.init(kind: .socket)
    }

    deinit {
        state.withLock { s in
            guard s.acceptSet >= 0 else { return }
            close(s.acceptSet)
            if let backoff = s.backoff { close(backoff.timerFD) }
        }
    }

    /// The result of `make`.
    package enum Made {
        case created(Socket)
        case existing(Socket)
        case notOpen(Int32)
        case full
    }

    /// The socket for `fd` with one reference for the caller: the valid
    /// socket that already wraps it, or a new one.  `makeInfo` is called
    /// only for a new socket (it retains the context's info) and returns
    /// the callout, the info's release and the context to keep.
    package static func make(fd: Int32, callBackTypes: UInt,
                             makeInfo: () -> (Callout?, (() -> Void)?, RLSocketContext?)) -> Made {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .notOpen(errno) }
        // The same file still: a number closed behind its socket's back and
        // reused names another one, which gets a socket of its own.
        if let existing = byDescriptor.withLock({ $0[fd] }), existing.isValid,
           existing.identity == (UInt(st.st_dev), UInt(st.st_ino)),
           case .success = HandleTable.shared.retain(UInt(existing.handle), kind: .socket) {
            return .existing(existing)
        }
        // No lock held: makeInfo runs the context's retain (user code).
        let (callout, release, context) = makeInfo()
        let socket = Socket(fd: fd, callBackTypes: callBackTypes, callout: callout, releaseInfo: release,
                            cContext: context, identity: (UInt(st.st_dev), UInt(st.st_ino)))
        guard HandleTable.shared.register(socket) else {
            release?()
            return .full
        }
        byDescriptor.withLock { $0[fd] = socket }
        return .created(socket)
    }

    package var isValid: Bool { valid.load(ordering: .acquiring) }
    /// The native socket; -1 once invalid.
    package var fd: Int32 { state.withLock { $0.fd } }

    package var flags: UInt {
        get { state.withLock { $0.flags } }
        set { state.withLock { $0.flags = newValue } }
    }

    // MARK: enabling

    /// CF's enable: only while valid and scheduled; `force` (a user's
    /// enable, or the first schedule) clears the disabled bits, an
    /// automatic re-enable respects them.  Lock held.
    private func enableLocked(_ s: inout State, _ types: UInt, force: Bool) {
        guard isValid, s.scheduled > 0, types != 0 else { return }
        let types = types & callBackTypes
        if force { s.disabled &= ~types }
        if readKind == Self.acceptType || !connectionOriented { s.connected = true }
        if s.connected || types & Self.connectType == 0 {
            if types & Self.writeType != 0 && s.disabled & Self.writeType == 0 { s.armWrite = true }
        } else if types & Self.connectType != 0 && s.disabled & Self.connectType == 0 {
            s.armWrite = true
        }
        if readKind != 0 && types & readKind != 0 && s.disabled & readKind == 0 { s.armRead = true }
        applyInterestLocked(&s)
    }

    private func applyInterestLocked(_ s: inout State) {
        let armed = isValid && s.scheduled > 0
        var events = (armed && s.armRead ? EPOLLIN.rawValue : 0) | (armed && s.armWrite ? EPOLLOUT.rawValue : 0)
        guard s.acceptSet >= 0 else {
            s.source?.setInterest(events)
            return
        }
        // Accepting: the source watches the private set; the listener is
        // in it for the armed directions, and not for reading while
        // accepting pauses.
        if s.backoff?.isPaused == true { events &= ~EPOLLIN.rawValue }
        guard events != s.listenerEvents, s.fd >= 0 else { return }
        if events == 0 {
            _ = rl_epoll_del(s.acceptSet, s.fd)
        } else if s.listenerEvents == 0 {
            _ = rl_epoll_add(s.acceptSet, s.fd, events, Self.listenerToken)
        } else {
            _ = rl_epoll_mod(s.acceptSet, s.fd, events, Self.listenerToken)
        }
        s.listenerEvents = events
    }

    package func enableCallBacks(_ types: UInt) {
        state.withLock { enableLocked(&$0, types, force: true) }
    }

    package func disableCallBacks(_ types: UInt) {
        state.withLock { s in
            guard isValid, s.scheduled > 0 else { return }
            let types = types & callBackTypes
            s.disabled |= types
            if readKind == Self.acceptType || !connectionOriented { s.connected = true }
            if types & Self.writeType != 0 || (types & Self.connectType != 0 && !s.connected) { s.armWrite = false }
            if readKind != 0 && types & readKind != 0 { s.armRead = false }
            applyInterestLocked(&s)
        }
    }

    private func scheduled(_ delta: Int) {
        state.withLock { s in
            s.scheduled += delta
            if delta > 0 && s.scheduled == 1 {
                enableLocked(&s, callBackTypes, force: true)
            } else if s.scheduled == 0 {
                s.armRead = false
                s.armWrite = false
                applyInterestLocked(&s)
            }
        }
    }

    // MARK: the source

    /// The source delivering the callbacks, with one reference for the
    /// caller; the same source while it lives.  nil once invalid, or
    /// (reported) when an accepting socket gets no descriptor for its
    /// private set.
    package func runLoopSource(order: Int) -> Source? {
        guard isValid else { return nil }
        var refused: Int32 = 0
        let made = state.withLock { s -> Source? in
            if let source = s.source, source.isValid,
               case .success = HandleTable.shared.retain(UInt(source.handle), kind: .source) {
                return source
            }
            let fd = s.fd
            var watched = (descriptor: fd, interest: UInt32(0))
            if readKind == Self.acceptType {
                guard let set = acceptSetLocked(&s) else {
                    refused = errno
                    return nil
                }
                watched = (set, EPOLLIN.rawValue)
            }
            let callbacks = SourceCallbacks(
                schedule: { [self] _, _ in scheduled(1) },
                cancel: { [self] _, _ in scheduled(-1) },
                perform: {},
                release: { [self] in releaseRef() },
                describe: { "socket \(fd)" },
                ready: { [self] events in handleReady(events) })
            let source = Source(order: order, callbacks: callbacks, descriptor: watched.descriptor,
                                interest: watched.interest)
            guard HandleTable.shared.register(source) else { return nil }
            retainRef()  // the source's reference to this object
            s.source = source
            s.scheduled = 0
            return source
        }
        if refused != 0 {
            reportError("RLSocketCreateRunLoopSource", ErrorCode.system(refused),
                        "cannot watch accepting socket \(fd): \(String(cString: strerror(refused)))")
        }
        return made
    }

    /// An accepting socket's private set with the back-off's timer in it,
    /// made once; nil (errno set) when the system refuses a descriptor.
    private func acceptSetLocked(_ s: inout State) -> Int32? {
        if s.acceptSet >= 0 { return s.acceptSet }
        let set = rl_epoll_create()
        guard set >= 0 else { return nil }
        guard let backoff = AcceptBackoff() else {
            let error = errno
            close(set)
            errno = error
            return nil
        }
        _ = rl_epoll_add(set, backoff.timerFD, EPOLLIN.rawValue, Self.timerToken)
        s.acceptSet = set
        s.backoff = backoff
        return set
    }

    /// An accepting socket's set was reported readable: the events of the
    /// listener (0: none), after ending a pause whose timer fired.
    private func collectAcceptSet() -> UInt32 {
        state.withLock { s -> UInt32 in
            guard s.acceptSet >= 0 else { return 0 }
            var tokens: (UInt64, UInt64) = (0, 0)
            var events: (UInt32, UInt32) = (0, 0)
            let n = withUnsafeMutableBytes(of: &tokens) { t in
                withUnsafeMutableBytes(of: &events) { e in
                    rl_epoll_wait(s.acceptSet, t.baseAddress!.assumingMemoryBound(to: UInt64.self),
                                  e.baseAddress!.assumingMemoryBound(to: UInt32.self), 2, 0)
                }
            }
            var listener: UInt32 = 0
            for (token, mask) in [(tokens.0, events.0), (tokens.1, events.1)].prefix(Int(max(n, 0))) {
                if token == Self.listenerToken {
                    listener = mask
                } else if s.backoff?.timerFired() == true {
                    applyInterestLocked(&s)  // the listener is back in the set
                }
            }
            return listener
        }
    }

    // MARK: callouts

    /// What the read side found for its callout.
    private enum ReadResult {
        case nothing               // a spurious wake-up: stays armed
        case exhausted(Int32)      // no descriptor to accept with: pauses
        case readable              // the read type: the callout reads
        case accepted(Int32, [UInt8])
        case data([UInt8], [UInt8]?, eof: Bool)
    }

    /// On a loop's thread: the descriptor reported `events`.
    private func handleReady(_ reported: UInt32) {
        guard isValid else { return }
        // An accepting socket's source watches its private set.
        let events = readKind == Self.acceptType ? collectAcceptSet() : reported
        let readable = events & (EPOLLIN.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0
        let writable = events & (EPOLLOUT.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0
        // Claim what fired (one loop per readiness), disarming it.
        let (readFired, writeFired, fd, flags) = state.withLock { s -> (Bool, Bool, Int32, UInt) in
            let r = s.armRead && readable
            let w = s.armWrite && writable
            if r { s.armRead = false }
            if w { s.armWrite = false }
            if r || w { applyInterestLocked(&s) }
            return (r, w, s.fd, s.flags)
        }
        guard (readFired || writeFired), fd >= 0 else { return }

        var errorCode: Int32 = 0
        var connectSignalled = false
        if writeFired {
            if flags & Self.leaveErrors == 0 {
                var length = socklen_t(MemoryLayout<Int32>.size)
                if getsockopt(fd, SOL_SOCKET, SO_ERROR, &errorCode, &length) != 0 { errorCode = 0 }
            }
            connectSignalled = state.withLock { s in
                defer { s.connected = true }
                return !s.connected
            }
        }
        let read = readFired ? readSide(fd) : .nothing
        if case .exhausted(let error) = read {
            // The connection stays pending: the listener leaves the set
            // until the back-off's timer fires (re-armed below).
            let report = state.withLock { $0.backoff?.pause(error, accepting: "socket \(fd)") }
            if let report { reportError("RLSocket (accepting)", .resources, report) }
        }

        var acceptedOwned = false  // the callout got the accepted descriptor
        var invalidateAfter = false
        _ = gate.callOut({
            var calledOut = false
            if callBackTypes & Self.connectType != 0 && connectSignalled {
                if errorCode != 0 {
                    var code = errorCode
                    withUnsafePointer(to: &code) { call(Self.connectType, address: nil, data: UnsafeRawPointer($0)) }
                } else {
                    call(Self.connectType, address: nil, data: nil)
                }
                calledOut = true
            }
            if !calledOut || isValid {
                switch read {
                case .nothing, .exhausted: break
                case .readable:
                    call(Self.readType, address: nil, data: nil)
                    calledOut = true
                case .accepted(var newFd, let peer):
                    withUnsafePointer(to: &newFd) { call(Self.acceptType, address: peer, data: UnsafeRawPointer($0)) }
                    acceptedOwned = callout != nil
                    calledOut = true
                case .data(let bytes, let address, let eof):
                    if let data = Data.make(copying: bytes, count: bytes.count) {
                        call(Self.dataType, address: address ?? [], data: UnsafeRawPointer(data.opaque))
                        data.releaseRef()
                    } else {
                        reportError("RLSocket", .resources, "handle table full: data of socket \(fd) dropped")
                    }
                    calledOut = true
                    invalidateAfter = eof
                }
            }
            if callBackTypes & Self.writeType != 0 && writeFired && errorCode == 0 && (!calledOut || isValid) {
                call(Self.writeType, address: nil, data: nil)
            }
        }, release: { releaseInfo?() })
        // Nobody took the accepted connection (no callout, or the socket
        // was invalidated before it): close it rather than leak it.
        if case .accepted(let newFd, _) = read, !acceptedOwned { close(newFd) }
        if invalidateAfter { invalidate() }

        // Re-arm what fired, as the flags say (a spurious read stays armed).
        var again: UInt = 0
        switch read {
        case .nothing, .exhausted: if readFired { again |= readKind }  // nothing was delivered
        default: if readFired { again |= readKind & flags }
        }
        if writeFired { again |= Self.writeType & flags }
        if again != 0 { state.withLock { enableLocked(&$0, again, force: false) } }
    }

    private func call(_ type: UInt, address: [UInt8]?, data: UnsafeRawPointer?) {
        guard let callout else { return }
        var addressData: Data?
        if let address {
            addressData = Data.make(copying: address, count: address.count)
        }
        callout(self, type, addressData, data)
        addressData?.releaseRef()
    }

    /// Does the read side's system call for a fired read direction.
    private func readSide(_ fd: Int32) -> ReadResult {
        switch readKind {
        case Self.readType:
            return .readable
        case Self.acceptType:
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let newFd = withUnsafeMutableBytes(of: &storage) {
                accept(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
            }
            guard newFd >= 0 else {
                // Out of descriptors: the connection stays pending, and
                // accepting pauses.  Else it was gone meanwhile.
                let error = errno
                return AcceptBackoff.isShortage(error) ? .exhausted(error) : .nothing
            }
            state.withLock { $0.backoff?.accepted() }
            return .accepted(newFd, Self.bytes(of: &storage, Int(length)))
        case Self.dataType:
            let capacity = connectionOriented ? Self.streamChunk : Self.datagramChunk
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            var received = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                received = withUnsafeMutableBytes(of: &storage) {
                    recvfrom(fd, buffer.baseAddress, capacity, Int32(MSG_DONTWAIT),
                             $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
                }
                count = max(received, 0)
            }
            if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return .nothing }
            // The end of the stream (0 on a connection) or a failed read (a
            // reset): zero-length data, and the socket is invalidated after
            // the callout.  An empty datagram is data like any other.
            let ended = received < 0 || (received == 0 && zeroReadEnds)
            var address: [UInt8]?
            if length > 0 && !ended {
                address = Self.bytes(of: &storage, Int(length))
            } else if connectionOriented {
                address = peerAddress(fd)
            }
            return .data(bytes, address, eof: ended)
        default:
            return .nothing
        }
    }

    private static func bytes(of storage: inout sockaddr_storage, _ length: Int) -> [UInt8] {
        withUnsafeBytes(of: &storage) { Array($0.prefix(min(length, MemoryLayout<sockaddr_storage>.size))) }
    }

    /// The peer's address, cached once known.
    private func peerAddress(_ fd: Int32) -> [UInt8]? {
        if let known = state.withLock({ $0.peer }) { return known }
        guard let address = Self.address(fd, getpeername) else { return nil }
        state.withLock { $0.peer = address }
        return address
    }

    /// getsockname / getpeername as bytes; nil when it fails.
    static func address(_ fd: Int32,
                        _ query: (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?) -> Int32)
        -> [UInt8]? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutableBytes(of: &storage) {
            query(fd, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        guard rc == 0 else { return nil }
        return bytes(of: &storage, Int(length))
    }

    package func localAddress() -> [UInt8]? {
        let fd = self.fd
        return fd < 0 ? nil : Self.address(fd, getsockname)
    }

    package func remoteAddress() -> [UInt8]? {
        let fd = self.fd
        return fd < 0 ? nil : Self.address(fd, getpeername)
    }

    // MARK: invalidation

    /// Invalidates the source, closes the descriptor if the flags say so,
    /// releases info.  Idempotent.
    package func invalidate() {
        guard valid.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let (source, fd, flags) = state.withLock { s -> (Source?, Int32, UInt) in
            defer {
                if s.listenerEvents != 0 { _ = rl_epoll_del(s.acceptSet, s.fd) }
                s.listenerEvents = 0
                s.source = nil
                s.fd = -1
                s.armRead = false
                s.armWrite = false
            }
            return (s.source, s.fd, s.flags)
        }
        Self.byDescriptor.withLock { table in
            if table[fd] === self { table[fd] = nil }
        }
        // Leaves every loop: the descriptor is no longer watched.  As CF
        // does, the loops that held it wake, so one asleep in a mode that is
        // now empty returns.
        let loops = source?.holdingLoops ?? []
        source?.invalidate()
        for loop in loops { loop.wakeUp() }
        if flags & Self.closeOnInvalidate != 0 { closeIfStillOurs(fd) }
        gate.askRelease { releaseInfo?() }
    }

    /// Closes `fd` unless the number no longer names the socket's file
    /// (closed behind our back, maybe reused): then reports instead.
    private func closeIfStillOurs(_ fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            reportError("RLSocketInvalidate", .invalidArgument,
                        "descriptor \(fd) was closed while its socket was valid; not closed again")
            return
        }
        guard UInt(st.st_dev) == identity.device && UInt(st.st_ino) == identity.inode else {
            reportError("RLSocketInvalidate", .invalidArgument,
                        "descriptor \(fd) now names another file (closed and reused while its socket was valid); not closed")
            return
        }
        Glibc.close(fd)
    }

    override package func finalize() { invalidate() }
}
