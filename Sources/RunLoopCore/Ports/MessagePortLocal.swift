import CRunLoop
import CRunLoopShims
import Glibc

/// A local message port: a listening socket (when named) and its accepted
/// connections, gathered in a private epoll set whose descriptor is the
/// one thing the port's version-1 run-loop source watches.  When that set
/// is readable, the loop's thread accepts, reads, and calls the callout for
/// each complete request, with no lock held; replies are queued on their
/// connection and written without blocking (the rest when writable).
package final class LocalPort: MessagePort, @unchecked Sendable {
    private struct Connection {
        let fd: Int32
        var reader = PortWire.Reader()
        var output: [UInt8] = []
        var sent = 0
        var watchingOutput = false
    }

    private struct IO {
        var closed = false
        var listenFD: Int32 = -1
        /// Whether the listener is in the epoll set (not while backing off).
        var listening = false
        /// Accepting stopped for lack of descriptors, until this monotonic
        /// time or until a connection closes (0: accepting).
        var backoffUntil: UInt64 = 0
        var connections: [UInt64: Connection] = [:]
        var nextID: UInt64 = 1
    }

    private static let listenToken: UInt64 = 0
    private static let timerToken: UInt64 = .max
    /// How long accepting pauses when the process has no free descriptor.
    static let acceptBackoff: UInt64 = 100_000_000
    private static let readEvents = EPOLLIN.rawValue | EPOLLRDHUP.rawValue

    private let callout: RLMessagePortCallBack
    /// The context, its info retained once.
    package let context: RLMessagePortContext
    /// Orders the callouts before the release of the info (CalloutGate).
    private let gate = CalloutGate()
    /// The private epoll set; closed in deinit, after every loop let go of
    /// the source watching it.
    private let epollFD: Int32
    /// A timerfd in the epoll set: ends an accept back-off.
    private let timerFD: Int32
    private let io = Guarded(IO())
    private let cachedSource = Guarded<Source?>(nil)

    private init(name: [UInt8]?, listenFD: Int32, epollFD: Int32, timerFD: Int32,
                 callout: @escaping RLMessagePortCallBack, context: RLMessagePortContext) {
        self.callout = callout
        self.context = context
        self.epollFD = epollFD
        self.timerFD = timerFD
        super.init(name: name)
        io.withLock { io in
            io.listenFD = listenFD
            io.listening = listenFD >= 0
        }
    }

    package enum CreateError: Error { case nameTaken, system(Int32) }

    /// A named (or unnamed) local port with its handle; the context's info
    /// is retained only on success.
    package static func make(name: [UInt8]?, callout: @escaping RLMessagePortCallBack,
                             context: RLMessagePortContext) -> Result<LocalPort, CreateError> {
        var listenFD: Int32 = -1
        if let name {
            switch PortWire.listen(name) {
            case .success(let fd): listenFD = fd
            case .failure(.nameTaken): return .failure(.nameTaken)
            case .failure(.system(let error)): return .failure(.system(error))
            }
        }
        let ep = rl_epoll_create()
        let timer = ep >= 0 ? rl_timerfd() : -1
        guard ep >= 0, timer >= 0 else {
            let error = errno
            if listenFD >= 0 { close(listenFD) }
            if ep >= 0 { close(ep) }
            return .failure(.system(error))
        }
        if listenFD >= 0 { _ = rl_epoll_add(ep, listenFD, EPOLLIN.rawValue, listenToken) }
        _ = rl_epoll_add(ep, timer, EPOLLIN.rawValue, timerToken)
        var ctx = context
        if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
        let port = LocalPort(name: name, listenFD: listenFD, epollFD: ep, timerFD: timer, callout: callout, context: ctx)
        guard HandleTable.shared.register(port) else {
            port.invalidate()
            return .failure(.system(ENOMEM))
        }
        return .success(port)
    }

    deinit {
        io.withLock { closeAllLocked(&$0) }
        close(timerFD)
        close(epollFD)
    }

    package override var info: UnsafeMutableRawPointer? { context.info }

    // MARK: naming

    /// Claims `newName`, then frees the old name.  False if taken or the
    /// port is invalid.
    package func rename(_ newName: [UInt8]) -> Bool {
        guard isValid else { return false }
        if nameBytes == newName { return true }
        guard case .success(let fd) = PortWire.listen(newName) else { return false }
        let swapped = io.withLock { io -> Bool in
            guard !io.closed else { return false }
            if io.listenFD >= 0 {
                if io.listening { _ = rl_epoll_del(epollFD, io.listenFD) }
                close(io.listenFD)
            }
            io.listenFD = fd
            io.listening = false
            io.backoffUntil = 0
            listenLocked(&io)
            return true
        }
        guard swapped else {
            close(fd)
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

    /// Accepts, reads and answers everything ready now.
    private func serve() {
        var requests: [(UInt64, PortWire.Frame)] = []
        io.withLock { io in
            guard !io.closed else { return }
            collectLocked(&io, into: &requests)
        }
        for (id, frame) in requests {
            // Invalidated (or being invalidated by another thread): no
            // callout; one in flight releases the info when it returns.
            guard isValid, let reply = gate.callOut({ answer(frame) }, release: releaseInfo) else { return }
            guard frame.kind == .request else { continue }
            io.withLock { io in
                guard !io.closed, io.connections[id] != nil else { return }
                io.connections[id]!.output += reply
                flushLocked(&io, id)
            }
        }
    }

    /// Calls the callout for one request; returns the encoded reply.
    private func answer(_ frame: PortWire.Frame) -> [UInt8] {
        let data = frame.payload.flatMap { payload in
            payload.withUnsafeBytes { Data.make(copying: $0.baseAddress, count: $0.count) }
        }
        let replyHandle = callout(opaque, frame.msgid, data?.opaque, context.info)
        data?.releaseRef()
        guard let replyHandle else { return PortWire.encode(.reply, msgid: frame.msgid, seq: frame.seq, payload: nil) }
        // The callout hands us its reference: read the bytes, release it.
        switch HandleTable.shared.retain(UInt(bitPattern: replyHandle), kind: .data) {
        case .success(let object):
            let reply = PortWire.encode(.reply, msgid: frame.msgid, seq: frame.seq, payload: unsafeDowncast(object, to: Data.self).raw)
            HandleTable.shared.release(object.handle, from: "RLMessagePortCallBack")  // our pin
            HandleTable.shared.release(object.handle, from: "RLMessagePortCallBack")  // the callout's reference
            return reply
        case .failure(let failure):
            reportError("RLMessagePortCallBack", failure.code, "the reply is not an RLDataRef; replying NULL")
            return PortWire.encode(.reply, msgid: frame.msgid, seq: frame.seq, payload: nil)
        }
    }

    /// At most this many connections are accepted (or refused) per call of
    /// `serve`: a connect/close flood, from whichever uid, cannot keep a
    /// loop's thread in the accept loop (the listener is level-triggered:
    /// the rest waits for the loop's next pass, after its timers).
    static let acceptsPerPass = 16
    /// At most this many bytes are read from one connection per pass.
    static let readPerPass = 1 << 20

    /// Takes one batch of events from the private epoll set: new
    /// connections, readable requests, writable replies.  Whatever is left
    /// is still ready (level-triggered) and comes round on the next pass.
    /// Lock held; no user code.
    private func collectLocked(_ io: inout IO, into requests: inout [(UInt64, PortWire.Frame)]) {
        let batch = 64
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: batch) { tokens in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: batch) { events in
                let n = Int(rl_epoll_wait(epollFD, tokens.baseAddress!, events.baseAddress!, Int32(batch), 0))
                for i in 0..<max(n, 0) {
                    if tokens[i] == Self.listenToken {
                        acceptLocked(&io)
                    } else if tokens[i] == Self.timerToken {
                        rl_drain_counter(timerFD)
                        if io.backoffUntil != 0 && rl_monotonic_ns() >= io.backoffUntil { listenLocked(&io) }
                    } else {
                        handleLocked(&io, tokens[i], events[i], &requests)
                    }
                }
            }
        }
    }

    /// Watches the listener again (after a back-off, or a new one).
    private func listenLocked(_ io: inout IO) {
        io.backoffUntil = 0
        guard io.listenFD >= 0, !io.listening else { return }
        io.listening = rl_epoll_add(epollFD, io.listenFD, EPOLLIN.rawValue, Self.listenToken) == 0
    }

    /// No descriptor for a pending connection: stop watching the listener
    /// (it would stay readable and spin the loop) until a connection of
    /// this port closes or `acceptBackoff` has passed.  Reported once per
    /// episode.
    private func backOffLocked(_ io: inout IO, _ error: Int32) {
        if io.listening {
            _ = rl_epoll_del(epollFD, io.listenFD)
            io.listening = false
        }
        let first = io.backoffUntil == 0
        io.backoffUntil = rl_monotonic_ns() + Self.acceptBackoff
        _ = rl_timerfd_arm(timerFD, io.backoffUntil)
        if first {
            reportError("RLMessagePort (accepting)", .resources,
                        "cannot accept a connection to \"\(nameForDisplay)\": \(String(cString: strerror(error))); "
                        + "retrying when a connection closes or in \(Self.acceptBackoff / 1_000_000) ms")
        }
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
                let id = io.nextID
                io.nextID += 1
                io.connections[id] = Connection(fd: fd)
                _ = rl_epoll_add(epollFD, fd, Self.readEvents, id)
            case .refused:
                continue
            case .none:
                return
            }
        }
    }

    private func handleLocked(_ io: inout IO, _ id: UInt64, _ events: UInt32, _ requests: inout [(UInt64, PortWire.Frame)]) {
        guard var connection = io.connections[id] else { return }
        if events & EPOLLOUT.rawValue != 0 {
            io.connections[id] = connection
            flushLocked(&io, id)
            guard let current = io.connections[id] else { return }
            connection = current
        }
        guard events & (Self.readEvents | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 else { return }
        let outcome = PortWire.readAvailable(connection.fd, into: &connection.reader, atMost: Self.readPerPass)
        var broken = false
        frames: while true {
            switch connection.reader.next() {
            case .success(let frame?):
                if frame.kind != .reply { requests.append((id, frame)) }
            case .success(nil):
                break frames
            case .failure:
                broken = true  // not our protocol: drop the connection
                break frames
            }
        }
        io.connections[id] = connection
        if broken || outcome == .endOfStream { dropLocked(&io, id) }
    }

    /// Writes a connection's pending output without blocking; watches for
    /// writability while some is left.
    private func flushLocked(_ io: inout IO, _ id: UInt64) {
        guard var connection = io.connections[id] else { return }
        if connection.sent < connection.output.count {
            guard let n = PortWire.writeSome(connection.fd, connection.output[connection.sent...]) else {
                dropLocked(&io, id)
                return
            }
            connection.sent += n
        }
        if connection.sent == connection.output.count {
            connection.output.removeAll(keepingCapacity: false)
            connection.sent = 0
        }
        let wantOutput = !connection.output.isEmpty
        if wantOutput != connection.watchingOutput {
            connection.watchingOutput = wantOutput
            _ = rl_epoll_mod(epollFD, connection.fd, Self.readEvents | (wantOutput ? EPOLLOUT.rawValue : 0), id)
        }
        io.connections[id] = connection
    }

    private func dropLocked(_ io: inout IO, _ id: UInt64) {
        guard let connection = io.connections.removeValue(forKey: id) else { return }
        _ = rl_epoll_del(epollFD, connection.fd)
        close(connection.fd)
        if io.backoffUntil != 0 && !io.closed { listenLocked(&io) }  // a descriptor is free again
    }

    private func closeAllLocked(_ io: inout IO) {
        guard !io.closed else { return }
        io.closed = true
        if io.listenFD >= 0 {
            if io.listening { _ = rl_epoll_del(epollFD, io.listenFD) }
            close(io.listenFD)
            io.listenFD = -1
            io.listening = false
        }
        for id in Array(io.connections.keys) { dropLocked(&io, id) }
    }

    // MARK: invalidation

    /// Frees the name and closes the connections (remotes see the end of
    /// their stream), then takes the source out of every loop.
    override func closeTransport() {
        io.withLock { closeAllLocked(&$0) }
        let source = cachedSource.withLock { cached -> Source? in
            defer { cached = nil }
            return cached
        }
        source?.invalidate()
    }

    override func didInvalidate() {
        gate.askRelease(releaseInfo)
    }

    private func releaseInfo() {
        if let release = context.release { release(context.info) }
    }
}
