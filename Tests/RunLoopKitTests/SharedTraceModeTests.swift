import RunLoopKit
import TestSupport
import Testing

/// Scenarios also driven from C (Tests/c/test_<name>.c), compared with the
/// same Tests/traces/<name>.trace.  This file: common modes, a timer
/// surviving a mode switch, nested runs, queued work.
@Suite struct SharedTraceModeTests {
    /// "timer <tag> fired in <current mode>"
    static func modeTracer(_ trace: Trace, _ tag: String) -> LoopTimer.Handler {
        { _ in trace.add("timer \(tag) fired in \(modeName(Loop.current.currentMode))") }
    }

    @Test func commonModeItemsLiveInEveryCommonMode() throws {
        try expectTrace("common_modes") { trace in
            let loop = Loop.current
            let tracking: Loop.Mode = "tracking", other: Loop.Mode = "other"
            @Sendable func run(_ mode: Loop.Mode) { trace.add("run \(mode): \(loop.run(in: mode, for: .milliseconds(100)))") }
            let keep = LoopSource { trace.add("perform") }
            for mode in [Loop.Mode.default, tracking, other] { try loop.add(keep, to: mode) }

            let early = LoopTimer(after: .milliseconds(20), interval: .seconds(100), Self.modeTracer(trace, "early"))
            try loop.add(early, to: .common)
            trace.add("early in common items: \(yesNo(loop.contains(early, in: .common)))")
            trace.add("early in default: \(yesNo(loop.contains(early, in: .default)))")
            trace.add("early in tracking (not yet common): \(yesNo(loop.contains(early, in: tracking)))")
            run(.default)
            early.nextFireDate = Loop.now + 0.02
            run(tracking)

            trace.add("AddCommonMode tracking")
            loop.addCommonMode(tracking)
            loop.addCommonMode(tracking)
            trace.add("early in tracking: \(yesNo(loop.contains(early, in: tracking)))")
            run(tracking)

            let late = LoopTimer(after: .milliseconds(20), interval: .seconds(100), Self.modeTracer(trace, "late"))
            try loop.add(late, to: .common)
            early.nextFireDate = Loop.now + 0.04
            trace.add("late in tracking: \(yesNo(loop.contains(late, in: tracking)))")
            trace.add("late in other: \(yesNo(loop.contains(late, in: other)))")
            run(tracking)
            early.nextFireDate = Loop.now + 0.02
            late.nextFireDate = Loop.now + 0.02
            run(other)

            trace.add("remove late from tracking by name")
            loop.remove(late, from: tracking)
            trace.add("late in tracking: \(yesNo(loop.contains(late, in: tracking)))")
            trace.add("late in default: \(yesNo(loop.contains(late, in: .default)))")
            trace.add("late in common items: \(yesNo(loop.contains(late, in: .common)))")

            trace.add("source added to tracking by name, then removed from common modes")
            let s = LoopSource { trace.add("perform") }
            try loop.add(s, to: tracking)
            trace.add("s in common items: \(yesNo(loop.contains(s, in: .common)))")
            loop.remove(s, from: .common)
            trace.add("s in tracking: \(yesNo(loop.contains(s, in: tracking)))")

            trace.add("source added to tracking by name and to common modes, then removed from common modes")
            let s2 = LoopSource { trace.add("perform") }
            try loop.add(s2, to: tracking)
            try loop.add(s2, to: .common)
            loop.remove(s2, from: .common)
            trace.add("s2 in tracking: \(yesNo(loop.contains(s2, in: tracking)))")
            trace.add("s2 in default: \(yesNo(loop.contains(s2, in: .default)))")

            trace.add("observer added to other by name, then removed from common modes")
            let o = LoopObserver(activities: .entry) { _, activity in trace.add("o \(activity)") }
            try loop.add(o, to: other)
            loop.remove(o, from: .common)
            trace.add("o in other (not common): \(yesNo(loop.contains(o, in: other)))")
            try loop.add(o, to: tracking)
            loop.remove(o, from: .common)
            trace.add("o in tracking: \(yesNo(loop.contains(o, in: tracking)))")

            trace.add("timer added to default by name, then removed from common modes")
            let t = LoopTimer(after: .seconds(100), Self.modeTracer(trace, "t"))
            try loop.add(t, to: .default)
            loop.remove(t, from: .common)
            trace.add("t in default: \(yesNo(loop.contains(t, in: .default)))")

            for timer in [t, early, late] { timer.invalidate() }
            o.invalidate()
            s.invalidate()
            keep.invalidate()
        }
    }

