import CRunLoopShims

/// Time as the API speaks it (CF's absolute time: seconds since
/// 2001-01-01 UTC on the wall clock) and as the engine keeps it
/// (CLOCK_MONOTONIC nanoseconds, immune to wall-clock steps).
package enum Clock {
    /// Seconds between 1970-01-01 and 2001-01-01.
    package static let epochOffset: Double = 978_307_200

    /// A deadline that never comes.
    package static let never: UInt64 = .max

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

    /// One reading of both clocks, taken once: every fire date converts
    /// through it, so equal dates give equal deadlines (and so fire in the
    /// order they were scheduled) and later dates never give earlier ones.
    private static let base = (absolute: absoluteNow(), monotonic: monotonicNow())

    /// The monotonic deadline of an absolute fire date (1 = long past).
    package static func deadline(forFireDate date: Double) -> UInt64 {
        let offset = date - base.absolute
        if offset >= 0 { return deadline(after: offset, from: base.monotonic) }
        let back = nanoseconds(-offset)
        return base.monotonic > back ? base.monotonic - back : 1
    }
}
