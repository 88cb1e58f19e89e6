import Foundation   // RunLoop, Timer, Port: no clash with Loop, LoopTimer, LoopSource
import RunLoopKit
import RunLoopKitExamples
import TestSupport
import Testing

@Suite struct APITests {
    @Test func namesDoNotClashWithFoundation() {
        // Both sets of names resolve unqualified in a file importing both.
        let foundationTypes: [Any.Type] = [RunLoop.self, Timer.self, Port.self]
        let kitTypes: [Any.Type] = [Loop.self, LoopTimer.self, LoopSource.self, LoopObserver.self, LoopExecutor.self]
        #expect(foundationTypes.count + kitTypes.count == 8)
    }

    @Test func modesAreValuesComparedByName() {
        let a: Loop.Mode = "tracking"
        #expect(a == Loop.Mode("tracking"))
        #expect(a != .default)
        #expect(Loop.Mode.default.name == "kCFRunLoopDefaultMode")
        #expect(Loop.Mode.common.name == "kCFRunLoopCommonModes")
        #expect(Set([a, "tracking", .default]).count == 2)
        #expect(!Loop.Mode("bad\0name").isValid)
        #expect(!Loop.Mode(String(repeating: "x", count: 1025)).isValid)
        #expect(Loop.Mode(String(repeating: "x", count: 1024)).isValid)
    }

    @Test func badInputGivesErrorsNotCrashes() {
        let trace = Trace()
        onFreshThread {
            let loop = Loop.current
            let bad = Loop.Mode("bad\0name")
            let timer = LoopTimer(after: .seconds(100)) { _ in }
            do { try loop.add(timer, to: bad); trace.add("added to bad mode") } catch let error as LoopError {
                trace.add("add to bad mode: \(error == .invalidModeName("bad\0name"))")
            } catch { trace.add("unexpected \(error)") }
            trace.add("contains in bad mode: \(loop.contains(timer, in: bad))")
            trace.add("run bad mode: \(loop.run(in: bad, for: .zero))")
            trace.add("run common: \(loop.run(in: .common, for: .zero))")
            trace.add("perform in bad mode: \(loop.perform(in: [bad]) {})")
            timer.invalidate()
            do { try loop.add(timer) } catch { trace.add("add invalidated: \(error)") }

            // A timer belongs to one loop: adding it to another one is refused.
            let other = Shared<Loop?>(nil)
            let scheduled = LoopTimer(after: .seconds(100)) { _ in }
            try? loop.add(scheduled)
            onFreshThread {
                other.value = Loop.current
                do { try Loop.current.add(scheduled) } catch { trace.add("add to another loop: \(error)") }
                // Running another thread's loop is refused.
                trace.add("run from another thread: \(loop.run(in: .default, for: .zero))")
            }
            scheduled.invalidate()
            // That thread has exited: its loop accepts nothing.
            if let gone = other.value {
                do { try gone.add(LoopSource {}) } catch { trace.add("add to exited loop: \(error)") }
                trace.add("perform on exited loop: \(gone.perform {})")
            }
        }
        #expect(trace.lines == [
            "add to bad mode: true", "contains in bad mode: false", "run bad mode: Finished",
            "run common: Finished", "perform in bad mode: false", "add invalidated: the item was invalidated",
            "add to another loop: the item belongs to another run loop", "run from another thread: Finished",
            "add to exited loop: the run loop's thread has exited", "perform on exited loop: false",
        ])
    }

    @Test func itemsReportTheirPropertiesAndDescriptions() {
        let trace = Trace()
        onFreshThread {
            let loop = Loop.current
            let timer = LoopTimer(fireDate: Loop.now + 100, interval: .milliseconds(250), order: 7) { _ in }
            timer.tolerance = .milliseconds(20)
            trace.add("timer: repeats \(timer.repeats), interval \(timer.interval!), order \(timer.order)")
            trace.add("tolerance \(timer.tolerance)")
            let date = Loop.now + 50
            timer.nextFireDate = date
            trace.add("next fire date moved: \(timer.nextFireDate == date)")
            trace.add("one-shot interval: \(String(describing: LoopTimer(after: .zero) { _ in }.interval))")
            let observer = LoopObserver(activities: [.entry, .exit], repeats: false, order: -1) { _, _ in }
            trace.add("observer: \(observer.activities) repeats \(observer.repeats) order \(observer.order)")
            let source = LoopSource(order: 3) {}
            source.signal()
            trace.add("source: order \(source.order) signalled \(source.isSignalled) valid \(source.isValid)")
            try? loop.add(timer, to: "described")
            try? loop.add(source, to: "described")
            trace.add("next timer in described: \(loop.nextTimerFireDate(in: "described") == date)")
            trace.add("next timer in default: \(String(describing: loop.nextTimerFireDate(in: .default)))")
            let text = loop.description
            trace.add("loop description: \(text.hasPrefix("<RLRunLoop 0x")) \(text.contains("described = {"))")
            trace.add("timer description: \(timer.description.contains("interval = 0.25"))")
            trace.add("all modes: \(loop.allModes)")
            trace.add("current mode outside a run: \(String(describing: loop.currentMode))")
            trace.add("activity names: \(Loop.Activity.allActivities) \(Loop.Activity([.beforeWaiting, .afterWaiting]))")
            timer.invalidate()
            source.invalidate()
        }
        #expect(trace.lines == [
            "timer: repeats true, interval 0.25 seconds, order 7", "tolerance 0.02 seconds",
            "next fire date moved: true", "one-shot interval: nil",
            "observer: Entry|Exit repeats false order -1", "source: order 3 signalled true valid true",
            "next timer in described: true", "next timer in default: nil",
            "loop description: true true", "timer description: true",
            "all modes: [kCFRunLoopDefaultMode, described]", "current mode outside a run: nil",
            "activity names: AllActivities BeforeWaiting|AfterWaiting",
        ])
    }

    @Test func aRepeatingTimersStepIsCappedAsInCF() {
        // CF steps at most 504,911,232 s (about 16 years) between fire
        // dates: a longer interval gives a finite next date, never +inf.
        // (A Duration past Int64.max ns saturates: 9e9 s is near the top.)
        let trace = Trace()
        onFreshThread {
            let loop = Loop.current
            for seconds in [9e9, 4e9, 504_911_232.0, 1e8] {
                let fired = Shared(0)
                let start = Loop.now
                let timer = LoopTimer(fireDate: start, interval: .seconds(seconds)) { _ in fired.update { $0 += 1 } }
                try? loop.add(timer, to: "capped")
                loop.run(in: "capped", for: .milliseconds(50))
                let step = (timer.nextFireDate - start).rounded()
                trace.add("\(seconds): fired \(fired.value), step \(step), "
                          + "loop's next \(loop.nextTimerFireDate(in: "capped") == timer.nextFireDate), "
                          + "interval kept \(timer.interval.map { Double($0.components.seconds) } == seconds)")
                timer.invalidate()
            }
        }
        #expect(trace.lines == [
            "9000000000.0: fired 1, step 504911232.0, loop's next true, interval kept true",
            "4000000000.0: fired 1, step 504911232.0, loop's next true, interval kept true",
            "504911232.0: fired 1, step 504911232.0, loop's next true, interval kept true",
            "100000000.0: fired 1, step 100000000.0, loop's next true, interval kept true",
        ])
    }

    @Test func isWaitingIsTrueWhileTheLoopSleeps() {
        let seen = Shared(false)
        onFreshThread {
            let loop = Loop.current
            let asleep = Gate()
            let observer = LoopObserver(activities: .beforeWaiting, repeats: false) { _, _ in asleep.post() }
            try? loop.add(observer)
            try? loop.add(LoopTimer(after: .seconds(100)) { _ in })
            let watcher = spawn {
                asleep.wait()
                // The flag goes up just after BeforeWaiting; poll (bounded) for it.
                let deadline = Loop.now + 5
                while !loop.isWaiting && Loop.now < deadline { sched_yield() }
                seen.value = loop.isWaiting
                loop.stop()
            }
            _ = loop.run(in: .default, for: .seconds(10))
            join(watcher)
        }
        #expect(seen.value)
    }

    @Test func droppedHandlesFreeTheirClosures() {
        final class Token: Sendable {}
        final class WeakRef: @unchecked Sendable { weak var token: Token? }
        let weakToken = WeakRef()
        let fired = Shared(0)
        onFreshThread {
            let token = Token()
            weakToken.token = token
            let loop = Loop.current
            // No wrapper is kept: the loop's reference keeps the timer firing.
            try? loop.add(LoopTimer(after: .milliseconds(1), interval: .milliseconds(1)) { timer in
                _ = token
                if fired.update({ n in n += 1; return n }) == 3 { timer.invalidate() }
            })
            _ = loop.run(in: .default, for: .seconds(5))
        }
        #expect(fired.value == 3)
        #expect(weakToken.token == nil)
    }
}

