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
    // The first reference drop is stored inline: most operations defer
    // exactly one, and an array would cost an allocation each time.  Each
    // entry owns a Swift reference, dropped by `run()` (which every user
    // calls exactly once) after the handle reference.
    private var firstRelease: Unmanaged<Handled>?
    private var actions: [() -> Void] = []
    private var releases: [Unmanaged<Handled>] = []

    package mutating func call(_ action: @escaping () -> Void) { actions.append(action) }
    package mutating func release(_ object: Handled) { release(owned: Unmanaged.passRetained(object)) }
    /// The same, taking over a Swift reference the caller owns (a mode's
    /// reference to a removed timer), so none is added and dropped.
    package mutating func release<T: Handled>(owned typed: Unmanaged<T>) {
        let object = Unmanaged<Handled>.fromOpaque(typed.toOpaque())
        if firstRelease == nil { firstRelease = object } else { releases.append(object) }
    }

    /// Runs the callouts in order, then drops the references.
    package func run() {
        for action in actions { action() }
        if let first = firstRelease { Self.drop(first) }
        for object in releases { Self.drop(object) }
    }

    @inline(__always)
    private static func drop(_ object: Unmanaged<Handled>) {
        object._withUnsafeGuaranteedRef { $0.releaseRef() }
        object.release()
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

    /// For Fork.swift only: held across fork() (taken by its prepare
    /// handler, released by its parent and child handlers).
    package func lockForFork() { pthread_mutex_lock(mutex) }
    package func unlockAfterFork() { pthread_mutex_unlock(mutex) }
    /// The state, while `lockForFork` holds the mutex (the fork child
    /// resets it before releasing).
    package func withHeldForFork(_ body: (inout State) -> Void) { body(&state) }
}

/// Shared mutexes, one per cache line, for small per-object state (a
/// timer's schedule, an item's loop memberships): an object's state is
/// guarded by the one its address picks, so there is no mutex and no box
/// per object (a private pthread mutex would cost two allocations each).
/// Two objects may share a stripe, so a holder must never take another
/// stripe or a loop's lock: the critical sections are a few loads and
/// stores.  Lock order: a loop's lock, then a stripe.
///
/// The owner keeps the state in a stored property and touches it only
/// inside `withLock`'s body, so every Swift access to it (which
/// ThreadSanitizer sees as a read or write of the whole property) happens
/// under the stripe.
package enum Stripes {
    /// Runs `body` holding `owner`'s stripe.
    @inline(__always)
    package static func withLock<T>(_ owner: AnyObject, _ body: () throws -> T) rethrows -> T {
        let mutex = mutex(for: owner)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    private static let count = 128
    private static let stride = 64
    nonisolated(unsafe) private static let base: UnsafeMutableRawPointer = {
        precondition(MemoryLayout<pthread_mutex_t>.size <= stride)
        let base = UnsafeMutableRawPointer.allocate(byteCount: count * stride, alignment: stride)
        for i in 0..<count {
            pthread_mutex_init((base + i * stride).assumingMemoryBound(to: pthread_mutex_t.self), nil)
        }
        return base
    }()

    /// Makes the stripes exist (Fork.prepare: no lazy initialization may
    /// be under way when the process forks).
    package static func prepareForFork() { _ = base }

    /// Takes every stripe, in index order (Fork.prepare).  A stripe's
    /// holder takes no other lock, so this cannot deadlock.
    package static func lockAllForFork() {
        for i in 0..<count { pthread_mutex_lock((base + i * stride).assumingMemoryBound(to: pthread_mutex_t.self)) }
    }

    package static func unlockAllAfterFork() {
        for i in 0..<count { pthread_mutex_unlock((base + i * stride).assumingMemoryBound(to: pthread_mutex_t.self)) }
    }

    @inline(__always)
    package static func mutex(for owner: AnyObject) -> UnsafeMutablePointer<pthread_mutex_t> {
        // Fibonacci hashing of the address (objects are 16-byte aligned).
        let address = UInt(bitPattern: Unmanaged.passUnretained(owner).toOpaque())
        let index = Int(((address >> 4) &* 0x9E37_79B9_7F4A_7C15) >> 57)  // top 7 bits: 0..<128
        return (base + index * stride).assumingMemoryBound(to: pthread_mutex_t.self)
    }
}
