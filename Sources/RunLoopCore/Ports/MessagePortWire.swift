import CRunLoopShims
import Glibc

/// The transport of message ports: Unix-domain stream sockets in the
/// user's port directory (PortDirectory), and the frames that travel on
/// them.  Nothing here calls user code or takes a lock (but the
/// directory's lock file, around binding and removing a name).
///
/// A frame is a 20-byte header `magic, kind|flags, msgid, seq, length`
/// (native byte order: both ends run on this machine) and `length` bytes.
/// A request carries the sender's sequence number; its reply carries the
/// same one, so a reply that arrives after its sender gave up is known
/// for what it is and dropped.
package enum PortWire {
    package static let maxNameLength = 80
    package static let maxPayload = 64 << 20
    static let magic: UInt32 = 0x524C_4D50  // "RLMP"
    static let headerSize = 20

    package enum Kind: UInt32 {
        case request = 1  // wants a reply
        case oneWay = 2
        case reply = 3
    }
    /// Flag in the kind word: the payload is data (absent: NULL data).
    static let hasData: UInt32 = 0x100

    package struct Frame {
        package var kind: Kind
        package var msgid: Int32
        package var seq: UInt32
        /// nil: NULL data (as opposed to empty data).
        package var payload: [UInt8]?
    }

    package static func encode(_ kind: Kind, msgid: Int32, seq: UInt32, payload: UnsafeRawBufferPointer?) -> [UInt8] {
        let count = payload?.count ?? 0
        var bytes = [UInt8](repeating: 0, count: headerSize + count)
        bytes.withUnsafeMutableBytes { out in
            out.storeBytes(of: magic, toByteOffset: 0, as: UInt32.self)
            out.storeBytes(of: kind.rawValue | (payload != nil ? hasData : 0), toByteOffset: 4, as: UInt32.self)
            out.storeBytes(of: msgid, toByteOffset: 8, as: Int32.self)
            out.storeBytes(of: seq, toByteOffset: 12, as: UInt32.self)
            out.storeBytes(of: UInt32(count), toByteOffset: 16, as: UInt32.self)
            if let payload, count > 0 { out.baseAddress!.advanced(by: headerSize).copyMemory(from: payload.baseAddress!, byteCount: count) }
        }
        return bytes
    }

    /// Bytes read from a stream, cut into frames.
    package struct Reader {
        private var buffer: [UInt8] = []
        private var start = 0

        package init() {}

        package mutating func append(_ bytes: UnsafeRawBufferPointer) {
            if start > 0 && start >= buffer.count / 2 {
                buffer.removeFirst(start)
                start = 0
            }
            buffer.append(contentsOf: bytes)
        }

        /// The next complete frame; nil when more bytes are needed.
        /// Throws-free: a malformed header gives `.failure`.
        package mutating func next() -> Result<Frame?, Malformed> {
            guard buffer.count - start >= PortWire.headerSize else { return .success(nil) }
            let header = buffer.withUnsafeBytes { raw -> (UInt32, UInt32, Int32, UInt32, UInt32) in
                let h = UnsafeRawBufferPointer(rebasing: raw[start..<start + PortWire.headerSize])
                return (h.loadUnaligned(fromByteOffset: 0, as: UInt32.self), h.loadUnaligned(fromByteOffset: 4, as: UInt32.self),
                        h.loadUnaligned(fromByteOffset: 8, as: Int32.self), h.loadUnaligned(fromByteOffset: 12, as: UInt32.self),
                        h.loadUnaligned(fromByteOffset: 16, as: UInt32.self))
            }
            guard header.0 == PortWire.magic, let kind = Kind(rawValue: header.1 & ~PortWire.hasData),
                  header.1 & ~(PortWire.hasData | 0xFF) == 0, Int(header.4) <= PortWire.maxPayload else {
                return .failure(Malformed())
            }
            let length = Int(header.4)
            guard buffer.count - start >= PortWire.headerSize + length else { return .success(nil) }
            let body = start + PortWire.headerSize
            let payload: [UInt8]? = header.1 & PortWire.hasData != 0 ? Array(buffer[body..<body + length]) : nil
            start = body + length
            if start == buffer.count {
                buffer.removeAll(keepingCapacity: buffer.count <= 1 << 16)
                start = 0
            }
            return .success(Frame(kind: kind, msgid: header.2, seq: header.3, payload: payload))
        }
    }

    package struct Malformed: Error {}

    // MARK: names and sockets

    /// Whether `name` can name a port: 1...80 bytes, none of them NUL, in
    /// any encoding (names are compared and used as bytes).
    package static func isValidName(_ name: [UInt8]) -> Bool {
        name.count >= 1 && name.count <= maxNameLength && !name.contains(0)
    }

    private static func newSocket() -> Int32 {
        socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    }

    package enum ListenError: Error { case nameTaken, squatted(owner: uid_t, path: String), system(Int32) }

    /// A listening socket bound to a port name, and its socket file.
    package struct Listener {
        package let fd: Int32
        let path: String
        let identity: (dev_t, ino_t)?
    }

    private static func listenError(_ failure: PortDirectory.Failure) -> ListenError {
        switch failure {
        case .squatted(let owner, let path): return .squatted(owner: owner, path: path)
        case .missing: return .system(ENOENT)
        case .system(let error): return .system(error)
        }
    }

    /// A listening socket bound to the port name.  A socket file nobody
    /// listens on (its process died) is stale: it is removed and the name
    /// taken.
    package static func listen(_ name: [UInt8]) -> Result<Listener, ListenError> {
        if case .failure(let failure) = PortDirectory.check(create: true) { return .failure(listenError(failure)) }
        let fd = newSocket()
        guard fd >= 0 else { return .failure(.system(errno)) }
        let (addr, length, path) = PortDirectory.address(name)
        let bindOnce = { withSockaddr(addr) { bind(fd, $0, length) } == 0 ? 0 : errno }
        let outcome = PortDirectory.locked { () -> Result<Listener, ListenError> in
            var error = bindOnce()
            if error == EADDRINUSE {
                switch probe(addr, length) {
                case .listening(let owner):
                    return .failure(owner == getuid() ? .nameTaken : .squatted(owner: owner, path: path))
                case .stale:
                    unlink(path)
                    error = bindOnce()
                case .failed(let probeError):
                    return .failure(.system(probeError))
                }
            }
            if error != 0 { return .failure(error == EADDRINUSE ? .nameTaken : .system(error)) }
            guard Glibc.listen(fd, SOMAXCONN) == 0 else {
                let listenError = errno
                unlink(path)
                return .failure(.system(listenError))
            }
            let identity = PortDirectory.identity(path)
            PortDirectory.remember(path, identity)
            return .success(Listener(fd: fd, path: path, identity: identity))
        }
        let listener = outcome.mapError(listenError).flatMap { $0 }
        if case .failure = listener { close(fd) }
        return listener
    }

    private enum Probe { case listening(owner: uid_t), stale, failed(Int32) }

    /// Whether a process listens on the socket file at `addr`.
    private static func probe(_ addr: sockaddr_un, _ length: socklen_t) -> Probe {
        let fd = newSocket()
        guard fd >= 0 else { return .failed(errno) }
        defer { close(fd) }
        if withSockaddr(addr, { Glibc.connect(fd, $0, length) }) == 0 { return .listening(owner: peerUID(fd) ?? uid_t.max) }
        switch errno {
        case ECONNREFUSED, ENOENT: return .stale
        case EAGAIN: return .listening(owner: getuid())  // a full backlog: someone listens
        default: return .failed(errno)
        }
    }

    /// Closes a listener and removes its socket file, if that file is still
    /// the one it bound.
    package static func unlisten(_ listener: Listener) {
        let remove = {
            if let mine = listener.identity, let now = PortDirectory.identity(listener.path),
               mine.0 == now.0 && mine.1 == now.1 {
                unlink(listener.path)
            }
        }
        if case .failure = PortDirectory.locked(remove) { remove() }  // no lock (no descriptor): still ours
        PortDirectory.forget(listener.path)
        close(listener.fd)
    }

    package enum ConnectError: Error {
        case noSuchPort, foreignOwner, squatted(owner: uid_t, path: String)
        /// The listener's backlog stayed full until the deadline.
        case busy
        case system(Int32)
    }

    /// How long RLMessagePortCreateRemote waits for room in a port's
    /// backlog (a burst of connections, or a server that is slow to
    /// accept).
    package static let connectPatience: UInt64 = 1_000_000_000

    /// A connected, non-blocking socket to the port's listener, checked to
    /// belong to this user.  While the listener's backlog is full the
    /// connect waits, until `deadline` (monotonic ns) at most.
    package static func connect(_ name: [UInt8], until deadline: UInt64) -> Result<Int32, ConnectError> {
        switch PortDirectory.check(create: false) {
        case .success: break
        case .failure(.missing): return .failure(.noSuchPort)
        case .failure(.squatted(let owner, let path)): return .failure(.squatted(owner: owner, path: path))
        case .failure(.system(let error)): return .failure(.system(error))
        }
        // Blocking for the connect only: an AF_UNIX connect then waits for
        // room in the backlog, up to SO_SNDTIMEO (non-blocking, it fails
        // at once with EAGAIN).
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(.system(errno)) }
        let (addr, length, _) = PortDirectory.address(name)
        var error = EAGAIN  // also when the deadline passes
        var now = rl_monotonic_ns()
        while now < deadline {
            let remaining = min(deadline - now, 3600 * 1_000_000_000)
            var patience = timeval(tv_sec: Int(remaining / 1_000_000_000), tv_usec: Int(remaining % 1_000_000_000 / 1000) + 1)
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
            error = withSockaddr(addr, { Glibc.connect(fd, $0, length) }) == 0 ? 0 : errno
            if error != EINTR && error != EAGAIN { break }
            error = EAGAIN
            now = rl_monotonic_ns()
        }
        if error != 0 {
            close(fd)
            switch error {
            case ECONNREFUSED, ENOENT: return .failure(.noSuchPort)
            case EAGAIN, EINPROGRESS: return .failure(.busy)
            default: return .failure(.system(error))
            }
        }
        var zero = timeval()
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &zero, socklen_t(MemoryLayout<timeval>.size))
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        guard peerUID(fd) == getuid() else {
            close(fd)
            return .failure(.foreignOwner)
        }
        return .success(fd)
    }

    package enum AcceptOutcome { case accepted(Int32), refused, none, exhausted(Int32) }

    /// Accepts one pending connection (non-blocking, close-on-exec).  A
    /// peer of another user is closed at once (`.refused`); `.none` when
    /// nothing is pending (or accept failed); `.exhausted` when the
    /// connection stays pending for lack of descriptors or memory.
    package static func accept(_ listenFD: Int32) -> AcceptOutcome {
        while true {
            let fd = acceptNonBlocking(listenFD)
            if fd < 0 {
                let error = errno
                if error == EINTR || error == ECONNABORTED { continue }
                // Out of descriptors or memory: outlasts a retry.
                return ListenerSet.isShortage(error) ? .exhausted(error) : .none
            }
            if peerUID(fd) == getuid() { return .accepted(fd) }
            close(fd)
            return .refused
        }
    }

    /// `body` with `addr` as the generic socket address.
    private static func withSockaddr(_ addr: sockaddr_un, _ body: (UnsafePointer<sockaddr>) -> Int32) -> Int32 {
        withUnsafePointer(to: addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
    }

    private static func peerUID(_ fd: Int32) -> uid_t? {
        var cred = (pid: Int32(0), uid: UInt32(0), gid: UInt32(0))  // struct ucred
        var length = socklen_t(MemoryLayout.size(ofValue: cred))
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) == 0 else { return nil }
        return cred.uid
    }

    // MARK: moving bytes

    package enum WriteOutcome { case done, timedOut(written: Int), peerGone }

    /// Writes all of `bytes`, waiting in poll() until `deadline`
    /// (monotonic ns).
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], until deadline: UInt64) -> WriteOutcome {
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL)) }
            if n > 0 {
                written += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            guard n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) else { return .peerGone }
            switch SocketIO.wait(fd, Int16(POLLOUT), until: deadline) {
            case .ready: continue
            case .timedOut: return .timedOut(written: written)
            case .hangup, .failed: return .peerGone
            }
        }
        return .done
    }

    /// Sends what the socket takes now; returns the bytes sent, or nil if
    /// the peer is gone.
    package static func writeSome(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Int? {
        while true {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            if n >= 0 { return n }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : nil
        }
    }

    package enum ReadOutcome { case drained, more, endOfStream }

    /// Reads what is available now into `reader`, stopping once `budget`
    /// bytes are read (at most one 64 KiB chunk beyond it; `.more`: bytes
    /// may be left).  The outcome and the bytes read.
    package static func readAvailable(_ fd: Int32, into reader: inout Reader,
                                      budget: Int = .max) -> (outcome: ReadOutcome, read: Int) {
        withUnsafeTemporaryAllocation(byteCount: 65536, alignment: 8) { chunk in
            var read = 0
            while read < budget {
                let n = recv(fd, chunk.baseAddress, chunk.count, 0)
                if n > 0 {
                    reader.append(UnsafeRawBufferPointer(rebasing: chunk[..<n]))
                    read += n
                    continue
                }
                if n < 0 && errno == EINTR { continue }
                return (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? .drained : .endOfStream, read)
            }
            return (.more, read)
        }
    }

    /// Whether the peer has closed its side (non-blocking look).
    package static func peerClosed(_ fd: Int32) -> Bool {
        let rdhup: Int16 = 0x2000  // POLLRDHUP (a GNU constant Glibc does not import)
        var entry = pollfd(fd: fd, events: rdhup, revents: 0)
        guard poll(&entry, 1, 0) > 0 else { return false }
        return entry.revents & (rdhup | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0
    }
}

/// accept4 is a GNU extension the Glibc module does not import: look it up
/// once (accept + fcntl would leave a window where a fork+exec elsewhere in
/// the process inherits the connection and keeps it open).
private typealias Accept4Function = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
private let accept4Function = unsafeBitCast(dlsym(nil, "accept4"), to: Accept4Function?.self)

private func acceptNonBlocking(_ listenFD: Int32) -> Int32 {
    if let accept4 = accept4Function {
        return accept4(listenFD, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
    }
    let fd = Glibc.accept(listenFD, nil, nil)
    if fd >= 0 {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }
    return fd
}
