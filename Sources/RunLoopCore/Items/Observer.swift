import CRunLoop
import Synchronization

/// Watches points of a loop's pass.  Belongs to one loop at a time.
package final class Observer: Object, @unchecked Sendable {
    package let activities: UInt
    package let repeats: Bool
    package let order: Int
    package let callout: (Observer, UInt) -> Void
    private let releaseInfo: (() -> Void)?
    package let cContext: RLRunLoopObserverContext?

    private let valid = Atomic<Bool>(true)
    /// Orders its callouts before the release of its info (CalloutGate).
    private let gate = CalloutGate()
    /// The loop it is scheduled on and in how many of its modes; guarded
    /// by its own lock, taken inside the loop's.
    @exclusivity(unchecked) private var ownership = LoopTie()
    /// True while its callout runs; touched only on the owning loop's
    /// thread.  A nested run does not call a firing observer again.
    @exclusivity(unchecked) var firing = false

    package init(activities: UInt, repeats: Bool, order: Int, callout: @escaping (Observer, UInt) -> Void,
         releaseInfo: (() -> Void)?, cContext: RLRunLoopObserverContext?) {
        self.activities = activities
        self.repeats = repeats
        self.order = order
        self.callout = callout
        self.releaseInfo = releaseInfo
        self.cContext = cContext
        super.init(kind: .observer)
    }

    package var isValid: Bool { valid.load(ordering: .acquiring) }
    package var owner: Loop? { withOwnership { $0.loop } }

    /// Reads or edits its loop tie under its stripe lock.
    package func withOwnership<T>(_ body: (inout LoopTie) -> T) -> T { Stripes.withLock(self) { body(&ownership) } }

    /// Removes it from its loop and releases its info (as CF does).
    package func invalidate() {
        guard valid.exchange(false, ordering: .acquiringAndReleasing) else { return }
        owner?.removeEverywhere(self)
        releaseInfoOnce()
    }

    /// Calls the context's release once: now, or when a callout in flight
    /// returns (CalloutGate).
    private func releaseInfoOnce() {
        gate.askRelease { releaseInfo?() }
    }

    /// Calls the callout for `activity` (no lock held), unless the info's
    /// release was asked for; a release asked meanwhile (another thread
    /// invalidated or released it) runs when the callout returns.
    package func callOut(_ activity: UInt) {
        _ = gate.callOut({ callout(self, activity) }, release: { releaseInfo?() })
    }

    /// The context's description of its info (its copyDescription, user
    /// code: call with no lock held), if it has one and the info is not
    /// released: the call holds the info as a callout does.
    package func describeInfo() -> String? {
        guard let context = cContext, let copy = context.copyDescription else { return nil }
        return gate.callOut({ copyInfoDescription(copy, context.info) }, release: { releaseInfo?() }) ?? nil
    }

    package override func finalize() {
        valid.store(false, ordering: .releasing)
        releaseInfoOnce()
    }
}
