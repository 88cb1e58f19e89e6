@testable import RunLoopCore
import TestSupport
import Testing

/// Scenarios also driven from C (Tests/c/test_<name>.c): both must produce
/// the same lines as Tests/traces/<name>.trace, recorded from the real CF.
@Suite struct SharedTraceTests {
    @Test func observerActivities() throws {
        let trace = Trace()
        onFreshThread {
            let loop = Registry.shared.current()!
            let observer = makeObserver { _, activity in trace.add("obs \(activityNames[activity]!)") }
            _ = loop.add(.observer(observer), to: .default)

            trace.add("A: one-shot timer in 50 ms, run 1 s")
            let oneShot = makeTimer(in: 0.05) { _ in trace.add("timer fired (one-shot)") }
            _ = loop.add(.timer(oneShot), to: .default)
            var result = loop.run(.default, seconds: 1.0, returnAfterSourceHandled: false)
            trace.add("A: result \(resultNames[result]!)")
            trace.add("A: one-shot timer valid after firing: \(oneShot.isValid ? "yes" : "no")")
            oneShot.releaseRef()

            trace.add("B: repeating timer (interval 100 s) first in 50 ms, run 200 ms")
            let repeating = makeTimer(in: 0.05, interval: 100) { _ in trace.add("timer fired (repeating)") }
            _ = loop.add(.timer(repeating), to: .default)
            let start = Clock.monotonicNow()
            result = loop.run(.default, seconds: 0.2, returnAfterSourceHandled: false)
            trace.add("B: result \(resultNames[result]!)")
            #expect(Clock.monotonicNow() - start >= 199_000_000)
            repeating.invalidate()
            repeating.releaseRef()
            observer.invalidate()
            observer.releaseRef()
        }
        #expect(trace.lines == (try Trace.expected("observer_activities")))
    }
}
