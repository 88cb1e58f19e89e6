import Foundation
import RunLoopKit
import TestSupport
import Testing

/// Scenarios also driven from C (Tests/c/test_<name>.c, ctest): both must
/// print the lines of Tests/traces/<name>.trace, recorded from the real
/// CoreFoundation.  This file: what one pass looks like to observers,
/// one-shot observers, stopping, and the grid of a repeating timer.
@Suite struct SharedTracePassTests {
    @Test func anObserverSeesEveryActivityOfAPass() throws {
        try expectTrace("observer_activities") { trace in
            let loop = Loop.current
            let observer = LoopObserver(activities: .allActivities) { _, activity in trace.add("obs \(activity)") }
            try loop.add(observer, to: .default)

            trace.add("A: one-shot timer in 50 ms, run 1 s")
            let oneShot = LoopTimer(after: .milliseconds(50)) { _ in trace.add("timer fired (one-shot)") }
            try loop.add(oneShot)
            trace.add("A: result \(loop.run(in: .default, for: .seconds(1)))")
            trace.add("A: one-shot timer valid after firing: \(yesNo(oneShot.isValid))")

            trace.add("B: repeating timer (interval 100 s) first in 50 ms, run 200 ms")
            let repeating = LoopTimer(after: .milliseconds(50), interval: .seconds(100)) { _ in
                trace.add("timer fired (repeating)")
            }
            try loop.add(repeating)
            let start = Loop.now
            trace.add("B: result \(loop.run(in: .default, for: .milliseconds(200)))")
            trace.check(Loop.now - start >= 0.2 - 0.001, "B ran at least 200 ms")
            repeating.invalidate()
            observer.invalidate()
        }
    }

    @Test func observersRunByOrderAndAOneShotObserverRunsOnce() throws {
        try expectTrace("observer_order") { trace in
            let loop = Loop.current
            let specs = [(5, "first-added order 5"), (0, "second-added order 0"), (5, "third-added order 5"),
                         (0, "fourth-added order 0"), (-3, "fifth-added order -3")]
            let observers = specs.map { order, tag in
                LoopObserver(activities: [.entry, .exit], order: order) { _, activity in trace.add("\(tag) \(activity)") }
            }
            for observer in observers { try loop.add(observer) }

            let once = LoopObserver(activities: [.beforeWaiting, .afterWaiting], repeats: false) { _, activity in
                trace.add("one-shot \(activity)")
            }
            try loop.add(once)
            trace.add("one-shot repeats: \(yesNo(once.repeats))")

            let timer = LoopTimer(after: .milliseconds(20), interval: .seconds(100)) { _ in trace.add("timer fired") }
            try loop.add(timer)
            trace.add("run 50 ms (timer fires once)")
            trace.add("result \(loop.run(in: .default, for: .milliseconds(50)))")
            timer.invalidate()
            trace.add("one-shot valid: \(yesNo(once.isValid))")
            trace.add("one-shot in default mode: \(yesNo(loop.contains(once, in: .default)))")
            for observer in observers { observer.invalidate() }
        }
    }

    @Test func stopEndsTheInnermostRunFromACalloutOrAnotherThread() throws {
        try expectTrace("stop") { trace in
            let loop = Loop.current
            let sleeping = SleepGate()
            let observer = LoopObserver(activities: .allActivities) { _, activity in
                trace.add("obs \(activity)")
                if activity == .beforeWaiting { sleeping.loopWillSleep() }
            }
            try loop.add(observer)
            let stopper: @Sendable () -> Void = {
                sleeping.wait()
                trace.add("other thread: stop")
                loop.stop()
            }

            trace.add("A: stop from a timer callout")
            let stopping = LoopTimer(after: .milliseconds(20), interval: .seconds(100)) { _ in
                trace.add("timer fired: stop")
                Loop.current.stop()
            }
            try loop.add(stopping)
            trace.add("A: result \(loop.run(in: .default, for: .seconds(5)))")
            stopping.invalidate()

            trace.add("B: stop while not running, then run 50 ms")
            let keep = LoopTimer(after: .seconds(100)) { _ in trace.add("timer fired") }
            try loop.add(keep)
            loop.stop()
            trace.add("B: result \(loop.run(in: .default, for: .milliseconds(50)))")

            trace.add("C: stop from another thread while sleeping")
            sleeping.arm()
            var thread = spawn(stopper)
            trace.add("C: result \(loop.run(in: .default, for: .seconds(5)))")
            join(thread)

            trace.add("D: RLRunLoopRun, stopped from another thread")
            sleeping.arm()
            thread = spawn(stopper)
            loop.run()
            trace.add("D: RLRunLoopRun returned")
            join(thread)

            keep.invalidate()
            observer.invalidate()
        }
    }

