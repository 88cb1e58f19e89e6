import CRunLoop
import Synchronization

/// A loop's counters (RLRunLoopGetStatistics).  Written only by the loop's
/// thread, with one atomic load and one atomic store per increment (plain
/// moves on x86-64: no read-modify-write); read from any thread one
/// counter at a time.  The layout matches `RLRunLoopStatistics` from
/// `passes` on, so a snapshot is a loop of loads into the C struct.
/// A non-copyable value stored in the loop's Insight: the counters are
/// one block, with no object around them.
package struct Statistics: ~Copyable, @unchecked Sendable {
    /// Indices into the counter array, in the C struct's field order.
    package enum Counter: Int {
        case passes = 0, sleeps
        case wakeUpsByDescriptor, wakeUpsByWakeUp, wakeUpsByTimer, wakeUpsByTimeout
        case timersFired, timersLate, timerSlotsSkipped
        case lateness0  // RL_RUN_LOOP_LATENESS_BUCKETS buckets from here
        case version0Performed = 33, version1Performed, observersCalled, blocksRun
        case longestCallout, longestCalloutKind
        case busyYields  // after the C struct's reserved2
    }
    package static let latenessBuckets = 24
    private static let count = Counter.busyYields.rawValue + 1

    private let values: UnsafeMutablePointer<Atomic<UInt64>>

    package init() {
        values = .allocate(capacity: Self.count)
        for i in 0..<Self.count { (values + i).initialize(to: Atomic(0)) }
    }

    deinit {
        values.deinitialize(count: Self.count)
        values.deallocate()
    }

    /// Loop thread only.
    @inline(__always)
    package func bump(_ counter: Counter, by n: UInt64 = 1) {
        let p = values + counter.rawValue
        p.pointee.store(p.pointee.load(ordering: .acquiring) &+ n, ordering: .releasing)
    }

    /// Loop thread only: counts a timer fired `lateNs` after its fire
    /// date, whose window was `windowNs` wide.
    @inline(__always)
    package func timerFired(lateNs: UInt64, windowNs: UInt64) {
        bump(.timersFired)
        if lateNs > windowNs &+ 1_000_000 { bump(.timersLate) }
        let micros = lateNs / 1000
        let bucket = micros == 0 ? 0 : min(Self.latenessBuckets - 1, 64 - micros.leadingZeroBitCount)
        let p = values + Counter.lateness0.rawValue + bucket
        p.pointee.store(p.pointee.load(ordering: .acquiring) &+ 1, ordering: .releasing)
    }

    /// Loop thread only: a callout of `kind` took `ns`.
    @inline(__always)
    package func callout(_ kind: CalloutKind, took ns: UInt64) {
        switch kind {
        case .observer: bump(.observersCalled)
        case .source: bump(.version0Performed)
        case .descriptor: bump(.version1Performed)
        case .block: bump(.blocksRun)
        case .timer, .none: break  // timers are counted by timerFired
        }
        let longest = values + Counter.longestCallout.rawValue
        if ns > longest.pointee.load(ordering: .acquiring) {
            longest.pointee.store(ns, ordering: .releasing)
            values[Counter.longestCalloutKind.rawValue].store(UInt64(kind.rawValue), ordering: .releasing)
        }
    }

    /// One counter.  Any thread.
    package func value(_ counter: Counter) -> UInt64 { values[counter.rawValue].load(ordering: .acquiring) }

    /// Any thread.
    package func reset() {
        for i in 0..<Self.count { values[i].store(0, ordering: .releasing) }
    }

    /// Fills the caller's struct up to its `size` (which stays as given).
    /// Returns false if `size` does not cover `passes`.
    package func snapshot(into out: UnsafeMutablePointer<RLRunLoopStatistics>) -> Bool {
        let size = Int(out.pointee.size)
        let first = MemoryLayout<RLRunLoopStatistics>.offset(of: \RLRunLoopStatistics.passes)!
        let kindOffset = MemoryLayout<RLRunLoopStatistics>.offset(of: \RLRunLoopStatistics.longestCalloutKind)!
        let yieldsOffset = MemoryLayout<RLRunLoopStatistics>.offset(of: \RLRunLoopStatistics.busyYields)!
        guard size >= first + 8 else { return false }
        var full = RLRunLoopStatistics()
        withUnsafeMutableBytes(of: &full) { raw in
            for i in 0..<Counter.longestCalloutKind.rawValue {
                raw.storeBytes(of: values[i].load(ordering: .acquiring), toByteOffset: first + 8 * i, as: UInt64.self)
            }
            let kind = Int32(truncatingIfNeeded: values[Counter.longestCalloutKind.rawValue].load(ordering: .acquiring))
            raw.storeBytes(of: kind, toByteOffset: kindOffset, as: Int32.self)
            raw.storeBytes(of: values[Counter.busyYields.rawValue].load(ordering: .acquiring), toByteOffset: yieldsOffset,
                           as: UInt64.self)
        }
        let limit = min(size, MemoryLayout<RLRunLoopStatistics>.size)
        withUnsafeBytes(of: &full) { src in
            UnsafeMutableRawPointer(out).advanced(by: first)
                .copyMemory(from: src.baseAddress!.advanced(by: first), byteCount: limit - first)
        }
        return true
    }
}
