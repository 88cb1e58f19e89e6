import CRunLoopShims
import Glibc

/// An RLSocket's descriptor is ready: claim the armed directions that
/// fired, accept or read on the loop's thread, call out, re-arm.
extension Socket {
    /// What the read side found for its callout.
    private enum ReadResult {
        case nothing               // a spurious wake-up: stays armed
        case exhausted(Int32)      // no descriptor to accept with: pauses
        case readable              // the read type: the callout reads
        case accepted(Int32, [UInt8])
        case data([UInt8], [UInt8]?, eof: Bool)
    }

    /// On a loop's thread: the descriptor reported `events`.
    func handleReady(_ reported: UInt32) {
        guard isValid else { return }
        // An accepting socket's source watches its set: the listener's events.
        let events = readKind == Self.acceptType ? collectListener() : reported
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
            // The connection stays pending: accepting pauses (re-armed below).
            let report = state.withLock { $0.accepting?.pause(error, accepting: "socket \(fd)") }
            if let report { reportError("RLSocket (accepting)", .resources, report) }
        }

        var acceptedOwned = false  // the callout got the accepted descriptor
        var invalidateAfter = false
        _ = gate.callOut({
            var calledOut = false
            if callBackTypes & Self.connectType != 0 && connectSignalled {
                withUnsafePointer(to: errorCode) { call(Self.connectType, address: nil, data: errorCode != 0 ? $0 : nil) }
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
                    if let data = Data.make(bytes) {
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
        let addressData = address.flatMap(Data.make)
        callout(self, type, addressData, data)
        addressData?.releaseRef()
    }

    /// Does the read side's system call for a fired read direction.
    private func readSide(_ fd: Int32) -> ReadResult {
        switch readKind {
        case Self.readType:
            return .readable
        case Self.acceptType:
            let (newFd, peer) = SocketIO.withAddress { accept(fd, $0, $1) }
            guard newFd >= 0 else {
                // Out of descriptors: the connection stays pending, and
                // accepting pauses.  Else it was gone meanwhile.
                let error = errno
                return ListenerSet.isShortage(error) ? .exhausted(error) : .nothing
            }
            state.withLock { $0.accepting?.accepted() }
            return .accepted(newFd, peer)
        case Self.dataType:
            let capacity = connectionOriented ? Self.streamChunk : Self.datagramChunk
            var received = 0
            var sender: [UInt8] = []
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                (received, sender) = SocketIO.withAddress {
                    recvfrom(fd, buffer.baseAddress, capacity, Int32(MSG_DONTWAIT), $0, $1)
                }
                count = max(received, 0)
            }
            if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return .nothing }
            // The end of the stream (0 on a connection) or a failed read (a
            // reset): zero-length data, and the socket is invalidated after
            // the callout.  An empty datagram is data like any other.
            let ended = received < 0 || (received == 0 && zeroReadEnds)
            let address = !sender.isEmpty && !ended ? sender : connectionOriented ? peerAddress(fd) : nil
            return .data(bytes, address, eof: ended)
        default:
            return .nothing
        }
    }

    /// The peer's address, cached once known.
    private func peerAddress(_ fd: Int32) -> [UInt8]? {
        if let known = state.withLock({ $0.peer }) { return known }
        guard let address = SocketIO.address(fd, getpeername) else { return nil }
        state.withLock { $0.peer = address }
        return address
    }

    /// An accepting socket's set was reported readable: the listener's
    /// events (0: none), after ending a pause whose time is up.
    private func collectListener() -> UInt32 {
        state.withLock { s in
            var listener: UInt32 = 0
            s.accepting?.collect(batch: 2) { _, events in listener = events }
            return listener
        }
    }

    /// The socket's address (getsockname) or its peer's (getpeername); nil
    /// when invalid or when the call fails.
    package func address(_ query: SocketIO.AddressQuery) -> [UInt8]? {
        let fd = self.fd
        return fd < 0 ? nil : SocketIO.address(fd, query)
    }
}