    @Test func aRepeatingTimerSkipsMissedFireDatesAndKeepsItsGrid() throws {
        try expectTrace("timer_skip") { trace in
            let loop = Loop.current
            let interval = 0.05
            let first = Loop.now + interval
            let fires = Shared(0)
            let secondAt = Shared(0.0)
            @Sendable func onGrid(_ date: Double) -> (Bool, Int) {
                let k = (date - first) / interval
                let slot = Int((k + 0.5).rounded(.down))
                return (abs(k - Double(slot)) < 0.02, slot)
            }
            let timer = LoopTimer(fireDate: first, interval: .milliseconds(50)) { timer in
                let count = fires.update { n in n += 1; return n }
                let (grid, slot) = onGrid(timer.nextFireDate)
                trace.add("firing \(count): next fire date inside callout is on grid: \(yesNo(grid))")
                if count == 1 {
                    trace.add("firing 1: next fire date inside callout is slot 0: \(yesNo(grid && slot == 0))")
                    trace.add("firing 1: overrun 2.5 intervals")
                    sleepSeconds(2.5 * interval)
                } else {
                    secondAt.value = Loop.now
                    Loop.current.stop()
                }
            }
            try loop.add(timer)
            trace.add("result \(loop.run(in: .default, for: .seconds(2)))")
            trace.add("firings: \(fires.value)")
            trace.add("second firing not before slot 3 (no burst): \(yesNo(secondAt.value >= first + 3 * interval - 0.001))")
            let next = timer.nextFireDate
            let (grid, slot) = onGrid(next)
            trace.add("next fire date on the original grid: \(yesNo(grid))")
            trace.add("next fire date in the future of the second firing: \(yesNo(next > secondAt.value))")
            trace.add("next fire date slot >= 4: \(yesNo(slot >= 4))")
            timer.invalidate()
        }
    }

    /// Tests/c/test_timer_moved.c: timers due together are each checked
    /// again when their turn comes; one an earlier callout moved ahead
    /// fires at its new date, once.
    @Test func aTimerMovedBeforeItsTurnFiresAtItsNewDate() throws {
        try expectTrace("timer_moved") { trace in
            let loop = Loop.current
            let keep = LoopTimer(fireDate: Loop.now + 1000) { _ in }
            try loop.add(keep)

            let moved = Shared<LoopTimer?>(nil)
            let first = LoopTimer(fireDate: Loop.now - 0.3) { _ in
                trace.add("A: first fired: moves the second 50 ms ahead")
                moved.value?.nextFireDate = Loop.now + 0.05
            }
            moved.value = LoopTimer(fireDate: Loop.now - 0.2) { _ in trace.add("A: second fired") }
            let third = LoopTimer(fireDate: Loop.now - 0.1) { _ in trace.add("A: third fired") }
            for timer in [first, moved.value!, third] { try loop.add(timer) }
            trace.add("A: run 0 s: \(loop.run(in: .default, for: .zero))")
            trace.add("A: second valid: \(yesNo(moved.value!.isValid)), in mode: \(yesNo(loop.contains(moved.value!)))")
            trace.add("A: run 150 ms: \(loop.run(in: .default, for: .milliseconds(150)))")
            trace.add("A: second valid: \(yesNo(moved.value!.isValid)), in mode: \(yesNo(loop.contains(moved.value!)))")

            let repeating = Shared<LoopTimer?>(nil)
            let fires = Shared(0)
            let mover = LoopTimer(fireDate: Loop.now - 0.3) { _ in
                trace.add("B: mover fired: moves the repeating timer 50 ms ahead")
                repeating.value?.nextFireDate = Loop.now + 0.05
            }
            repeating.value = LoopTimer(fireDate: Loop.now - 0.2, interval: .seconds(10)) { _ in
                let count = fires.update { n in n += 1; return n }
                trace.add("B: repeating timer fired (\(count))")
            }
            try loop.add(mover)
            try loop.add(repeating.value!)
            trace.add("B: run 0 s: \(loop.run(in: .default, for: .zero))")
            trace.add("B: repeating fires so far: \(fires.value)")
            trace.add("B: run 150 ms: \(loop.run(in: .default, for: .milliseconds(150)))")
            let ahead = repeating.value!.nextFireDate - Loop.now
            trace.add("B: repeating fires: \(fires.value), next fire date 9-11 s ahead: \(yesNo(ahead > 9 && ahead < 11))")
            repeating.value!.invalidate()

            let past = Shared<LoopTimer?>(nil)
            let pastMover = LoopTimer(fireDate: Loop.now - 0.3) { _ in
                trace.add("C: first fired: moves the second to another past date")
                past.value?.nextFireDate = Loop.now - 1.0
            }
            past.value = LoopTimer(fireDate: Loop.now - 0.2) { _ in trace.add("C: second fired") }
            let last = LoopTimer(fireDate: Loop.now - 0.1) { _ in trace.add("C: third fired") }
            for timer in [pastMover, past.value!, last] { try loop.add(timer) }
            trace.add("C: run 0 s: \(loop.run(in: .default, for: .zero))")
            trace.add("C: second valid: \(yesNo(past.value!.isValid))")

            keep.invalidate()
            moved.value = nil
            repeating.value = nil
            past.value = nil
        }
    }

