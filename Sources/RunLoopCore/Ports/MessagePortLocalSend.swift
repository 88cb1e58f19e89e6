import CRunLoop
import Glibc

/// RLMessagePortSendRequest on a local port: as in CF, the request reaches
/// the port's own callout.  Here it is delivered at once, on the sending
/// thread, with no lock held: no socket, no loop.  That is the one
/// delivery that cannot wait on itself (the sender would otherwise block
/// in poll() on a port its own loop may be the only one to serve), and it
/// works whether or not the port's source is in a loop.  Its callouts may
/// run alongside those of loops serving remotes (as those of two remotes
/// may), and nest when a callout sends to a local port again: at most
/// `selfSendNesting` deep on one thread, so a callout that always sends to
/// its own port fails instead of exhausting the stack.
extension LocalPort {
    /// How many sends to local ports may be under way on one thread, one
    /// inside another's callout.
    static let selfSendNesting = 64

    /// Calls the callout with (msgid, data) on this thread.  With
    /// `wantsReply` the callout's data comes back (with the caller's
    /// reference); otherwise it is released.  The port invalid before the
    /// call: `isInvalid`; invalidated by the callout (or meanwhile) when a
    /// reply was wanted: `becameInvalid`, as for a remote.
    package func sendToSelf(msgid: Int32, data: Data?, wantsReply: Bool) -> Outcome {
        guard isValid else { return .failed(PortStatus.isInvalid) }
        guard SelfSendNesting.enter() else {
            reportError("RLMessagePortSendRequest", .resources,
                        "\(Self.selfSendNesting) sends to local ports are already under way on this thread, "
                        + "each from the callout of the one before (a callout sending to its own port without end?)")
            return .failed(PortStatus.transportError)
        }
        defer { SelfSendNesting.leave() }
        // nil: invalidated before the callout could start; the info may
        // be released already.
        guard let returned = gate.callOut({ callout(opaque, msgid, data?.opaque, context.info) },
                                          release: { releaseInfo() }) else {
            return .failed(PortStatus.isInvalid)
        }
        let reply = Self.adoptReply(returned)
        guard wantsReply, isValid else {
            reply?.releaseRef()
            return wantsReply ? .failed(PortStatus.becameInvalid) : .success(nil)
        }
        return .success(reply)
    }
}

/// The number of sends to local ports under way on the current thread,
/// kept in a thread-specific slot as an integer: no allocation, nothing to
/// free when the thread exits.
private enum SelfSendNesting {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static var depth: Int { Int(bitPattern: pthread_getspecific(key)) }

    /// One more, unless `LocalPort.selfSendNesting` are under way.
    static func enter() -> Bool {
        let now = depth
        guard now < LocalPort.selfSendNesting else { return false }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: now + 1))
        return true
    }

    static func leave() { pthread_setspecific(key, UnsafeRawPointer(bitPattern: depth - 1)) }
}
