import Glibc

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
/// Device: see docs/performance.md, "The engine's devices".
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
