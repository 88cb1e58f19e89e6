import CRunLoopShims
import Glibc

/// A local port's connections, under `io`'s lock: accepting, reading
/// frames, writing replies without blocking, and watching each in the set
/// for what it needs.
extension LocalPort {
    /// A class, so the buffers are changed in place (a struct copied out
    /// of the dictionary and back would copy them on every change).  Only
    /// touched under `io`'s lock.
    final class Connection {
        /// -1 once the peer closed or broke the protocol: frames already
        /// read are still delivered (replies to them are dropped), then
        /// the entry goes.
        var fd: Int32
        var reader = PortWire.Reader()
        /// Frames read, not yet delivered (FIFO from `head`).
        var pending: [PortWire.Frame] = []
        var head = 0
        var pendingBytes = 0
        var output: [UInt8] = []
        var sent = 0
        /// The events the epoll set watches for it (0: not in the set).
        var interest: UInt32 = 0
        /// A thread is calling out for this connection.
        var busy = false
        /// In `IO.ready`.
        var queued = false

        init(fd: Int32) { self.fd = fd }

        var hasPending: Bool { head < pending.count }
        var backlog: Int { pendingBytes + output.count - sent }
    }

    /// A connection is not read while its backlog (frames read but not
    /// delivered, replies not yet written) is at least this.
    package static let connectionBacklogLimit = 1 << 20
    static let readEvents = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    /// At most this many connections are accepted (or refused) per call of
    /// `serve`: a connect/close flood, from whichever uid, cannot keep a
    /// loop's thread in the accept loop (the listener is level-triggered:
    /// the rest waits for the loop's next pass, after its timers).
    static let acceptsPerPass = 16
    /// At most this many bytes (about: reads are 64 KiB chunks) are read
    /// from one connection per pass, and from all of them.
    static let readPerConnection = 1 << 20
    static let readPerPass = 4 << 20

    /// Takes one batch of events from the set: new connections, readable
    /// requests, writable replies.  Whatever is left is still ready
    /// (level-triggered) and comes round on the next pass.  Lock held; no
    /// user code.
    func collectLocked(_ io: inout IO) {
        var readBudget = Self.readPerPass
        set.collect(batch: 64) { token, events in
            if token == ListenerSet.listenerToken {
                acceptLocked(&io)
            } else {
                handleLocked(&io, token, events, &readBudget)
            }
        }
    }

    /// Accepts while connections are pending, within the pass's bound.  No
    /// descriptor for one: accepting pauses, reported once per episode (by
    /// `serve`, after the lock).
    private func acceptLocked(_ io: inout IO) {
        var budget = Self.acceptsPerPass
        while budget > 0, let listener = io.listener, !set.isPaused {
            budget -= 1
            switch PortWire.accept(listener.fd) {
            case .exhausted(let error):
                if let report = set.pause(error, accepting: "\"\(name ?? "(unnamed)")\"") { io.report = report }
                return
            case .accepted(let fd):
                set.accepted()
                let id = io.nextID
                io.nextID += 1
                io.connections[id] = Connection(fd: fd)
                updateInterestLocked(&io, id)
            case .refused:
                continue
            case .none:
                return
            }
        }
    }

    /// Writes and reads what a connection is ready for; what is left to
    /// read (past its share, or `readBudget`) waits for the next pass.
    func handleLocked(_ io: inout IO, _ id: UInt64, _ events: UInt32, _ readBudget: inout Int) {
        guard io.connections[id] != nil else { return }
        if events & EPOLLOUT.rawValue != 0 { flushLocked(&io, id) }
        guard readBudget > 0, let connection = io.connections[id], connection.fd >= 0,
              connection.interest & EPOLLIN.rawValue != 0,
              events & (Self.readEvents | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 else { return }
        let (outcome, read) = PortWire.readAvailable(connection.fd, into: &connection.reader,
                                                     budget: min(Self.readPerConnection, readBudget))
        readBudget -= read
        var broken = false
        frames: while true {
            switch connection.reader.next() {
            case .success(let frame?):
                if frame.kind != .reply {
                    connection.pending.append(frame)
                    connection.pendingBytes += Self.cost(frame)
                }
            case .success(nil):
                break frames
            case .failure:
                broken = true  // not our protocol: drop the connection
                break frames
            }
        }
        enqueueLocked(&io, id)
        if broken || outcome == .endOfStream {
            closeSocketLocked(&io, id)
        } else {
            updateInterestLocked(&io, id)
        }
    }

    /// Watches a connection for what it needs now: input while its backlog
    /// is under the limit, output while replies wait.  With neither it
    /// leaves the epoll set (a closed peer would otherwise keep reporting
    /// EPOLLHUP).
    func updateInterestLocked(_ io: inout IO, _ id: UInt64) {
        guard let connection = io.connections[id], connection.fd >= 0 else { return }
        var wanted: UInt32 = 0
        if connection.backlog < Self.connectionBacklogLimit { wanted |= Self.readEvents }
        if connection.sent < connection.output.count { wanted |= EPOLLOUT.rawValue }
        guard wanted != connection.interest else { return }
        if wanted == 0 {
            _ = rl_epoll_del(set.fd, connection.fd)
        } else if connection.interest == 0 {
            _ = rl_epoll_add(set.fd, connection.fd, wanted, id)
        } else {
            _ = rl_epoll_mod(set.fd, connection.fd, wanted, id)
        }
        connection.interest = wanted
    }

    /// Writes a connection's pending output without blocking; watches for
    /// writability while some is left.
    func flushLocked(_ io: inout IO, _ id: UInt64) {
        guard let connection = io.connections[id], connection.fd >= 0 else { return }
        if connection.sent < connection.output.count {
            guard let n = PortWire.writeSome(connection.fd, connection.output[connection.sent...]) else {
                closeSocketLocked(&io, id)
                return
            }
            connection.sent += n
        }
        if connection.sent == connection.output.count {
            connection.output.removeAll(keepingCapacity: false)
            connection.sent = 0
        } else if connection.sent >= 1 << 16 && connection.sent * 2 >= connection.output.count {
            connection.output.removeFirst(connection.sent)  // a reader that keeps up slowly
            connection.sent = 0
        }
        updateInterestLocked(&io, id)
    }

    /// Closes a connection's socket (the peer is gone, or broke the
    /// protocol).  The entry stays while frames read before are delivered.
    func closeSocketLocked(_ io: inout IO, _ id: UInt64) {
        guard let connection = io.connections[id], connection.fd >= 0 else { return }
        if connection.interest != 0 { _ = rl_epoll_del(set.fd, connection.fd) }
        close(connection.fd)
        connection.fd = -1
        connection.interest = 0
        connection.output = []
        connection.sent = 0
        connection.reader = PortWire.Reader()
        if !connection.busy && !connection.hasPending { io.connections[id] = nil }
        if !io.closed { set.resume() }  // a descriptor is free again
    }

    func closeAllLocked(_ io: inout IO) {
        guard !io.closed else { return }
        io.closed = true
        set.watch(-1, 0)
        if let listener = io.listener { PortWire.unlisten(listener) }
        io.listener = nil
        for id in Array(io.connections.keys) { closeSocketLocked(&io, id) }
        io.connections.removeAll()
        io.ready.removeAll()
    }
}
