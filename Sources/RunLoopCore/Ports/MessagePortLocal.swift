import CRunLoop
import CRunLoopShims
import Glibc

/// A local message port: a listening socket (when named) and its accepted
/// connections, gathered in a ListenerSet whose descriptor is the one
/// thing the port's version-1 run-loop source watches.  When that set is
/// readable, the loop's thread accepts, reads, and calls the callout for
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
///
/// The connections' reading and writing: MessagePortLocalIO.swift; the
/// callouts: MessagePortLocalServe.swift; a send to the port itself:
/// MessagePortLocalSend.swift.
package final class LocalPort: MessagePort, @unchecked Sendable {
    struct IO {
        var closed = false
        var listener: PortWire.Listener?
        var connections: [UInt64: Connection] = [:]
        var nextID: UInt64 = ListenerSet.listenerToken + 1
        /// Connections with frames to deliver and no thread on them, in
        /// the order they became so (round robin between peers).
        var ready: [UInt64] = []
        /// An error to report once the lock is released (the error
        /// handler is user code).
        var report: String?
    }

    /// Called by the loops serving the port and by sends to the port
    /// itself.
    let callout: RLMessagePortCallBack
    /// The context, its info retained once.
    package let context: RLMessagePortContext
    /// Orders the callouts before the release of the info (CalloutGate).
    let gate = CalloutGate()
    /// The listener and the connections (tokens: their ids); touched under
    /// `io`'s lock.  Closed with the port, after every loop let go of the
    /// source watching it.
    let set: ListenerSet
    let io: Guarded<IO>
    private let cachedSource = Guarded<Source?>(nil)

    private init(name: [UInt8]?, listener: PortWire.Listener?, set: ListenerSet,
                 callout: @escaping RLMessagePortCallBack, context: RLMessagePortContext) {
        self.callout = callout
        self.context = context
        self.set = set
        io = Guarded(IO(listener: listener))
        super.init(name: name)
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
                             context: RLMessagePortContext) -> Result<Made, PortWire.ListenError> {
        // The descriptors first: between binding the name and listing the
        // port, other threads of this process asking for the name are
        // refused (ports.h), so that stretch is kept short.
        guard let set = ListenerSet() else { return .failure(.system(errno)) }
        var listener: PortWire.Listener?
        if let name {
            switch LocalPortNames.claim(name) {
            case .success(.bound(let bound)): listener = bound
            case .success(.existing(let port)): return .success(.existing(port))
            case .failure(let failure): return .failure(failure)
            }
        }
        if let listener { set.watch(listener.fd, EPOLLIN.rawValue) }
        var ctx = context
        if let retain = ctx.retain { ctx.info = UnsafeMutableRawPointer(mutating: retain(ctx.info)) }
        let port = LocalPort(name: name, listener: listener, set: set, callout: callout, context: ctx)
        guard HandleTable.shared.register(port) else {
            port.invalidate()
            return .failure(.system(ENOMEM))
        }
        // Nobody else has the handle yet: listed before anyone can
        // invalidate it.
        if let name { LocalPortNames.enter(name, port) }
        return .success(.created(port))
    }

    deinit { io.withLock { closeAllLocked(&$0) } }

    package override var info: UnsafeMutableRawPointer? { context.info }

    // MARK: naming

    /// Claims `newName`, then frees the old name.  False if the port is
    /// invalid; a failure if the name cannot be had (also when another
    /// port of this process has it).
    package func rename(_ newName: [UInt8]) -> Result<Bool, PortWire.ListenError> {
        guard isValid else { return .success(false) }
        if nameBytes == newName { return .success(true) }
        return LocalPortNames.rename(self) { PortWire.listen(newName).map { swap(to: $0, named: newName) } }
    }

    /// Serves `fresh` instead of the old listener (LocalPortNames' lock
    /// held); false, with `fresh` closed, if the port was invalidated
    /// meanwhile.  A pause of accepting ends with the old listener.
    private func swap(to fresh: PortWire.Listener, named newName: [UInt8]) -> Bool {
        let swapped = io.withLock { io -> Bool in
            guard !io.closed else { return false }
            set.watch(-1, 0)
            if let old = io.listener { PortWire.unlisten(old) }
            io.listener = fresh
            set.resume()
            set.watch(fresh.fd, EPOLLIN.rawValue)
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
                ready: { [weak self] _ in self?.serve(); return true })
            let source = Source(order: order, callbacks: callbacks, descriptor: set.fd, interest: EPOLLIN.rawValue)
            guard HandleTable.shared.register(source) else { return nil }
            cached = source
            return source
        }
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
