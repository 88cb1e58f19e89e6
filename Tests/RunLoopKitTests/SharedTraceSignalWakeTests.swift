import RunLoopKit
import Glibc
import TestSupport
import Testing

/// The scenario of Tests/c/test_rl_signal_wake.c (`signalAndWakeUp`, C's
/// RLRunLoopSourceSignalAndWakeUp), compared with the same
/// Tests/traces/rl_signal_wake.trace.
@Suite struct SharedTraceSignalWakeTests {
    @Test func signalAndWakeUpWakesEveryLoopHoldingTheSource() throws {
        try expectTrace("rl_signal_wake") { trace in
            let loop = Loop.current
            let sleeping = SleepGate()
            let quiet = Shared(false)
            let performs = Shared(0)
            let observer = LoopObserver(activities: .allActivities) { _, activity in
                trace.add("obs \(activity)")
                if activity == .beforeWaiting { sleeping.loopWillSleep() }
            }
            try loop.add(observer)
            let source = LoopSource {
                performs.update { $0 += 1 }
                if !quiet.value { trace.add("perform source") }
            }
            try loop.add(source)
            @Sendable func run(_ seconds: Double, afterSource: Bool = true) -> Loop.RunResult {
                loop.run(in: .default, for: .milliseconds(Int(seconds * 1000)), returnAfterSourceHandled: afterSource)
            }

            trace.add("A: another thread signals and wakes up a sleeping loop")
            sleeping.arm()
            var thread = spawn {
                sleeping.wait()
                trace.add("other thread: signal and wake up")
                source.signalAndWakeUp()
            }
            trace.add("A: result \(run(5))")
            join(thread)

            trace.add("B: three calls before the loop runs")
            source.signalAndWakeUp()
            source.signalAndWakeUp()
            source.signalAndWakeUp()
            trace.add("B: signalled \(yesNo(source.isSignalled))")
            trace.add("B: result \(run(5))")

            trace.add("C: signal only, then signal and wake up 50 ms later")
            sleeping.arm()
            thread = spawn {
                sleeping.wait()
                trace.add("other thread: signal only")
                source.signal()
                sleepSeconds(0.05)
                trace.add("other thread: signal and wake up")
                source.signalAndWakeUp()
            }
            let start = Loop.now
            trace.add("C: result \(run(5))")
            trace.check(Loop.now - start >= 0.05 - 0.01, "C woke with the second call")
            join(thread)
            loop.remove(observer)

            trace.add("D: a source in two sleeping loops; one call wakes both")
            let woke = [Shared(0), Shared(0)]
            let wokeHere = LoopObserver(activities: .afterWaiting) { _, _ in woke[0].update { $0 += 1 } }
            try loop.add(wokeHere)
            performs.value = 0
            let other = Shared<Loop?>(nil)
            let stop = Shared(false)
            let ready = Gate(), helperAsleep = SleepGate()
            helperAsleep.arm()
            let helper = spawn {
                let l = Loop.current
                // its first sleep: a loop that is not running yet ignores
                // wake-ups, so the call must come after this
                let wokeThere = LoopObserver(activities: [.beforeWaiting, .afterWaiting]) { _, activity in
                    if activity == .afterWaiting { woke[1].update { $0 += 1 } }
                    if activity == .beforeWaiting { helperAsleep.loopWillSleep() }
                }
                try? l.add(wokeThere)
                try? l.add(source)
                other.value = l
                ready.post()
                while !stop.value { _ = l.run(in: .default, for: .seconds(5)) }
                wokeThere.invalidate()
            }
            ready.wait()
            helperAsleep.wait()
            sleeping.arm()
            let sleeper = LoopObserver(activities: .beforeWaiting) { _, _ in sleeping.loopWillSleep() }
            try loop.add(sleeper)
            thread = spawn {
                sleeping.wait()
                trace.add("other thread: signal and wake up")
                source.signalAndWakeUp()
            }
            _ = run(0.2, afterSource: false)
            join(thread)
            for _ in 0..<500 where woke[1].value == 0 { sleepSeconds(0.002) }
            trace.add("D: this loop woke \(yesNo(woke[0].value > 0)), "
                      + "the other loop woke \(yesNo(woke[1].value > 0)), "
                      + "performs \(performs.value)")
            stop.value = true
            other.value?.stop()
            join(helper)
            other.value?.remove(source)
            other.value = nil
            wokeHere.invalidate()
            sleeper.invalidate()

            trace.add("E: signal and signal-and-wake-up race at a sleeping loop")
            let rounds = 300
            let round = Shared(0)
            let acked = [Shared(0), Shared(0)]
            let next = Shared(0)
            let racer = LoopObserver(activities: .beforeWaiting) { _, _ in
                if sleeping.take() { round.value = next.update { n in n += 1; return n } }
            }
            try loop.add(racer)
            let signallers = (0..<2).map { which in
                spawn {
                    var seen = 0
                    while true {
                        var now = round.value
                        while now == seen { sched_yield(); now = round.value }
                        if now < 0 { return }
                        seen = now
                        if which == 1 { source.signalAndWakeUp() } else { source.signal() }
                        acked[which].value = now
                    }
                }
            }
            var handled = 0
            performs.value = 0
            quiet.value = true
            for _ in 0..<rounds {
                sleeping.arm()
                if run(5) == .handledSource { handled += 1 }
                let last = next.value
                while acked[0].value < last
                    || acked[1].value < last {}
                while source.isSignalled { _ = run(0) }
            }
            round.value = -1
            signallers.forEach(join)
            quiet.value = false
            trace.add("E: rounds handled \(handled) of \(rounds)")
            trace.check(performs.value >= rounds, "every round performed")
            racer.invalidate()
            source.invalidate()

            trace.add("F: a source in no loop, then added; an invalidated source")
            let lone = LoopSource { trace.add("perform source") }
            lone.signalAndWakeUp()
            trace.add("F: in no loop, signalled \(yesNo(lone.isSignalled))")
            try loop.add(lone)
            trace.add("F: added, result \(run(0))")
            lone.invalidate()
            lone.signalAndWakeUp()
            trace.add("F: invalidated, signalled \(yesNo(lone.isSignalled))")

            trace.add("G: signalled and woken here, then moved to a sleeping loop")
            let moving = LoopSource { trace.add("perform source") }
            try loop.add(moving)
            moving.signalAndWakeUp()  // this loop is not running: nobody looks
            loop.remove(moving)
            let helperLoop = Shared<Loop?>(nil), helperResult = Shared<Loop.RunResult?>(nil)
            let asleep = SleepGate()
            asleep.arm()
            let g = spawn {
                let l = Loop.current
                helperLoop.value = l
                let o = LoopObserver(activities: .beforeWaiting) { _, _ in asleep.loopWillSleep() }
                try? l.add(o)
                let keep = LoopSource {}  // the mode is not empty
                try? l.add(keep)
                helperResult.value = l.run(in: .default, for: .seconds(5), returnAfterSourceHandled: true)
                keep.invalidate()
                o.invalidate()
            }
            asleep.wait()
            let moved = Loop.now
            try helperLoop.value?.add(moving)
            join(g)
            trace.add("G: other loop result \(helperResult.value.map { "\($0)" } ?? "none")")
            trace.check(Loop.now - moved < 2.0, "G woke at once")
            moving.invalidate()
            helperLoop.value = nil
            observer.invalidate()
        }
    }
}