    /// Tests/c/test_timer_removed.c: a due timer that an earlier callout
    /// takes out of the loop does not fire; a repeating timer that takes
    /// itself out still moves on to its next date.
    @Test func aTimerRemovedBeforeItsTurnDoesNotFire() throws {
        try expectTrace("timer_removed") { trace in
            let loop = Loop.current
            let keep = LoopTimer(fireDate: Loop.now + 1000) { _ in }
            try loop.add(keep)

            let removed = Shared<LoopTimer?>(nil)
            let remover = LoopTimer(fireDate: Loop.now - 0.2) { _ in
                trace.add("A: first fired: removes the second")
                if let timer = removed.value { Loop.current.remove(timer) }
            }
            removed.value = LoopTimer(fireDate: Loop.now - 0.1) { _ in trace.add("A: second fired") }
            try loop.add(remover)
            try loop.add(removed.value!)
            trace.add("A: run 0 s: \(loop.run(in: .default, for: .zero))")
            trace.add("A: second valid: \(yesNo(removed.value!.isValid)), in mode: \(yesNo(loop.contains(removed.value!)))")
            try loop.add(removed.value!)
            trace.add("A: added again; run 0 s: \(loop.run(in: .default, for: .zero))")
            trace.add("A: second valid: \(yesNo(removed.value!.isValid))")

            let readded = Shared<LoopTimer?>(nil)
            let readder = LoopTimer(fireDate: Loop.now - 0.2) { _ in
                trace.add("B: first fired: removes the second and adds it back")
                if let timer = readded.value {
                    Loop.current.remove(timer)
                    try? Loop.current.add(timer)
                }
            }
            readded.value = LoopTimer(fireDate: Loop.now - 0.1) { _ in trace.add("B: second fired") }
            try loop.add(readder)
            try loop.add(readded.value!)
            trace.add("B: run 0 s: \(loop.run(in: .default, for: .zero))")
            trace.add("B: second valid: \(yesNo(readded.value!.isValid))")

            // Every 50 ms from 120 ms ago: its next slot is 0-50 ms ahead.
            let fires = Shared(0)
            let selfRemover = LoopTimer(fireDate: Loop.now - 0.12, interval: .milliseconds(50)) { timer in
                let count = fires.update { n in n += 1; return n }
                trace.add("C: repeating timer fired (\(count)): removes itself")
                Loop.current.remove(timer)
            }
            try loop.add(selfRemover)
            trace.add("C: run 0 s: \(loop.run(in: .default, for: .zero))")
            let ahead = selfRemover.nextFireDate - Loop.now
            trace.add("C: valid: \(yesNo(selfRemover.isValid)), in mode: \(yesNo(loop.contains(selfRemover))), "
                      + "next fire date 0-50 ms ahead: \(yesNo(ahead > 0 && ahead <= 0.05))")
            try loop.add(selfRemover)
            trace.add("C: added again; run 0 s: \(loop.run(in: .default, for: .zero))")
            trace.add("C: fires: \(fires.value)")
            trace.add("C: run 200 ms: \(loop.run(in: .default, for: .milliseconds(200)))")
            trace.add("C: fires: \(fires.value)")

            selfRemover.invalidate()
            keep.invalidate()
            removed.value = nil
            readded.value = nil
        }
    }