    @Test func aCommonModeTimerSurvivesAModeSwitch() throws {
        try expectTrace("shared_mode_switch") { trace in
            let loop = Loop.current
            let tracking: Loop.Mode = "tracking"
            let keep = LoopSource {}
            try loop.add(keep, to: .default)
            try loop.add(keep, to: tracking)

            let plain = LoopTimer(after: .seconds(100), interval: .seconds(100), Self.modeTracer(trace, "default-only"))
            let common = LoopTimer(after: .seconds(100), interval: .seconds(100), Self.modeTracer(trace, "common"))
            try loop.add(plain, to: .default)
            try loop.add(common, to: .common)
            @Sendable func rearm() {
                let at = Loop.now + 0.02
                plain.nextFireDate = at
                common.nextFireDate = at + 0.005
            }
            @Sendable func run(_ mode: Loop.Mode) { trace.add("run \(mode): \(loop.run(in: mode, for: .milliseconds(100)))") }

            trace.add("tracking is not common yet")
            rearm(); run(.default)
            rearm(); run(tracking)

            trace.add("mark tracking common")
            loop.addCommonMode(tracking)
            trace.add("default-only in tracking: \(yesNo(loop.contains(plain, in: tracking)))")
            trace.add("common in tracking: \(yesNo(loop.contains(common, in: tracking)))")
            rearm(); run(tracking)
            rearm(); run(.default)

            trace.add("remove common from the common modes")
            loop.remove(common, from: .common)
            trace.add("common in tracking: \(yesNo(loop.contains(common, in: tracking)))")
            trace.add("common valid: \(yesNo(common.isValid))")
            rearm(); run(tracking)

            plain.invalidate()
            common.invalidate()
            keep.invalidate()
        }
    }

    @Test func aCalloutMayRunTheLoopAgainInAnotherOrTheSameMode() throws {
        try expectTrace("nested") { trace in
            let loop = Loop.current
            let inner: Loop.Mode = "inner"
            @Sendable func traceMode(_ label: String) { trace.add("\(label): current mode \(modeName(Loop.current.currentMode))") }
            let outerObserver = LoopObserver(activities: [.entry, .exit]) { _, a in trace.add("outer-mode obs \(a)") }
            let innerObserver = LoopObserver(activities: [.entry, .exit]) { _, a in trace.add("inner-mode obs \(a)") }
            try loop.add(outerObserver, to: .default)
            try loop.add(innerObserver, to: inner)

            trace.add("A: nested run in another mode")
            traceMode("before run")
            let innerTimer = Shared<LoopTimer?>(nil)
            let outer = LoopTimer(after: .milliseconds(20)) { _ in
                let current = Loop.current
                traceMode("outer timer")
                let timer = LoopTimer(after: .milliseconds(20), interval: .seconds(100)) { _ in
                    traceMode("inner timer")
                    trace.add("inner timer: stop")
                    Loop.current.stop()
                }
                innerTimer.value = timer
                do { try current.add(timer, to: inner) } catch { trace.fail("add inner timer: \(error)") }
                trace.add("outer timer: nested run in inner")
                trace.add("outer timer: nested result \(current.run(in: inner, for: .seconds(5)))")
                traceMode("outer timer after nested run")
            }
            let late = LoopTimer(after: .milliseconds(200)) { _ in traceMode("late outer timer") }
            try loop.add(outer)
            try loop.add(late)
            trace.add("A: outer result \(loop.run(in: .default, for: .seconds(5)))")
            traceMode("after run")
            innerTimer.value?.invalidate()
            outerObserver.invalidate()

            trace.add("B: observer runs a nested run in the same mode")
            let nested = Shared(false)
            let runner = LoopObserver(activities: .allActivities) { _, activity in
                trace.add("runner \(activity)")
                if activity == .beforeWaiting && !nested.value {
                    nested.value = true
                    trace.add("runner: nested run in default mode, 0 s")
                    trace.add("runner: nested result \(Loop.current.run(in: .default, for: .zero))")
                }
            }
            let logger = LoopObserver(activities: .allActivities) { _, activity in trace.add("logger \(activity)") }
            try loop.add(runner)
            try loop.add(logger)
            let keep = LoopTimer(after: .seconds(100)) { _ in }
            try loop.add(keep)
            trace.add("B: outer result \(loop.run(in: .default, for: .milliseconds(50)))")
            keep.invalidate()
            runner.invalidate()
            logger.invalidate()
            innerObserver.invalidate()
        }
    }

