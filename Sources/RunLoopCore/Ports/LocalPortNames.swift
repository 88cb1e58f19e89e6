import Glibc

/// The names this process serves: name → handle of the valid local port
/// bound to it.  RLMessagePortCreateLocal looks here first, so a second
/// local port of a name this process already serves is that port (CF's
/// rule), while PortWire.listen refuses a name another process serves.
///
/// Entries are handles, not objects: a port destroyed without leaving
/// (it always leaves in `LocalPort.closeTransport`) or inherited across
/// fork() is simply not retainable, and counts as absent.
///
/// The lock orders the look-up, the bind of a fresh name and a port's
/// leaving, so a name is never both listed and free.  No user code runs
/// under it (the info's retain runs between `claim` and `enter`).
enum LocalPortNames {
    private static let table = Guarded<[[UInt8]: UInt64]>([:])

    enum Claim {
        /// The valid port of this process named so, with a reference for
        /// the caller.
        case existing(LocalPort)
        /// The name is now bound to this listener: `enter` the port made
        /// with it.
        case bound(PortWire.Listener)
    }

    /// The port of this process named `name`, or else a listener bound to
    /// the name (which fails with `.nameTaken` when another process, or a
    /// port of this one being created or invalidated right now, holds it).
    static func claim(_ name: [UInt8]) -> Result<Claim, PortWire.ListenError> {
        table.withLock { table in
            if let port = live(table[name]) { return .success(.existing(port)) }
            return PortWire.listen(name).map { .bound($0) }
        }
    }

    /// Lists `port` under `name` (bound by `claim` or by a rename).
    static func enter(_ name: [UInt8], _ port: LocalPort) {
        table.withLock { $0[name] = port.handle }
    }

    /// Runs `body` (which binds the port's new name, frees the old one
    /// and records the new one) with the table locked; when it renamed
    /// the port, lists the port under its new name only.
    static func rename(_ port: LocalPort,
                       _ body: () -> Result<Bool, PortWire.ListenError>) -> Result<Bool, PortWire.ListenError> {
        table.withLock { table in
            let oldName = port.nameBytes
            let result = body()
            if case .success(true) = result, let newName = port.nameBytes {
                if let oldName, table[oldName] == port.handle { table[oldName] = nil }
                table[newName] = port.handle
            }
            return result
        }
    }

    /// Unlists `port` and runs `body` (which frees its name) with the
    /// table locked.  The name is read under the lock: a rename finished
    /// before is seen.
    static func leave(_ port: LocalPort, _ body: () -> Void) {
        table.withLock { table in
            if let name = port.nameBytes, table[name] == port.handle { table[name] = nil }
            body()
        }
    }

    /// Fork.swift only: the lock is held across fork(), so a child never
    /// inherits it taken; the child forgets the parent's ports (their
    /// handles are not its own; their names stay bound by the parent).
    static func lockForFork() { table.lockForFork() }
    static func unlockAfterFork(child: Bool) {
        if child { table.withHeldForFork { $0 = [:] } }
        table.unlockAfterFork()
    }

    /// The valid port behind `handle`, retained; nil if it is gone,
    /// another process's copy (fork), or invalid.
    private static func live(_ handle: UInt64?) -> LocalPort? {
        guard let handle, case .success(let object) = HandleTable.shared.retain(UInt(handle), kind: .messagePort) else {
            return nil
        }
        guard let port = object as? LocalPort, port.isValid else {
            HandleTable.shared.release(object.handle, from: "RLMessagePortCreateLocal")
            return nil
        }
        return port
    }
}
