import Glibc

/// A plain mutex for state that an object guards as a whole.  Never held
/// while user code runs: every path collects what it must call, unlocks,
/// then calls out (see `Deferred`).
///
/// A non-copyable value stored in its owner (a loop, the handle table, a
/// trace writer), so the owner pays one block for the mutex and no object
/// around it.  The mutex itself is allocated: an owner's stored
/// properties may move while it is being made, a pthread mutex may not.
/// (The standard library's `Mutex` is stored inline, but it waits on raw
/// futexes, which ThreadSanitizer cannot see; see Guarded.)
package struct Lock: ~Copyable, @unchecked Sendable {
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
