import CRunLoop
import CRunLoopShims
import Glibc

/// A local port's callouts, on a loop's thread: the connections with
/// frames to deliver are claimed in turn, and each request's reply is
/// queued on its connection.
extension LocalPort {
    /// Connections a pass calls out for, and callouts per pass (shared by
    /// those connections in turn); the rest waits for the next pass (the
    /// set is made readable so one comes).  A connection that had its turn
    /// goes to the back of the queue.
    static let connectionsPerPass = 64
    static let calloutsPerPass = 1024

    /// Accepts, reads and answers what is ready now, within the per-pass
    /// bounds.
    func serve() {
        var claimed: [UInt64] = []
        let report = io.withLock { io -> String? in
            guard !io.closed else { return nil }
            collectLocked(&io)
            claimLocked(&io, into: &claimed)
            defer { io.report = nil }
            return io.report
        }
        if let report { reportError("RLMessagePort (accepting)", .resources, report) }
        var budget = Self.calloutsPerPass
        var next = 0
        var invalidated = false
        while next < claimed.count && budget > 0 && !invalidated {
            // deliver lets go of the connection either way.
            if let used = deliver(claimed[next], atMost: budget) { budget -= used } else { invalidated = true }
            next += 1
        }
        io.withLock { io in
            for id in claimed[next...] { releaseLocked(&io, id) }  // no turn this pass
            if !io.closed && !io.ready.isEmpty { set.requestPass() }
        }
    }

    /// Takes connections from the ready queue, marking them busy.
    private func claimLocked(_ io: inout IO, into claimed: inout [UInt64]) {
        var taken = 0
        while taken < io.ready.count && claimed.count < Self.connectionsPerPass {
            let id = io.ready[taken]
            taken += 1
            guard let connection = io.connections[id] else { continue }
            connection.queued = false
            if connection.hasPending && !connection.busy {
                connection.busy = true
                claimed.append(id)
            }
        }
        io.ready.removeFirst(taken)
    }

    /// Calls out for the frames of one claimed connection, in order, at
    /// most `limit` of them; then lets go of it.  The number of callouts,
    /// nil if the port was invalidated.
    private func deliver(_ id: UInt64, atMost limit: Int) -> Int? {
        var answered: (frame: PortWire.Frame, reply: [UInt8])? = nil
        var delivered = 0
        while true {
            // One lock for the previous reply and the next frame.
            let next = io.withLock { io -> PortWire.Frame? in
                guard !io.closed, let connection = io.connections[id] else { return nil }
                if let (frame, reply) = answered {
                    if frame.kind == .request && connection.fd >= 0 {
                        connection.output += reply
                        flushLocked(&io, id)
                    } else if connection.interest & EPOLLIN.rawValue == 0 {
                        updateInterestLocked(&io, id)  // less backlog: maybe read again
                    }
                }
                guard delivered < limit, connection.hasPending else {
                    releaseLocked(&io, id)
                    return nil
                }
                let frame = connection.pending[connection.head]
                connection.pending[connection.head].payload = nil  // not kept until compaction
                connection.head += 1
                connection.pendingBytes -= Self.cost(frame)
                // Compacted when drained, or when mostly delivered frames.
                if connection.head == connection.pending.count
                    || (connection.head >= 1024 && connection.head * 2 >= connection.pending.count) {
                    connection.pending.removeFirst(connection.head)
                    connection.head = 0
                }
                return frame
            }
            guard let frame = next else { return delivered }
            delivered += 1
            // Invalidated (or being invalidated by another thread): no
            // callout; one in flight releases the info when it returns.
            guard isValid, let reply = gate.callOut({ answer(frame) }, release: { releaseInfo() }) else {
                io.withLock { releaseLocked(&$0, id) }
                return nil
            }
            answered = (frame, reply)
        }
    }

    /// Lets go of a claimed connection: back in the ready queue if frames
    /// are left, gone if its socket is closed and nothing is left.
    private func releaseLocked(_ io: inout IO, _ id: UInt64) {
        guard let connection = io.connections[id] else { return }
        connection.busy = false
        if connection.hasPending {
            enqueueLocked(&io, id)
        } else if connection.fd < 0 {
            io.connections[id] = nil
        }
    }

    func enqueueLocked(_ io: inout IO, _ id: UInt64) {
        guard let connection = io.connections[id], !connection.queued, !connection.busy, connection.hasPending else { return }
        connection.queued = true
        io.ready.append(id)
    }

    /// What a frame counts for in a connection's backlog.
    static func cost(_ frame: PortWire.Frame) -> Int { PortWire.headerSize + (frame.payload?.count ?? 0) }

    /// Calls the callout for one request; returns the encoded reply.
    private func answer(_ frame: PortWire.Frame) -> [UInt8] {
        let data = frame.payload.flatMap { Data.make($0) }
        let reply = Self.adoptReply(callout(opaque, frame.msgid, data?.opaque, context.info))
        data?.releaseRef()
        defer { reply?.releaseRef() }  // the callout's reference, handed to us
        return PortWire.encode(.reply, msgid: frame.msgid, seq: frame.seq, payload: reply?.raw)
    }

    /// The data a callout returned, carrying the callout's reference (the
    /// caller releases it); nil for NULL, and for a handle that is not a
    /// live RLDataRef (reported: the reply is then NULL).
    static func adoptReply(_ returned: RLDataRef?) -> Data? {
        guard let returned else { return nil }
        switch HandleTable.shared.retain(UInt(bitPattern: returned), kind: .data) {
        case .success(let object):
            HandleTable.shared.release(object.handle, from: "RLMessagePortCallBack")  // ours; the callout's stays
            return unsafeDowncast(object, to: Data.self)
        case .failure(let failure):
            reportError("RLMessagePortCallBack", failure.code, "the reply is not an RLDataRef; replying NULL")
            return nil
        }
    }
}
