import Synchronization

/// An object made at most once, by whichever thread first needs it, then
/// read with no lock and no reference counted: the owner of this value
/// holds the object's one reference until it is freed.  (The standard
/// library's `AtomicLazyReference` publishes the same way, but its load
/// retains the object on every read.)
///
/// The compare-and-swap that publishes the address releases, and `with`'s
/// load acquires: a reader that sees the address sees everything the
/// object's initializer wrote.  What the object's fields hold afterwards is
/// guarded as the owner says (atomics of their own, or a lock).  Two
/// threads making it at once both make an object; the one whose
/// compare-and-swap fails frees its own and uses the other's.  Used for a
/// timer's extras (TimerExtras), a loop's trace writer (Insight), and a
/// loop's poller and insight (Loop).
/// Device: see docs/performance.md, "The engine's devices".
package struct PublishedOnce<Object: AnyObject>: ~Copyable, @unchecked Sendable {
    private let word: Atomic<UInt>

    /// None made yet.
    package init() { word = Atomic(0) }

    /// Made already (by the owner's initializer, before anyone reads it).
    package init(_ object: Object) {
        word = Atomic(UInt(bitPattern: Unmanaged.passRetained(object).toOpaque()))
    }

    deinit {
        let bits = word.load(ordering: .acquiring)
        if bits != 0 { Self.object(bits).release() }
    }

    private static func object(_ bits: UInt) -> Unmanaged<Object> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
    }

    /// Whether it was made.
    package var isMade: Bool { word.load(ordering: .acquiring) != 0 }

    /// The object if it was made, unmanaged: for a holder that calls it
    /// through `_withUnsafeGuaranteedRef` while the owner lives.
    @inline(__always)
    package var unmanaged: Unmanaged<Object>? {
        let bits = word.load(ordering: .acquiring)
        return bits == 0 ? nil : Self.object(bits)
    }

    /// Calls `body` with the object if it was made; nil otherwise.
    @inline(__always)
    package func with<R>(_ body: (Object) -> R) -> R? {
        let bits = word.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        return Self.object(bits)._withUnsafeGuaranteedRef(body)
    }

    /// Calls `body` with the object, made by `make` now if it was not.
    package func withMade<R>(_ make: () -> Object, _ body: (Object) -> R) -> R {
        if let result = with(body) { return result }
        return publish(make(), body)
    }

    /// `withMade` for an object whose making may fail: nil, and nothing
    /// published, when `make` gives nil.
    package func withMade<R>(orNil make: () -> Object?, _ body: (Object) -> R) -> R? {
        if let result = with(body) { return result }
        guard let object = make() else { return nil }
        return publish(object, body)
    }

    /// Publishes `object` unless another thread published one first, and
    /// calls `body` with the one published.
    private func publish<R>(_ object: Object, _ body: (Object) -> R) -> R {
        let made = Unmanaged.passRetained(object)
        let (published, existing) = word.compareExchange(
            expected: 0, desired: UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
        if published { return made._withUnsafeGuaranteedRef(body) }
        made.release()
        return Self.object(existing)._withUnsafeGuaranteedRef(body)
    }
}