    @Test func queuedWorkRunsInItsModesInOrderAndWaitsForAWakeUp() throws {
        try expectTrace("perform") { trace in
            let loop = Loop.current
            let other: Loop.Mode = "other", notCommon: Loop.Mode = "notcommon", tracking: Loop.Mode = "tracking"
            @Sendable func work(_ tag: String) -> @Sendable () -> Void {
                { trace.add("work \(tag) ran in \(modeName(Loop.current.currentMode))") }
            }
            @Sendable func run(_ mode: Loop.Mode, _ seconds: Duration, afterSource: Bool = false) -> Loop.RunResult {
                loop.run(in: mode, for: seconds, returnAfterSourceHandled: afterSource)
            }
            let keep = LoopSource {}
            try loop.add(keep, to: .default)
            try loop.add(keep, to: notCommon)

            trace.add("A: queue A for mode other; run default")
            loop.perform(in: [other], work("A"))
            trace.add("A: default: \(run(.default, .milliseconds(20)))")
            trace.add("A: run other (only queued work in it)")
            trace.add("A: other: \(run(other, .milliseconds(20)))")
            trace.add("A: other again: \(run(other, .milliseconds(20)))")

            trace.add("B: queue B1 B2 B3 for default")
            for tag in ["B1", "B2", "B3"] { loop.perform(in: [.default], work(tag)) }
            trace.add("B: default: \(run(.default, .zero))")

            trace.add("C: queue C for common modes; tracking is common, notcommon is not")
            loop.addCommonMode(tracking)
            try loop.add(keep, to: tracking)
            loop.perform(in: [.common], work("C"))
            trace.add("C: notcommon: \(run(notCommon, .zero))")
            trace.add("C: tracking: \(run(tracking, .zero))")

            trace.add("D: queue from another thread while the loop sleeps")
            let sleeping = SleepGate()
            let observer = LoopObserver(activities: [.beforeWaiting, .afterWaiting]) { _, activity in
                trace.add("obs \(activity)")
                if activity == .beforeWaiting { sleeping.loopWillSleep() }
            }
            try loop.add(observer)
            let timer = LoopTimer(after: .milliseconds(300)) { _ in trace.add("timer fired") }
            try loop.add(timer)
            sleeping.arm()
            var thread = spawn {
                sleeping.wait()
                trace.add("other thread: perform without WakeUp")
                loop.perform(in: [.default], work("D1"))
            }
            let start = Loop.now
            trace.add("D: run 0.5 s, returnAfterSourceHandled")
            trace.add("D: result \(run(.default, .milliseconds(500), afterSource: true))")
            trace.check(Loop.now - start >= 0.3 - 0.01, "D1 waited for the timer")
            join(thread)
            sleeping.arm()
            thread = spawn {
                sleeping.wait()
                trace.add("other thread: perform + WakeUp")
                loop.perform(in: [.default], work("D2"))
                loop.wakeUp()
            }
            trace.add("D: run 0.1 s")
            trace.add("D: result \(run(.default, .milliseconds(100)))")
            join(thread)
            observer.invalidate()

            trace.add("E: E1 queues E2")
            let all = LoopObserver(activities: .allActivities) { _, activity in trace.add("obs \(activity)") }
            try loop.add(all)
            loop.perform(in: [.default]) {
                trace.add("work E1 ran; queues E2")
                Loop.current.perform(in: [.default], work("E2"))
            }
            loop.perform(in: [.default], work("E1b"))
            trace.add("E: result \(run(.default, .milliseconds(20)))")
            all.invalidate()
            keep.invalidate()
        }
    }
}
