import Synchronization

/// Orders an item's callouts before the release of its info.
///
/// A callout reads the info its context gave; the context's `release`
/// frees it (for the usual `release = free`).  Another thread may invalidate
/// or release the item at any moment, also between a loop's "is it still
/// valid?" and the call.  The gate makes the two exclusive: a loop enters
/// it before a callout and leaves it after; the info is released by
/// whoever comes last — the thread asking for the release if no callout is
/// in flight, otherwise the loop leaving the last one, right after its
/// callout returns.  After a release was asked for, no callout enters.
/// So a callout never runs after, or during, the release of its info, and
/// the release runs exactly once, with no lock held.
///
/// A callout that releases its own item (invalidates itself, or drops its
/// last reference) therefore sees its info released when it returns, as CF
/// does for a source (CF retains a source around its perform) and for a
/// timer (CF retains the timer's info around its callout).
///
/// One word: bit 31 says the release was asked for, the low bits count the
/// callouts in flight (nested runs can make several, on one thread; a
/// source in loops of several threads, on several).
package struct CalloutGate: ~Copyable {
    private let state = Atomic<UInt32>(0)
    private static let releaseAsked: UInt32 = 1 << 31

    package init() {}

    /// Runs `body`, a callout that reads the info, unless the release was
    /// asked for (then nil, and no call); afterwards runs `release` if it
    /// was asked for meanwhile and this was the last callout in flight.
    /// Pass `release` (here and to askRelease) as a closure literal,
    /// `{ releaseInfo() }`: a method reference, `releaseInfo`, is a
    /// partial application that retains its object on every call.
    @inline(__always)
    package func callOut<T>(_ body: () -> T, release: () -> Void) -> T? {
        guard enter() else { return nil }
        let result = body()
        if exit() { release() }
        return result
    }

    /// Asks for the release, once (later asks do nothing): runs `release`
    /// now if no callout is in flight, else the last one to leave will.
    package func askRelease(_ release: () -> Void) {
        let before = state.bitwiseOr(Self.releaseAsked, ordering: .acquiringAndReleasing).oldValue
        if before == 0 { release() }
    }

    /// Enters unless the release was asked for.  Acquiring: the callout
    /// sees what was published before.
    @inline(__always)
    private func enter() -> Bool {
        var current = state.load(ordering: .relaxed)
        while current & Self.releaseAsked == 0 {
            let (done, now) = state.weakCompareExchange(expected: current, desired: current + 1,
                                                        ordering: .acquiringAndReleasing)
            if done { return true }
            current = now
        }
        return false
    }

    /// Leaves; true when the caller must release (the release was asked
    /// for and this was the last callout in flight).
    @inline(__always)
    private func exit() -> Bool {
        state.subtract(1, ordering: .acquiringAndReleasing).newValue == Self.releaseAsked
    }
}
