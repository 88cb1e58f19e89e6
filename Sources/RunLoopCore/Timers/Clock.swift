import CRunLoopShims
import Synchronization

/// Time as the API speaks it (CF's absolute time: seconds since
/// 2001-01-01 UTC on the wall clock) and as the engine keeps it
/// (CLOCK_MONOTONIC nanoseconds, immune to wall-clock steps).
package enum Clock {
    /// Seconds between 1970-01-01 and 2001-01-01.
    package static let epochOffset: Double = 978_307_200

    /// A deadline that never comes.
    package static let never: UInt64 = .max

    /// CF's latest fire date (TIMER_DATE_LIMIT, 2128-12-31): later dates,
    /// +inf included, are stored and reported as this one.
    package static let fireDateLimit: Double = 4_039_289_856.0

    /// A fire date as CF stores it: at most `fireDateLimit` (NaN is
    /// rejected before; -inf and other past dates are kept as given).
    @inline(__always)
    package static func clampedFireDate(_ date: Double) -> Double { date > fireDateLimit ? fireDateLimit : date }

    /// The longest step a repeating timer takes between two fire dates
    /// (CF's cap, about 16 years): a longer interval (DBL_MAX and +inf
    /// included) repeats every this many seconds, so a fired timer's next
    /// date is always a finite date before `fireDateLimit`.  The interval
    /// itself is kept and reported as given.
    package static let maxTimerStep: Double = 504_911_232.0

    /// Deadlines further than this (about 100 years) are treated as never.
    package static let horizonSeconds: Double = 3.2e9

    package static func absoluteNow() -> Double { rl_wall_seconds() - epochOffset }

    package static func monotonicNow() -> UInt64 { rl_monotonic_ns() }

    /// `seconds` converted to nanoseconds, saturating: NaN and negatives
    /// give 0, anything beyond the horizon gives `never`.
    package static func nanoseconds(_ seconds: Double) -> UInt64 {
        guard seconds > 0 else { return 0 }
        guard seconds < horizonSeconds else { return never }
        return UInt64(seconds * 1e9)
    }

    /// The monotonic deadline `seconds` after `now`, saturating.
    package static func deadline(after seconds: Double, from now: UInt64) -> UInt64 {
        let (sum, overflow) = now.addingReportingOverflow(nanoseconds(seconds))
        return overflow || seconds >= horizonSeconds ? never : sum
    }

    /// The wall clock minus the monotonic one (ns), as fire dates were
    /// last converted through; `Int64.min` before the first conversion.
    private static let offsetNs = Atomic<Int64>(.min)

    /// The offset to convert through: the one kept while the clocks still
    /// agree with it within a millisecond, so equal dates give equal
    /// deadlines (and fire in the order they were scheduled) and later
    /// dates never give earlier ones; the current one once the wall clock
    /// has been stepped (set by hand, by NTP or an RTC correction at boot),
    /// so a date set after a step means the new wall clock.
    private static func wallOffset() -> Int64 {
        let current = rl_clock_offset_ns()
        let kept = offsetNs.load(ordering: .relaxed)
        if kept != .min, abs(current &- kept) <= 1_000_000 { return kept }
        offsetNs.store(current, ordering: .relaxed)  // two threads re-reading store equal values
        return current
    }

    /// The absolute time (CF seconds) of monotonic zero under `offset`.
    private static func absoluteAtMonotonicZero(_ offset: Int64) -> Double {
        Double(offset / 1_000_000_000 - 978_307_200) + Double(offset % 1_000_000_000) / 1e9
    }

    /// The monotonic deadline of an absolute fire date, converted now
    /// (when the date is set, as CF does): `now` for a date not in the
    /// future (−∞ included), so a repeating timer with a past date fires at
    /// once and then every interval from now; `never` beyond the horizon.
    /// A timer keeps its deadline when the wall clock steps later (CF too).
    package static func deadline(forFireDate date: Double) -> UInt64 {
        let now = monotonicNow()
        let ns = (date - absoluteAtMonotonicZero(wallOffset())) * 1e9
        guard ns > Double(now) else { return now }
        guard ns < Double(now) + horizonSeconds * 1e9 else { return never }
        return UInt64(ns)
    }

    /// The absolute fire date of a monotonic deadline (the inverse of
    /// `deadline(forFireDate:)`, under the current wall clock): at most
    /// `fireDateLimit`, which `never` (a deadline that never comes) is.
    package static func fireDate(forDeadline deadline: UInt64) -> Double {
        deadline == never ? fireDateLimit
            : clampedFireDate(absoluteAtMonotonicZero(wallOffset()) + Double(deadline) / 1e9)
    }
}
