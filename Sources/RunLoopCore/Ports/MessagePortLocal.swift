import CRunLoop
import CRunLoopShims
import Glibc

/// A local message port: a listening socket (when named) and its accepted
/// connections, gathered in a private epoll set whose descriptor is the
/// one thing the port's version-1 run-loop source watches.  When that set
/// is readable, the loop's thread accepts, reads, and calls the callout for
/// each complete request, with no lock held; replies are queued on their
/// connection and written without blocking (the rest when writable).
///
/// Work per pass is bounded (accepts, bytes read per connection, callouts),
/// whatever peers do; the rest waits for the next pass.  The frames of one
/// connection are delivered by one thread at a time, in the order they
/// came, whichever loops hold the source: a connection is claimed (`busy`)
/// by the thread calling out for it.  A connection whose backlog (frames
/// not yet delivered plus replies not yet written) reaches
/// `connectionBacklogLimit` is not read until it drains: a peer that does
/// not read its replies stops being served, not the server's memory.
package final class LocalPort: MessagePort, @unchecked Sendable {
    /// A class, so the buffers are changed in place (a struct copied out
    /// of the dictionary and back would copy them on every change).  Only
    /// touched under `io`'s lock.
    private final class Connection {
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

    private struct IO {
        var closed = false
        var listenFD: Int32 = -1
        var listener: PortWire.Listener?
        /// Whether the listener is in the epoll set (not while backing off).
        var listening = false
        /// Accepting paused for lack of descriptors: until its timer fires
        /// or a connection of this port closes.
        var backoff: AcceptBackoff
        var connections: [UInt64: Connection] = [:]
        var nextID: UInt64 = 1
        /// Connections with frames to deliver and no thread on them, in
        /// the order they became so (round robin between peers).
        var ready: [UInt64] = []
        /// An error to report once the lock is released (the error
        /// handler is user code).
        var report: String?
    }

    private static let listenToken: UInt64 = 0
    private static let timerToken: UInt64 = .max
    private static let readEvents = EPOLLIN.rawValue | EPOLLRDHUP.rawValue

    /// Called by the loops serving the port and by sends to the port
    /// itself (MessagePortLocalSend.swift).
    let callout: RLMessagePortCallBack
    /// The context, its info retained once.
    package let context: RLMessagePortContext
    /// Orders the callouts before the release of the info (CalloutGate).
    let gate = CalloutGate()
    /// The private epoll set; closed in deinit, after every loop let go of
    /// the source watching it.
    private let epollFD: Int32
    /// The back-off's timerfd, in the epoll set: ends an accept back-off,
    /// or (armed to fire at once) asks for another pass when frames are
    /// left over.
    private let timerFD: Int32
    private let io: Guarded<IO>
    private let cachedSource = Guarded<Source?>(nil)

    private init(name: [UInt8]?, listener: PortWire.Listener?, epollFD: Int32, backoff: AcceptBackoff,
                 callout: @escaping RLMessagePortCallBack, context: RLMessagePortContext) {
        self.callout = callout
        self.context = context
        self.epollFD = epollFD
        timerFD = backoff.timerFD
        io = Guarded(IO(listenFD: listener?.fd ?? -1, listener: listener, listening: listener != nil, backoff: backoff))
        super.init(name: name)
    }

    package enum CreateError: Error { case nameTaken, squatted(owner: uid_t, path: String), system(Int32) }

    private static func createError(_ failure: PortWire.ListenError) -> CreateError {
        switch failure {
        case .nameTaken: return .nameTaken
        case .squatted(let owner, let path): return .squatted(owner: owner, path: path)
        case .system(let error): return .system(error)
        }
    }

    package enum Made {
        /// A new port; its context's info was retained.
        case created(LocalPort)
        /// The valid port of this process that already had the name (with
        /// a reference for the caller); the context given was not used.
        case existing(LocalPort)
    }

    /// A named (or unnamed) local port with its handle, or the port of
    /// this process already named so (LocalPortNames); the context's info
    /// is retained only for a new port.
    package static func make(name: [UInt8]?, callout: @escaping RLMessagePortCallBack,
                             context: RLMessagePortContext) -> Result<Made, CreateError> {
        // The descriptors first: between binding the name and listing the
        // port, other threads of this process asking for the name are
        // refused (ports.h), so that stretch is kept short.
        let ep = rl_epoll_create()
        let backoff = ep >= 0 ? AcceptBackoff() : nil
        guard ep >= 0, let backoff else {
            let error = errno
            if ep >= 0 { close(ep) }
            return .failure(.system(error))
        }
        var listener: PortWire.Listener?
        if let name {
            switch LocalPortNames.claim(name) {
            case .success(.bound(let bound)):
                listener = bound
            case .success(.existing(let port)):
                close(backoff.timerFD)
                close(ep)
                return .success(.existing(port))
            case .failure(let failure):
                close(backoff.timerFD)
                close(ep)
                return .failure(createError(failure))
            }
        }
        if let listener { _ = rl_epoll_add(ep, listener.fd, EPOLLIN.rawValue, listenToken) }
        _ = rl_epoll_add(ep, backoff.timerFD, EPOLLIN.rawValue, timerToken)
        var ctx = context
        if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
        let port = LocalPort(name: name, listener: listener, epollFD: ep, backoff: backoff, callout: callout, context: ctx)
        guard HandleTable.shared.register(port) else {
            port.invalidate()
            return .failure(.system(ENOMEM))
        }
        // Nobody else has the handle yet: listed before anyone can
        // invalidate it.
        if let name { LocalPortNames.enter(name, port) }
        return .success(.created(port))
    }

    deinit {
        io.withLock { closeAllLocked(&$0) }
        close(timerFD)
        close(epollFD)
    }

    package override var info: UnsafeMutableRawPointer? { context.info }

    // MARK: naming

    /// Claims `newName`, then frees the old name.  False if the port is
    /// invalid; a failure if the name cannot be had (also when another
    /// port of this process has it).
    package func rename(_ newName: [UInt8]) -> Result<Bool, CreateError> {
        guard isValid else { return .success(false) }
        if nameBytes == newName { return .success(true) }
        return LocalPortNames.rename(self) { () -> Result<Bool, PortWire.ListenError> in
            PortWire.listen(newName).map { swap(to: $0, named: newName) }
        }.mapError(Self.createError)
    }

    /// Serves `fresh` instead of the old listener (LocalPortNames' lock
    /// held); false, with `fresh` closed, if the port was invalidated
    /// meanwhile.
    private func swap(to fresh: PortWire.Listener, named newName: [UInt8]) -> Bool {
        let swapped = io.withLock { io -> Bool in
            guard !io.closed else { return false }
            if let old = io.listener {
                if io.listening { _ = rl_epoll_del(epollFD, old.fd) }
                PortWire.unlisten(old)
            }
            io.listener = fresh
            io.listenFD = fresh.fd
            io.listening = false
            listenLocked(&io)
            return true
        }
        guard swapped else {
            PortWire.unlisten(fresh)
            return false
        }
        recordName(newName)
        return true
    }

    // MARK: the run-loop source

    /// The port's source, created on first use and handed out again while
    /// its handle lives.  The result carries a reference for the caller.
    package func runLoopSource(order: Int) -> Source? {
        cachedSource.withLock { cached -> Source? in
            if let source = cached, source.isValid,
               case .success = HandleTable.shared.retain(UInt(source.handle), kind: .source) {
                return source
            }
            guard isValid else { return nil }
            let callbacks = SourceCallbacks(
                schedule: nil, cancel: nil, perform: {}, release: nil,
                describe: { [weak self] in self.map { "message port \($0.name ?? "(unnamed)")" } },
                ready: { [weak self] _ in self?.serve() })
            let source = Source(order: order, callbacks: callbacks,
                                descriptor: epollFD, interest: EPOLLIN.rawValue)
            guard HandleTable.shared.register(source) else { return nil }
            cached = source
            return source
        }
    }

    // MARK: serving requests (on a loop's thread)

    /// A connection is not read while its backlog (frames read but not
    /// delivered, replies not yet written) is at least this: 1 MiB.
    package static let connectionBacklogLimit = 1 << 20
    /// Connections a pass calls out for, and callouts per pass (shared by
    /// those connections in turn); the rest waits for the next pass (the
    /// timerfd is fired so one comes).  A connection that had its turn
    /// goes to the back of the queue.
    static let connectionsPerPass = 64
    static let calloutsPerPass = 1024

    /// Accepts, reads and answers what is ready now, within the per-pass
    /// bounds.
    private func serve() {
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
            if !io.closed && !io.ready.isEmpty { _ = rl_timerfd_arm(timerFD, 1) }  // another pass, soon
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
                if connection.head == connection.pending.count {
                    connection.pending.removeAll(keepingCapacity: true)
                    connection.head = 0
                } else if connection.head >= 1024 && connection.head * 2 >= connection.pending.count {
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

    private func enqueueLocked(_ io: inout IO, _ id: UInt64) {
        guard let connection = io.connections[id], !connection.queued, !connection.busy, connection.hasPending else { return }
        connection.queued = true
        io.ready.append(id)
    }

    /// What a frame counts for in a connection's backlog.
    private static func cost(_ frame: PortWire.Frame) -> Int { PortWire.headerSize + (frame.payload?.count ?? 0) }

    /// Calls the callout for one request; returns the encoded reply.
    private func answer(_ frame: PortWire.Frame) -> [UInt8] {
        let data = frame.payload.flatMap { payload in
            payload.withUnsafeBytes { Data.make(copying: $0.baseAddress, count: $0.count) }
        }
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

    /// At most this many connections are accepted (or refused) per call of
    /// `serve`: a connect/close flood, from whichever uid, cannot keep a
    /// loop's thread in the accept loop (the listener is level-triggered:
    /// the rest waits for the loop's next pass, after its timers).
    static let acceptsPerPass = 16
    /// At most this many bytes (about: reads are 64 KiB chunks) are read
    /// from one connection per pass, and from all of them.
    static let readPerConnection = 1 << 20
    static let readPerPass = 4 << 20

    /// Takes one batch of events from the private epoll set: new
    /// connections, readable requests, writable replies.  Whatever is left
    /// is still ready (level-triggered) and comes round on the next pass.
    /// Lock held; no user code.
    private func collectLocked(_ io: inout IO) {
        let batch = 64
        var readBudget = Self.readPerPass
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: batch) { tokens in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: batch) { events in
                let n = Int(rl_epoll_wait(epollFD, tokens.baseAddress!, events.baseAddress!, Int32(batch), 0))
                for i in 0..<max(n, 0) {
                    if tokens[i] == Self.listenToken {
                        acceptLocked(&io)
                    } else if tokens[i] == Self.timerToken {
                        if io.backoff.timerFired() { listenLocked(&io) }
                    } else {
                        handleLocked(&io, tokens[i], events[i], &readBudget)
                    }
                }
            }
        }
    }

    /// Watches the listener again (after a back-off, or a new one).
    private func listenLocked(_ io: inout IO) {
        io.backoff.resume()
        guard io.listenFD >= 0, !io.listening else { return }
        io.listening = rl_epoll_add(epollFD, io.listenFD, EPOLLIN.rawValue, Self.listenToken) == 0
    }

    /// No descriptor for a pending connection: stop watching the listener
    /// (it would stay readable and spin the loop) until a connection of
    /// this port closes or the back-off's timer fires.  Reported once per
    /// episode (by `serve`, after the lock).
    private func backOffLocked(_ io: inout IO, _ error: Int32) {
        if io.listening {
            _ = rl_epoll_del(epollFD, io.listenFD)
            io.listening = false
        }
        if let report = io.backoff.pause(error, accepting: "\"\(nameForDisplay)\"") { io.report = report }
    }

    private var nameForDisplay: String { name ?? "(unnamed)" }

    private func acceptLocked(_ io: inout IO) {
        var budget = Self.acceptsPerPass
        while budget > 0, io.listenFD >= 0, io.listening {
            budget -= 1
            switch PortWire.accept(io.listenFD) {
            case .exhausted(let error):
                backOffLocked(&io, error)
                return
            case .accepted(let fd):
                io.backoff.accepted()
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
    private func handleLocked(_ io: inout IO, _ id: UInt64, _ events: UInt32, _ readBudget: inout Int) {
        guard io.connections[id] != nil else { return }
        if events & EPOLLOUT.rawValue != 0 { flushLocked(&io, id) }
        guard readBudget > 0, let connection = io.connections[id], connection.fd >= 0,
              connection.interest & EPOLLIN.rawValue != 0,
              events & (Self.readEvents | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 else { return }
        var share = min(Self.readPerConnection, readBudget)
        let before = share
        let outcome = PortWire.readAvailable(connection.fd, into: &connection.reader, budget: &share)
        readBudget -= before - share
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
    private func updateInterestLocked(_ io: inout IO, _ id: UInt64) {
        guard let connection = io.connections[id], connection.fd >= 0 else { return }
        var wanted: UInt32 = 0
        if connection.backlog < Self.connectionBacklogLimit { wanted |= Self.readEvents }
        if connection.sent < connection.output.count { wanted |= EPOLLOUT.rawValue }
        guard wanted != connection.interest else { return }
        if wanted == 0 {
            _ = rl_epoll_del(epollFD, connection.fd)
        } else if connection.interest == 0 {
            _ = rl_epoll_add(epollFD, connection.fd, wanted, id)
        } else {
            _ = rl_epoll_mod(epollFD, connection.fd, wanted, id)
        }
        connection.interest = wanted
    }

    /// Writes a connection's pending output without blocking; watches for
    /// writability while some is left.
    private func flushLocked(_ io: inout IO, _ id: UInt64) {
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
    private func closeSocketLocked(_ io: inout IO, _ id: UInt64) {
        guard let connection = io.connections[id], connection.fd >= 0 else { return }
        if connection.interest != 0 { _ = rl_epoll_del(epollFD, connection.fd) }
        close(connection.fd)
        connection.fd = -1
        connection.interest = 0
        connection.output = []
        connection.sent = 0
        connection.reader = PortWire.Reader()
        if !connection.busy && !connection.hasPending { io.connections[id] = nil }
        if io.backoff.isPaused && !io.closed { listenLocked(&io) }  // a descriptor is free again
    }

    private func closeAllLocked(_ io: inout IO) {
        guard !io.closed else { return }
        io.closed = true
        if let listener = io.listener {
            if io.listening { _ = rl_epoll_del(epollFD, listener.fd) }
            PortWire.unlisten(listener)
            io.listener = nil
            io.listenFD = -1
            io.listening = false
        }
        for id in Array(io.connections.keys) { closeSocketLocked(&io, id) }
        io.connections.removeAll()
        io.ready.removeAll()
    }

    // MARK: invalidation

    /// Frees the name (this process no longer lists it, and its socket
    /// file goes) and closes the connections (remotes see the end of their
    /// stream), then takes the source out of every loop.
    override func closeTransport() {
        LocalPortNames.leave(self) { io.withLock { closeAllLocked(&$0) } }
        let source = cachedSource.withLock { cached -> Source? in
            defer { cached = nil }
            return cached
        }
        source?.invalidate()
    }

    override func didInvalidate() {
        gate.askRelease { releaseInfo() }
    }

    func releaseInfo() {
        if let release = context.release { release(context.info) }
    }
}