@Suite struct ExampleTests {
    @Test func observerTrace() {
        let out = Trace()
        onFreshThread { try? observerTraceExample(out.add) }
        #expect(out.lines == ["Entry", "BeforeTimers", "BeforeSources", "BeforeWaiting", "AfterWaiting",
                              "timer fired", "Exit", "run ended: Finished"])
    }

    @Test func commonModeTimer() {
        let out = Trace()
        onFreshThread { try? commonModeTimerExample(out.add) }
        #expect(out.lines == ["default-only ticks in kCFRunLoopDefaultMode", "common ticks in kCFRunLoopDefaultMode",
                              "switch to tracking", "common ticks in tracking"])
    }

    @Test func permanentThreadRunsTasksInOrderOnOneThread() {
        let out = Trace()
        let worker = PermanentThread()
        for i in 1...5 { worker.execute { out.add("task \(i) on worker: \(worker.loop.isCurrent)") } }
        worker.stop()
        worker.execute { out.add("after stop") }   // dropped: the thread has exited
        #expect(out.lines == (1...5).map { "task \($0) on worker: true" })
    }

    @Test func performAndWakeUp() {
        let out = Trace()
        performAndWakeUpExample(out.add)
        #expect(out.lines == ["worker sleeps", "work ran on the worker thread: true", "worker stopped"])
    }

    @Test func loopActor() async {
        let worker = PermanentThread()
        let counter = LoopCounter(on: worker.loop)
        #expect(await counter.increment())
        #expect(await counter.increment())
        #expect(await counter.value == 2)
        worker.stop()
    }
}
