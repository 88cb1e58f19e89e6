import Glibc

/// A value guarded by its own pthread mutex.  Used instead of the standard
/// library's `Mutex` because that one waits on raw futexes, which
/// ThreadSanitizer cannot see (it reports false races through it).
package final class Guarded<State>: @unchecked Sendable {
    private let lock = Lock()
    private var state: State

    package init(_ state: State) {
        self.state = state
    }

    @inline(__always)
    package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// For Fork.swift only: held across fork() (taken by its prepare
    /// handler, released by its parent and child handlers).
    package func lockForFork() { lock.lock() }
    package func unlockAfterFork() { lock.unlock() }
    /// The state, while `lockForFork` holds the mutex (the fork child
    /// resets it before releasing).
    package func withHeldForFork(_ body: (inout State) -> Void) { body(&state) }
}
