import Glibc

/// A plain mutex for state that a loop guards as a whole.  Never held
/// while user code runs: every path collects what it must call, unlocks,
/// then calls out (see `Deferred`).
package final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    package init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// Work collected under a lock, to run after it is released: user
/// callouts (schedule, cancel) and reference drops (which may call a
/// context's release).
package struct Deferred {
    private var actions: [() -> Void] = []
    private var releases: [Handled] = []

    package mutating func call(_ action: @escaping () -> Void) { actions.append(action) }
    package mutating func release(_ object: Handled) { releases.append(object) }

    /// Runs the callouts in order, then drops the references.
    package func run() {
        for action in actions { action() }
        for object in releases { object.releaseRef() }
    }
}

/// A value guarded by its own pthread mutex.  Used instead of the standard
/// library's `Mutex` because that one waits on raw futexes, which
/// ThreadSanitizer cannot see (it reports false races through it).
package final class Locked<State>: @unchecked Sendable {
    // The mutex directly, not a `Lock` object: one allocation less per
    // guarded value (every source, timer and observer has one).
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
}
