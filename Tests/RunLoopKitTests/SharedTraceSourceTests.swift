import RunLoopKit
import Testing

/// Scenarios also driven from C (Tests/c/test_<name>.c), compared with the
/// same Tests/traces/<name>.trace.  This file: the order of performs and
/// invalidation from inside callouts.
@Suite struct SharedTraceSourceTests {
    @Test func signalledSourcesRunByOrderThenFirstSignalOncePerPass() throws {
        try expectTrace("source_order") { trace in
            let loop = Loop.current
            let observer = LoopObserver(activities: [.entry, .beforeSources, .beforeWaiting, .exit]) { _, activity in
                trace.add("obs \(activity)")
            }
            try loop.add(observer)
            @Sendable func source(_ order: Int, _ tag: String) -> LoopSource {
                LoopSource(order: order) { trace.add("perform \(tag)") }
            }

            trace.add("A: create a(2) b(1) c(1) d(0); signal a a a, c, b, d, c, b")
            let a = source(2, "a (order 2)"), b = source(1, "b (order 1)")
            let c = source(1, "c (order 1)"), d = source(0, "d (order 0)")
            for s in [a, b, c, d] { try loop.add(s) }
            a.signal(); a.signal(); a.signal()
            sleepSeconds(0.001)  // as in the C driver (CF orders first signals by time)
            c.signal()
            sleepSeconds(0.001)
            b.signal()
            sleepSeconds(0.001)
            d.signal()
            sleepSeconds(0.001)
            c.signal(); b.signal()
            trace.add("A: result \(loop.run(in: .default, for: .milliseconds(50)))")

            trace.add("B: signal x; x's perform signals others")
            let y = source(0, "y (order 0)"), z = source(9, "z (order 9)")
            let xRef = Shared<LoopSource?>(nil)
            let performs = Shared(0)
            let x = LoopSource(order: 5) {
                trace.add("perform x (order 5)")
                if performs.update({ n in defer { n += 1 }; return n }) == 0 {
                    trace.add("x signals y (order 0), z (order 9) and itself")
                    y.signal(); z.signal(); xRef.value?.signal()
                }
            }
            xRef.value = x
            for s in [x, y, z] { try loop.add(s) }
            x.signal()
            trace.add("B: result \(loop.run(in: .default, for: .milliseconds(50)))")

            xRef.value = nil
            for s in [a, b, c, d, x, y, z] { s.invalidate() }
            observer.invalidate()
        }
    }

    @Test func itemsInvalidatedInsideCalloutsStopAtOnce() throws {
        try expectTrace("invalidate_in_callout") { trace in
            let loop = Loop.current
            let keep = LoopTimer(after: .seconds(100)) { _ in }

            // A: a repeating timer invalidates itself.
            let selfTimer = LoopTimer(after: .milliseconds(20), interval: .milliseconds(20)) { timer in
                trace.add("A: timer fired; invalidates itself")
                timer.invalidate()
                trace.add("A: timer valid inside its callout after invalidate: \(yesNo(timer.isValid))")
            }
            try loop.add(selfTimer)
            trace.add("A: result \(loop.run(in: .default, for: .milliseconds(200)))")
            trace.add("A: timer valid: \(yesNo(selfTimer.isValid))")

            // B: an observer invalidates itself.
            try loop.add(keep)
            let selfObserver = LoopObserver(activities: .beforeTimers) { observer, activity in
                trace.add("B: observer \(activity); invalidates itself")
                observer.invalidate()
            }
            try loop.add(selfObserver)
            trace.add("B: result \(loop.run(in: .default, for: .milliseconds(50)))")
            trace.add("B: observer valid: \(yesNo(selfObserver.isValid))")

            // C: a source invalidates itself in its perform.
            let selfRef = Shared<LoopSource?>(nil)
            let selfSource = LoopSource(cancel: { _, mode in trace.add("C: cancel in \(mode)") }) {
                trace.add("C: perform; invalidates itself")
                selfRef.value?.invalidate()
                trace.add("C: source valid: \(yesNo(selfRef.value?.isValid ?? true))")
            }
            selfRef.value = selfSource
            try loop.add(selfSource)
            selfSource.signal()
            trace.add("C: result \(loop.run(in: .default, for: .milliseconds(50)))")
            selfSource.signal()
            trace.add("C: signalled again; result \(loop.run(in: .default, for: .milliseconds(50)))")
            trace.add("C: in default mode: \(yesNo(loop.contains(selfSource, in: .default)))")
            selfRef.value = nil

            // D: two timers due together, each invalidating the other.
            let pair = Shared<[LoopTimer]>([])
            let pairFires = Shared(0)
            let when = Loop.now + 0.03
            let handler: LoopTimer.Handler = { timer in
                pairFires.update { $0 += 1 }
                trace.add("D: a timer fired; invalidates the other")
                pair.value.first { $0 != timer }?.invalidate()
            }
            let t1 = LoopTimer(fireDate: when, handler), t2 = LoopTimer(fireDate: when, handler)
            pair.value = [t1, t2]
            try loop.add(t1)
            try loop.add(t2)
            trace.add("D: result \(loop.run(in: .default, for: .milliseconds(100)))")
            trace.add("D: firings \(pairFires.value); valid: \(yesNo(t1.isValid)) \(yesNo(t2.isValid))")
            pair.value = []

            // E: an observer invalidates the next observer of the same activity.
            let second = LoopObserver(activities: .entry) { _, activity in trace.add("E: observer 2 \(activity)") }
            let first = LoopObserver(activities: .entry) { _, activity in
                trace.add("E: observer 1 \(activity); invalidates observer 2")
                second.invalidate()
            }
            try loop.add(first)
            try loop.add(second)
            trace.add("E: result \(loop.run(in: .default, for: .zero))")
            first.invalidate()

            // F: a source invalidates another one signalled for the same pass.
            let s2 = LoopSource(order: 1, cancel: { _, mode in trace.add("F: source 2: cancel in \(mode)") }) {
                trace.add("F: source 2 perform")
            }
            let s1 = LoopSource(order: 0) {
                trace.add("F: source 1 perform; invalidates source 2")
                s2.invalidate()
            }
            try loop.add(s1)
            try loop.add(s2)
            s1.signal()
            s2.signal()
            trace.add("F: result \(loop.run(in: .default, for: .zero))")
            s1.invalidate()
            keep.invalidate()
        }
    }
}
