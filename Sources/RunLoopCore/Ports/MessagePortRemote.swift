import CRunLoop
import CRunLoopShims
import Glibc

/// A remote message port: one connection to the local port of its name.
///
/// Senders take turns (one request/reply conversation at a time on the
/// connection), waiting for their turn no longer than their send timeout.
/// Every wait is a poll() with a deadline, so a stalled or dead peer never
/// hangs a sender.  A request cut short by its send timeout leaves a torn
/// frame on the stream: the connection is dropped (the local side discards
/// the fragment) and the next send reconnects.
package final class RemotePort: MessagePort, @unchecked Sendable {
    private let remoteName: [UInt8]
    /// The connected socket, -1 after a dropped connection.  Replaced and
    /// closed only by the sender holding the turn, under this lock;
    /// invalidation only shuts it down, so nobody polls a reused number.
    private let connection: Guarded<Int32>
    private let turn = Turn()
    /// Owned by the sender holding the turn.
    private var reader = PortWire.Reader()
    private var sequence: UInt32 = 0

    private init(name: [UInt8], fd: Int32) {
        remoteName = name
        connection = Guarded(fd)
        super.init(name: name)
    }

    /// Connects to the local port `name`, with a handle.
    package static func connect(_ name: [UInt8]) -> Result<RemotePort, PortWire.ConnectError> {
        PortWire.connect(name, until: rl_monotonic_ns() + PortWire.connectPatience).flatMap { fd in
            let port = RemotePort(name: name, fd: fd)
            guard HandleTable.shared.register(port) else { return .failure(.system(ENOMEM)) }
            return .success(port)
        }
    }

    deinit { connection.withLock { if $0 >= 0 { close($0) } } }

    package override var isRemote: Bool { true }

    /// Validity, after a non-blocking look at whether the local side has
    /// gone (which invalidates the port here, callback included).
    package func checkValid() -> Bool {
        guard isValid else { return false }
        if connection.withLock({ $0 >= 0 && PortWire.peerClosed($0) }) { invalidate() }
        return isValid
    }

    override func closeTransport() {
        connection.withLock { if $0 >= 0 { _ = shutdown($0, Int32(SHUT_RDWR)) } }
    }

    // MARK: sending

    private enum Step: Error {
        case done(Outcome)
        /// The port is (or became) invalid: invalidate, then fail with code.
        case invalid(Int32)
    }

    /// Sends one request; with `wantsReply`, waits for its reply.  The
    /// reply data comes with a reference for the caller.
    package func send(msgid: Int32, payload: UnsafeRawBufferPointer?, sendTimeout: Double,
                      rcvTimeout: Double, wantsReply: Bool) -> Outcome {
        guard isValid else { return .failed(PortStatus.isInvalid) }
        let sendDeadline = Clock.deadline(after: sendTimeout, from: Clock.monotonicNow())
        guard turn.acquire(until: sendDeadline) else { return .failed(PortStatus.sendTimeout) }
        let step = converse(msgid: msgid, payload: payload, sendDeadline: sendDeadline,
                            rcvTimeout: rcvTimeout, wantsReply: wantsReply)
        turn.release()
        switch step {
        case .done(let outcome):
            return outcome
        case .invalid(let code):
            invalidate()
            return .failed(code)
        }
    }

    /// One conversation; the caller holds the turn.
    private func converse(msgid: Int32, payload: UnsafeRawBufferPointer?, sendDeadline: UInt64,
                          rcvTimeout: Double, wantsReply: Bool) -> Step {
        guard isValid else { return .done(.failed(PortStatus.isInvalid)) }
        var fd = connection.withLock { $0 }
        if fd < 0 {
            switch reconnect(until: sendDeadline) {
            case .success(let fresh): fd = fresh
            case .failure(let step): return step
            }
        }
        sequence &+= 1
        let frame = PortWire.encode(wantsReply ? .request : .oneWay, msgid: msgid, seq: sequence, payload: payload)
        switch PortWire.writeAll(fd, frame, until: sendDeadline) {
        case .done:
            break
        case .timedOut(let written):
            if written > 0 { dropConnection() }
            return .done(.failed(PortStatus.sendTimeout))
        case .peerGone:
            return .invalid(PortStatus.isInvalid)
        }
        guard wantsReply else { return .done(.success(nil)) }
        return awaitReply(fd, until: Clock.deadline(after: rcvTimeout, from: Clock.monotonicNow()))
    }

    /// Reads until the reply to `sequence` arrives, skipping late replies
    /// to earlier requests.
    private func awaitReply(_ fd: Int32, until deadline: UInt64) -> Step {
        var ended = false
        while true {
            frames: while true {
                switch reader.next() {
                case .success(let frame?):
                    guard frame.kind == .reply, frame.seq == sequence else { continue }
                    return .done(.success(frame.payload.flatMap { Data.make($0) }))
                case .success(nil):
                    break frames
                case .failure:
                    dropConnection()
                    return .done(.failed(PortStatus.transportError))
                }
            }
            if ended { return .invalid(PortStatus.becameInvalid) }
            if case .timedOut = SocketIO.wait(fd, Int16(POLLIN), until: deadline) {
                return .done(.failed(PortStatus.receiveTimeout))
            }
            if PortWire.readAvailable(fd, into: &reader).outcome == .endOfStream { ended = true }
        }
    }

    private func reconnect(until deadline: UInt64) -> Result<Int32, Step> {
        switch PortWire.connect(remoteName, until: deadline) {
        case .success(let fd):
            let installed = connection.withLock { current -> Bool in
                guard isValid else { return false }
                current = fd
                return true
            }
            guard installed else {
                close(fd)
                return .failure(.done(.failed(PortStatus.isInvalid)))
            }
            reader = PortWire.Reader()
            return .success(fd)
        case .failure(.noSuchPort), .failure(.foreignOwner), .failure(.squatted):
            return .failure(.invalid(PortStatus.isInvalid))
        case .failure(.busy):
            return .failure(.done(.failed(PortStatus.sendTimeout)))  // no room until the send deadline
        case .failure(.system):
            return .failure(.done(.failed(PortStatus.transportError)))
        }
    }

    private func dropConnection() {
        connection.withLock { fd in
            if fd >= 0 { close(fd) }
            fd = -1
        }
        reader = PortWire.Reader()
    }
}

/// One sender at a time, waiting until a monotonic deadline at most.
private final class Turn: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var busy = false  // guarded by mutex

    init() {
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    func acquire(until deadline: UInt64) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while busy {
            if deadline == Clock.never {
                pthread_cond_wait(cond, mutex)
                continue
            }
            if rl_monotonic_ns() >= deadline { return false }
            var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            _ = pthread_cond_timedwait(cond, mutex, &ts)
        }
        busy = true
        return true
    }

    func release() {
        pthread_mutex_lock(mutex)
        busy = false
        pthread_cond_signal(cond)
        pthread_mutex_unlock(mutex)
    }
}
