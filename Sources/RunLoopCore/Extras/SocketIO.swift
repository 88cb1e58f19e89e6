import CRunLoop
import CRunLoopShims
import Glibc

/// The socket system calls of RLSocket: addresses, and the blocking
/// operations (bind and listen, connect and send with a timeout) with CF's
/// result codes.  They run on the calling thread and never touch a loop.
/// errno is left as the failing system call set it.
package enum SocketIO {
    /// bind, then listen (backlog 256, as CF; its failure is ignored, as
    /// for a datagram socket, which cannot listen).
    package static func bindAndListen(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> RLSocketError {
        guard bind(fd, address, length) == 0 else { return kRLSocketError }
        let saved = errno
        _ = listen(fd, 256)
        errno = saved
        return kRLSocketSuccess
    }

    /// getsockname or getpeername.
    package typealias AddressQuery = (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?) -> Int32

    /// Runs a system call that fills in a socket address: its result, and
    /// the address's bytes when it succeeded (errno is left as it failed).
    static func withAddress<R: BinaryInteger>(
        _ call: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> R) -> (R, [UInt8]) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutableBytes(of: &storage) { call($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length) }
        guard rc >= 0 else { return (rc, []) }
        return (rc, withUnsafeBytes(of: &storage) { Array($0.prefix(Int(length))) })
    }

    /// The address `query` gives for `fd`; nil when it fails.
    static func address(_ fd: Int32, _ query: AddressQuery) -> [UInt8]? {
        let (rc, bytes) = withAddress { query(fd, $0, $1) }
        return rc == 0 ? bytes : nil
    }

    package enum PollOutcome { case ready, timedOut, hangup, failed }

    /// Waits in poll() for `events` on `fd` until `deadline` (monotonic ns;
    /// `Clock.never`: no limit).  `.hangup`: POLLHUP, POLLERR or POLLNVAL
    /// without an asked event; `.failed`: poll() failed (errno says why).
    package static func wait(_ fd: Int32, _ events: Int16, until deadline: UInt64) -> PollOutcome {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let now = rl_monotonic_ns()
            let ms = deadline == Clock.never ? -1
                : Int32(min((deadline > now ? deadline - now + 999_999 : 0) / 1_000_000, UInt64(Int32.max)))
            let n = poll(&entry, 1, ms)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failed }
            if n == 0 {
                if rl_monotonic_ns() >= deadline { return .timedOut }
                continue
            }
            return entry.revents & events != 0 ? .ready : .hangup
        }
    }

    /// Waits for room to write: nil when there is (or the peer hung up:
    /// the next call says so), else the result for the caller.
    private static func awaitWritable(_ fd: Int32, until deadline: UInt64) -> RLSocketError? {
        switch wait(fd, Int16(POLLOUT), until: deadline) {
        case .ready, .hangup: return nil
        case .timedOut:
            errno = ETIMEDOUT
            return kRLSocketTimeout
        case .failed: return kRLSocketError
        }
    }

    /// `timeout` seconds from now; no limit for 0 or less.
    private static func deadline(after timeout: Double) -> UInt64 {
        timeout > 0 ? Clock.deadline(after: timeout, from: Clock.monotonicNow()) : Clock.never
    }

    /// CF's connect: timeout < 0 starts a background connect (success at
    /// once, the connect callback reports), 0 waits as long as connect(2)
    /// does, > 0 waits at most that long (kRLSocketTimeout).  The socket's
    /// blocking mode is restored afterwards.
    package static func connect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t,
                                timeout: Double) -> RLSocketError {
        let modes = fcntl(fd, F_GETFL)
        let wasBlocking = modes >= 0 && modes & O_NONBLOCK == 0
        let switchMode = wasBlocking && timeout != 0
        if switchMode { _ = fcntl(fd, F_SETFL, modes | O_NONBLOCK) }
        defer {
            if switchMode {
                let saved = errno
                _ = fcntl(fd, F_SETFL, modes)
                errno = saved
            }
        }
        var rc = Glibc.connect(fd, address, length)
        while rc != 0 && errno == EINTR && timeout == 0 { rc = Glibc.connect(fd, address, length) }
        if rc == 0 { return kRLSocketSuccess }
        guard errno == EINPROGRESS || errno == EAGAIN else { return kRLSocketError }
        if timeout < 0 { return kRLSocketSuccess }
        if let failure = awaitWritable(fd, until: deadline(after: timeout)) { return failure }
        var failure: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &size) != 0 { return kRLSocketError }
        if failure != 0 {
            errno = failure
            return kRLSocketError
        }
        return kRLSocketSuccess
    }

    /// Sends every byte (sendto when `address` is given), waiting for room
    /// until the timeout (<= 0: no limit).  MSG_NOSIGNAL: a closed or reset
    /// connection is an error, not SIGPIPE.  Empty data is an error, as in
    /// CF (whose send of 0 bytes returns 0).
    package static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, to address: UnsafePointer<sockaddr>?,
                             _ addressLength: socklen_t, timeout: Double) -> RLSocketError {
        guard bytes.count > 0, let base = bytes.baseAddress else { return kRLSocketError }
        let limit = deadline(after: timeout)
        var sent = 0
        let flags = Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)
        while sent < bytes.count {
            let n = address == nil
                ? Glibc.send(fd, base + sent, bytes.count - sent, flags)
                : sendto(fd, base + sent, bytes.count - sent, flags, address, addressLength)
            if n > 0 {
                sent += n
                continue
            }
            if n < 0 && errno == EINTR { continue }
            guard n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) else { return kRLSocketError }
            if let failure = awaitWritable(fd, until: limit) { return failure }
        }
        return kRLSocketSuccess
    }
}
