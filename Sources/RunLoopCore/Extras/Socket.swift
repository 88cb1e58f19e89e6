import CRunLoop
import CRunLoopShims
import Glibc
import Synchronization

/// CF's CFSocket: a native socket whose readiness is delivered through a
/// version-1 run loop source, with CF's callback types (read, accept,
/// data, connect, write), one-shot callbacks re-enabled by the socket's
/// flags, and close-on-invalidate.
///
/// The descriptor is watched by the loop's own wait set (the source's
/// interest), only for the directions that are armed: `armRead` for the
/// read type, `armWrite` for write (or connect, while not connected).  A
/// direction is disarmed when it fires, before the callout, and re-armed
/// after it when the flags ask for it — so two loops holding the source
/// never both handle one readiness.  Accepting and reading (the accept and
/// data types) happen on the loop's thread, just before the callout.
///
/// An accepting socket's source watches a ListenerSet instead, made with
/// its first source, which holds the listener for the armed directions and
/// pauses accepting while the process is out of descriptors.
///
/// What happens when the descriptor is ready: Socket+Ready.swift.
package final class Socket: Object, @unchecked Sendable {
    package static let readType: UInt = 1
    package static let acceptType: UInt = 2
    package static let dataType: UInt = 3
    package static let connectType: UInt = 4
    package static let writeType: UInt = 8
    package static let leaveErrors: UInt = 64
    package static let closeOnInvalidate: UInt = 128

    /// The bytes a data callout gets at most from one read.
    static let streamChunk = 32 * 1024
    static let datagramChunk = 64 * 1024

    /// What the callout receives: the socket, the type, the address (a
    /// borrowed data object) and the data pointer.
    package typealias Callout = (Socket, UInt, Data?, UnsafeRawPointer?) -> Void

    package let callBackTypes: UInt
    /// Read, accept, data or none (the low two bits of the types).
    let readKind: UInt
    /// SOCK_STREAM: waits for a connection before write callbacks, and
    /// its peer's address is known.
    let connectionOriented: Bool
    /// A read of zero bytes is the end of the stream: the peer closed the
    /// connection (SOCK_STREAM, SOCK_SEQPACKET, and anything that is not a
    /// socket).  On a socket of connectionless messages (SOCK_DGRAM,
    /// SOCK_RAW, SOCK_RDM) it is an empty message: data, and the socket
    /// stays valid, as in CF.
    let zeroReadEnds: Bool
    /// The file the descriptor named at creation, to tell at close time
    /// whether the number still names it.
    private let identity: (device: UInt, inode: UInt)
    package let cContext: RLSocketContext?
    let callout: Callout?
    let releaseInfo: (() -> Void)?
    let gate = CalloutGate()
    private let valid = Atomic<Bool>(true)

    struct State {
        var fd: Int32
        var flags: UInt
        var disabled: UInt = 0
        /// Connected (write callbacks, not connect, are due); from the
        /// start for an accepting or connectionless socket.
        var connected: Bool
        /// How many modes of loops hold the source (CF's set count).
        var scheduled = 0
        var armRead = false
        var armWrite = false
        var source: Source?
        /// getpeername's answer, once known (the address of stream data).
        var peer: [UInt8]?
        /// An accepting socket's set, from its first source; closed with
        /// the socket, after every loop let go of the sources watching it.
        var accepting: ListenerSet?
    }
    let state: Guarded<State>

    /// Valid sockets by descriptor: CreateWithNative of a descriptor that
    /// has one gives that one, as in CF.
    private static let byDescriptor = Guarded<[Int32: Socket]>([:])

    private init(fd: Int32, callBackTypes: UInt, callout: Callout?, releaseInfo: (() -> Void)?,
                 cContext: RLSocketContext?, identity: (UInt, UInt)) {
        self.callBackTypes = callBackTypes
        readKind = callBackTypes & 3
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 { type = 0 }
        connectionOriented = type == Int32(SOCK_STREAM.rawValue)
        zeroReadEnds = ![SOCK_DGRAM, SOCK_RAW, SOCK_RDM].contains { Int32($0.rawValue) == type }
        self.identity = identity
        self.callout = callout
        self.releaseInfo = releaseInfo
        self.cContext = cContext
        // CF's default flags: the read type re-enables itself, write does
        // not, connect is once only; the descriptor is closed at the end.
        let flags = (callBackTypes & ~(Self.connectType | Self.writeType)) | Self.closeOnInvalidate
        state = Guarded(State(fd: fd, flags: flags, connected: readKind == Self.acceptType || !connectionOriented))
        super.init(kind: .socket)
    }

    /// The result of `make`: the socket, or why there is none.
    package enum Made { case socket(Socket), notOpen(Int32), full }

    /// The socket for `fd` with one reference for the caller: the valid
    /// socket that already wraps it, or a new one.  `makeInfo` is called
    /// only for a new socket (it retains the context's info) and returns
    /// the callout, the info's release and the context to keep.
    package static func make(fd: Int32, callBackTypes: UInt,
                             makeInfo: () -> (Callout?, (() -> Void)?, RLSocketContext?)) -> Made {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .notOpen(errno) }
        // The same file still: a number closed behind its socket's back and
        // reused names another one, which gets a socket of its own.
        if let existing = byDescriptor.withLock({ $0[fd] }), existing.isValid,
           existing.identity == (UInt(st.st_dev), UInt(st.st_ino)),
           case .success = HandleTable.shared.retain(UInt(existing.handle), kind: .socket) {
            return .socket(existing)
        }
        // No lock held: makeInfo runs the context's retain (user code).
        let (callout, release, context) = makeInfo()
        let socket = Socket(fd: fd, callBackTypes: callBackTypes, callout: callout, releaseInfo: release,
                            cContext: context, identity: (UInt(st.st_dev), UInt(st.st_ino)))
        guard HandleTable.shared.register(socket) else {
            release?()
            return .full
        }
        byDescriptor.withLock { $0[fd] = socket }
        return .socket(socket)
    }

    package var isValid: Bool { valid.load(ordering: .acquiring) }
    /// The native socket; -1 once invalid.
    package var fd: Int32 { state.withLock { $0.fd } }

    package var flags: UInt {
        get { state.withLock { $0.flags } }
        set { state.withLock { $0.flags = newValue } }
    }

    // MARK: enabling

    /// CF's enable: only while valid and scheduled; `force` (a user's
    /// enable, or the first schedule) clears the disabled bits, an
    /// automatic re-enable respects them.  Lock held.
    func enableLocked(_ s: inout State, _ types: UInt, force: Bool) {
        guard isValid, s.scheduled > 0, types != 0 else { return }
        let types = types & callBackTypes
        if force { s.disabled &= ~types }
        if s.connected || types & Self.connectType == 0 {
            if types & Self.writeType != 0 && s.disabled & Self.writeType == 0 { s.armWrite = true }
        } else if types & Self.connectType != 0 && s.disabled & Self.connectType == 0 {
            s.armWrite = true
        }
        if readKind != 0 && types & readKind != 0 && s.disabled & readKind == 0 { s.armRead = true }
        applyInterestLocked(&s)
    }

    /// Watches the armed directions: the source's descriptor, or an
    /// accepting socket's listener in its set.
    func applyInterestLocked(_ s: inout State) {
        let armed = isValid && s.scheduled > 0
        let events = (armed && s.armRead ? EPOLLIN.rawValue : 0) | (armed && s.armWrite ? EPOLLOUT.rawValue : 0)
        if let set = s.accepting { set.watch(s.fd, events) } else { s.source?.setInterest(events) }
    }

    package func enableCallBacks(_ types: UInt) {
        state.withLock { enableLocked(&$0, types, force: true) }
    }

    package func disableCallBacks(_ types: UInt) {
        state.withLock { s in
            guard isValid, s.scheduled > 0 else { return }
            let types = types & callBackTypes
            s.disabled |= types
            if types & Self.writeType != 0 || (types & Self.connectType != 0 && !s.connected) { s.armWrite = false }
            if readKind != 0 && types & readKind != 0 { s.armRead = false }
            applyInterestLocked(&s)
        }
    }

    private func scheduled(_ delta: Int) {
        state.withLock { s in
            s.scheduled += delta
            if delta > 0 && s.scheduled == 1 {
                enableLocked(&s, callBackTypes, force: true)
            } else if s.scheduled == 0 {
                s.armRead = false
                s.armWrite = false
                applyInterestLocked(&s)
            }
        }
    }

    // MARK: the source

    /// The source delivering the callbacks, with one reference for the
    /// caller; the same source while it lives.  nil once invalid, or
    /// (reported) when an accepting socket gets no descriptor for its
    /// private set.
    package func runLoopSource(order: Int) -> Source? {
        guard isValid else { return nil }
        var refused: Int32 = 0
        let made = state.withLock { s -> Source? in
            if let source = s.source, source.isValid,
               case .success = HandleTable.shared.retain(UInt(source.handle), kind: .source) {
                return source
            }
            let fd = s.fd
            var watched = (descriptor: fd, interest: UInt32(0))
            if readKind == Self.acceptType {
                if s.accepting == nil { s.accepting = ListenerSet() }
                guard let set = s.accepting else {
                    refused = errno
                    return nil
                }
                watched = (set.fd, EPOLLIN.rawValue)
            }
            let callbacks = SourceCallbacks(
                schedule: { [self] _, _ in scheduled(1) },
                cancel: { [self] _, _ in scheduled(-1) },
                perform: {},
                release: { [self] in releaseRef() },
                describe: { "socket \(fd)" },
                ready: { [self] events in handleReady(events); return true })
            let source = Source(order: order, callbacks: callbacks, descriptor: watched.descriptor,
                                interest: watched.interest)
            guard HandleTable.shared.register(source) else { return nil }
            retainRef()  // the source's reference to this object
            s.source = source
            s.scheduled = 0
            return source
        }
        if refused != 0 {
            reportError("RLSocketCreateRunLoopSource", ErrorCode.system(refused),
                        "cannot watch accepting socket \(fd): \(String(cString: strerror(refused)))")
        }
        return made
    }

    // MARK: invalidation

    /// Invalidates the source, closes the descriptor if the flags say so,
    /// releases info.  Idempotent.
    package func invalidate() {
        guard valid.exchange(false, ordering: .acquiringAndReleasing) else { return }
        let (source, fd, flags) = state.withLock { s -> (Source?, Int32, UInt) in
            defer {
                s.accepting?.watch(-1, 0)
                s.source = nil
                s.fd = -1
                s.armRead = false
                s.armWrite = false
            }
            return (s.source, s.fd, s.flags)
        }
        Self.byDescriptor.withLock { table in
            if table[fd] === self { table[fd] = nil }
        }
        // Leaves every loop: the descriptor is no longer watched.  As CF
        // does, the loops that held it wake, so one asleep in a mode that is
        // now empty returns.
        let loops = source?.holdingLoops ?? []
        source?.invalidate()
        for loop in loops { loop.wakeUp() }
        if flags & Self.closeOnInvalidate != 0 { closeIfStillOurs(fd) }
        gate.askRelease { releaseInfo?() }
    }

    /// Closes `fd` unless the number no longer names the socket's file
    /// (closed behind our back, maybe reused): then reports instead.
    private func closeIfStillOurs(_ fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            reportError("RLSocketInvalidate", .invalidArgument,
                        "descriptor \(fd) was closed while its socket was valid; not closed again")
            return
        }
        guard UInt(st.st_dev) == identity.device && UInt(st.st_ino) == identity.inode else {
            reportError("RLSocketInvalidate", .invalidArgument,
                        "descriptor \(fd) now names another file (closed and reused while its socket was valid); not closed")
            return
        }
        Glibc.close(fd)
    }

    override package func finalize() { invalidate() }
}
