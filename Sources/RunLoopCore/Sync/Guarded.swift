import Glibc

/// A value guarded by its own pthread mutex.  Used instead of the standard
/// library's `Mutex` because that one waits on raw futexes, which
/// ThreadSanitizer cannot see (it reports false races through it).
package final class Guarded<State>: @unchecked Sendable {
    // The mutex directly, not a `Lock` object: one allocation less per
    // guarded value.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    package init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    package func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }

    /// For Fork.swift only: held across fork() (taken by its prepare
    /// handler, released by its parent and child handlers).
    package func lockForFork() { pthread_mutex_lock(mutex) }
    package func unlockAfterFork() { pthread_mutex_unlock(mutex) }
    /// The state, while `lockForFork` holds the mutex (the fork child
    /// resets it before releasing).
    package func withHeldForFork(_ body: (inout State) -> Void) { body(&state) }
}
