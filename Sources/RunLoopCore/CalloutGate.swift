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
/// the release runs exactly once, with no lock held (issue 22, item 2).
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

    /// Before a callout: false (do not call out) once the release was asked
    /// for.  Acquiring: the callout sees what was published before.
    @inline(__always)
    package func enter() -> Bool {
        var current = state.load(ordering: .relaxed)
        while current & Self.releaseAsked == 0 {
            let (done, now) = state.weakCompareExchange(expected: current, desired: current + 1,
                                                        ordering: .acquiringAndReleasing)
            if done { return true }
            current = now
        }
        return false
    }

    /// After a callout that `enter` let in: true when the caller must now
    /// release the info (the release was asked for while this was the
    /// last callout in flight).
    @inline(__always)
    package func exit() -> Bool {
        let now = state.subtract(1, ordering: .acquiringAndReleasing).newValue
        return now == Self.releaseAsked
    }

    /// Asks for the release: true when the caller must release the info now
    /// (no callout in flight); false when the last callout to leave will,
    /// or when the release was already asked for (it happens once).
    package func askRelease() -> Bool {
        let before = state.bitwiseOr(Self.releaseAsked, ordering: .acquiringAndReleasing).oldValue
        return before == 0
    }

    /// Whether the release was asked for (the info is, or is about to be,
    /// released).
    package var releaseWasAsked: Bool { state.load(ordering: .acquiring) & Self.releaseAsked != 0 }
}
