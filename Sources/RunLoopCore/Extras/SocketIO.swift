import CRunLoop
import CRunLoopShims
import Glibc

/// The blocking socket operations of RLSocket (bind and listen, connect
/// and send with a timeout), with CF's result codes.  They run on the
/// calling thread and never touch a loop.  errno is left as the failing
/// system call set it.
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

    /// Seconds left before `deadline` (monotonic ns) as poll(2)
    /// milliseconds, rounded up; -1 for no deadline.
    private static func pollMilliseconds(until deadline: UInt64?) -> Int32 {
        guard let deadline else { return -1 }
        let now = Clock.monotonicNow()
        guard deadline > now else { return 0 }
        return Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    private static func deadline(after timeout: Double) -> UInt64? {
        guard timeout > 0 else { return nil }
        return Clock.monotonicNow() &+ UInt64(min(timeout, 1e9) * 1e9)
    }

    /// Waits until `fd` has `events` or the deadline passes; false on
    /// timeout or failure.
    private static func wait(_ fd: Int32, _ events: Int16, until deadline: UInt64?) -> Bool {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let rc = poll(&entry, 1, pollMilliseconds(until: deadline))
            if rc > 0 { return true }
            if rc == 0 {
                if deadline == nil || pollMilliseconds(until: deadline) > 0 { continue }
                errno = ETIMEDOUT
                return false
            }
            if errno != EINTR { return false }
        }
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
        guard wait(fd, Int16(POLLOUT), until: deadline(after: timeout)) else {
            return errno == ETIMEDOUT ? kRLSocketTimeout : kRLSocketError
        }
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
            guard wait(fd, Int16(POLLOUT), until: limit) else {
                return errno == ETIMEDOUT ? kRLSocketTimeout : kRLSocketError
            }
        }
        return kRLSocketSuccess
    }
}