    /// Tests/c/test_timer_nested_due.c: a nested run from a timer's
    /// callout fires the other timers due in the same pass; the outer pass
    /// does not fire them again.
    @Test func aNestedRunFiresTheOtherDueTimers() throws {
        try expectTrace("timer_nested_due") { trace in
            let loop = Loop.current
            let keep = LoopTimer(fireDate: Loop.now + 1000) { _ in }
            let fires = Shared(0)
            let modal = LoopTimer(fireDate: Loop.now - 0.3) { _ in
                trace.add("first fired: runs the loop for 100 ms")
                trace.add("first: nested run: \(Loop.current.run(in: .default, for: .milliseconds(100)))")
                trace.add("first: back in its callout")
            }
            let second = LoopTimer(fireDate: Loop.now - 0.2) { _ in trace.add("second fired") }
            let repeating = LoopTimer(fireDate: Loop.now - 0.1, interval: .seconds(10)) { _ in
                let count = fires.update { n in n += 1; return n }
                trace.add("repeating fired (\(count))")
            }
            for timer in [keep, modal, second, repeating] { try loop.add(timer) }
            trace.add("outer run 0 s: \(loop.run(in: .default, for: .zero))")
            trace.add("second valid: \(yesNo(second.isValid)); repeating fires: \(fires.value)")
            repeating.invalidate()
            keep.invalidate()
        }
    }

    /// Tests/c/test_timer_burst_order.c: 1,200 timers added in shuffled
    /// order, all due at once, fire by date; the earliest one's handler
    /// invalidates one later timer and moves another past the burst, and
    /// neither fires.
    @Test func aBurstOfShuffledTimersFiresInDateOrder() throws {
        try expectTrace("timer_burst_order") { trace in
            let loop = Loop.current
            let n = 1200, invalidated = 600, moved = 900
            var perm = Array(0 ..< n)
            var s: UInt64 = 0x9E37_79B9_7F4A_7C15
            for i in stride(from: n, to: 1, by: -1) {
                s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                perm.swapAt(i - 1, Int((s >> 33) % UInt64(i)))
            }
            let order = Shared<[Int]>([])
            let timers = Shared<[LoopTimer?]>(Array(repeating: nil, count: n))
            let base = Loop.now + 0.3
            for k in perm {
                let timer = LoopTimer(fireDate: base + Double(k) * 1e-4) { _ in
                    order.update { $0.append(k) }
                    if k == 0 {
                        timers.value[invalidated]?.invalidate()
                        timers.value[moved]?.nextFireDate = Loop.now + 1000
                    }
                }
                timers.update { $0[k] = timer }
                try loop.add(timer)
            }
            let allDue = base + Double(n) * 1e-4 + 0.05
            while Loop.now < allDue { Thread.sleep(forTimeInterval: allDue - Loop.now) }
            trace.add("run 0 s: \(loop.run(in: .default, for: .zero))")
            let fired = order.value
            let inOrder = zip(fired, fired.dropFirst()).allSatisfy { $0 < $1 }
            trace.add("fired \(fired.count) of \(n), in fire-date order: \(yesNo(inOrder))")
            trace.add("the invalidated and the moved timer skipped: "
                      + yesNo(!fired.contains(invalidated) && !fired.contains(moved)))
            let all = timers.value.compactMap { $0 }
            trace.add("moved timer valid: \(yesNo(all[moved].isValid)), the rest invalid: "
                      + yesNo(!all[0].isValid && !all[n - 1].isValid))
            all[moved].invalidate()
        }
    }
}
