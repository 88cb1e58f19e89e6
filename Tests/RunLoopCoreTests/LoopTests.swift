import CRunLoop
import CRunLoopShims
import Foundation
@testable import RunLoopCore
import Synchronization
import TestSupport
import Testing

@Suite struct CrossThreadTests {
    @Test func signalAndWakeUpFromOtherThreadsRunOnTheLoopThread() {
        let performed = Atomic<Int>(0)
        let wrongThread = Atomic<Int>(0)
        onFreshThread {
            let loop = Registry.shared.current()!
            let tid = rl_gettid()
            let source = makeSource {
                if rl_gettid() != tid { wrongThread.add(1, ordering: .relaxed) }
                performed.add(1, ordering: .relaxed)
            }
            _ = loop.add(.source(source), to: .default)
            // Keep the loop alive and bounded: a long timer.
            let keepAlive = makeTimer(in: 100) { _ in }
            _ = loop.add(.timer(keepAlive), to: .default)
            let producer = Thread {
                for _ in 0..<200 {
                    source.signal()
                    loop.wakeUp()
                    // Wait until the loop took it, so each signal counts.
                    while source.isSignalled { usleep(50) }
                }
                loop.stop()
            }
            producer.start()
            var result = RunResult.timedOut
            while result != .stopped {
                result = loop.run(.default, seconds: 5, returnAfterSourceHandled: false)
            }
            keepAlive.invalidate()
            keepAlive.releaseRef()
            source.invalidate()
            source.releaseRef()
        }
        #expect(performed.load(ordering: .relaxed) == 200)
        #expect(wrongThread.load(ordering: .relaxed) == 0)
    }

    @Test func stopFromAnotherThreadEndsASleepingRun() {
        onFreshThread {
            let loop = Registry.shared.current()!
            let keepAlive = makeTimer(in: 100) { _ in }
            _ = loop.add(.timer(keepAlive), to: .default)
            let stopper = Thread {
                while !loop.isWaiting { usleep(100) }
                loop.stop()
            }
            stopper.start()
            #expect(loop.run(.default, seconds: 10, returnAfterSourceHandled: false) == .stopped)
            keepAlive.invalidate()
            keepAlive.releaseRef()
        }
    }

    @Test func performFromAnotherThreadRunsInMatchingModeOnly() {
        let trace = Trace()
        onFreshThread {
            let loop = Registry.shared.current()!
            let keepAlive = makeTimer(in: 100) { _ in }
            _ = loop.add(.timer(keepAlive), to: .common)
            let other = mode("swift-perform-other")
            _ = loop.add(.timer(keepAlive), to: other)
            let sender = Thread {
                _ = loop.perform(in: [other]) { trace.add("other-mode block") }
                _ = loop.perform(in: [.common]) { trace.add("common block") }
                _ = loop.perform(in: [.default]) { trace.add("default block") }
                loop.wakeUp()
            }
            sender.start()
            while trace.lines.count < 2 { _ = loop.run(.default, seconds: 0.01, returnAfterSourceHandled: false) }
            _ = loop.run(other, seconds: 0, returnAfterSourceHandled: false)
            keepAlive.invalidate()
            keepAlive.releaseRef()
        }
        #expect(trace.lines == ["common block", "default block", "other-mode block"])
    }

    @Test func mainLoopIsTheSameFromEveryThread() {
        let main = Registry.shared.mainLoop()!
        let seen = Mutex<Loop?>(nil)
        onFreshThread { seen.withLock { $0 = Registry.shared.mainLoop() } }
        #expect(seen.withLock { $0 } === main)
        #expect(main.isMain)
    }
}

@Suite struct TeardownTests {
    @Test func threadExitRemovesItemsAndReleasesThem() {
        let events = Trace()
        let handleBox = Atomic<UInt64>(0)
        onFreshThread {
            let loop = Registry.shared.current()!
            handleBox.store(loop.handle, ordering: .relaxed)
            let source = makeSource(cancel: { _, name in events.add("cancel \(name)") },
                                    release: { events.add("source released") }) {}
            _ = loop.add(.source(source), to: .default)
            _ = loop.add(.source(source), to: mode("swift-teardown"))
            source.releaseRef()  // the loop keeps it alive until the thread exits
            HandleTable.retainKnown(loop.handle)  // keep the loop past its thread
        }
        #expect(events.lines.sorted() == ["cancel kCFRunLoopDefaultMode", "cancel swift-teardown", "source released"].sorted())
        #expect(events.lines.last == "source released")
        let loopHandle = handleBox.load(ordering: .relaxed)
        // The retained handle is still good, and Stop/WakeUp are harmless.
        guard case .success(let object) = HandleTable.shared.retain(UInt(loopHandle), kind: .runLoop) else {
            Issue.record("retained loop handle went stale")
            return
        }
        let loop = object as! Loop
        loop.stop()
        loop.wakeUp()
        #expect(loop.add(.timer(makeTimer(in: 1) { _ in }), to: .default).isFailure)
        loop.releaseRef()
        loop.releaseRef()
        #expect(HandleTable.shared.retainCount(loopHandle) == nil)
    }
}

/// The pass's steps hide no rule: a source signalled before the sources
/// step is performed in that pass, wherever the blocks step stands
/// (Loop/PendingSources.swift).
@Suite struct PassOrderTests {
    /// One pass (no sleep) that returns after a source: HandledSource, the
    /// source performed once, for a signal from a BeforeSources observer on
    /// the loop's thread and for one from another thread made before the
    /// pass, for a source of one loop and for a source of two loops (a
    /// ring-queued signal was found only by the blocks step once).
    @Test func aSourceSignalledBeforeTheSourcesStepIsPerformedInThatPass() {
        let lines = Trace()
        onFreshThread {
            let loop = Registry.shared.current()!
            let other = OtherLoop()
            let order = mode("pass-order")
            var performs = 0
            let source = makeSource { performs += 1 }
            _ = loop.add(.source(source), to: order)
            // A block first: the loop has an inbox, as a busy one does.
            _ = loop.perform(in: [order]) {}
            _ = loop.run(order, seconds: 0, returnAfterSourceHandled: false)
            #expect(loop.inbox != nil)

            func onePass(_ route: String) {
                performs = 0
                let result = loop.run(order, seconds: 0, returnAfterSourceHandled: true)
                lines.add("\(route): \(resultNames[result]!), performed \(performs)")
                // Nothing left for the next case, whatever this one did.
                while source.isSignalled { _ = loop.run(order, seconds: 0, returnAfterSourceHandled: false) }
            }
            var signalInObserver = false
            let observer = makeObserver(Activity.beforeSources) { _, _ in
                if signalInObserver { source.signal() }
                signalInObserver = false
            }
            _ = loop.add(.observer(observer), to: order)
            signalInObserver = true
            onePass("BeforeSources observer, one loop")
            onFreshThread { source.signal() }
            onePass("another thread, one loop")
            _ = other.loop.add(.source(source), to: order)
            signalInObserver = true
            onePass("BeforeSources observer, two loops")
            onFreshThread { source.signal() }
            onePass("another thread, two loops")
            other.finish()
            observer.invalidate()
            observer.releaseRef()
            source.invalidate()
            source.releaseRef()
        }
        #expect(lines.lines == [
            "BeforeSources observer, one loop: HandledSource, performed 1",
            "another thread, one loop: HandledSource, performed 1",
            "BeforeSources observer, two loops: HandledSource, performed 1",
            "another thread, two loops: HandledSource, performed 1",
        ])
    }

    /// A second thread's loop, alive until `finish()`.
    final class OtherLoop: @unchecked Sendable {
        private(set) var loop: Loop!
        private let made = DispatchSemaphore(value: 0)
        private let done = DispatchSemaphore(value: 0)
        private var thread: pthread_t?

        init() {
            thread = spawn { [self] in
                loop = Registry.shared.current()!
                made.signal()
                done.wait()
            }
            made.wait()
        }

        func finish() {
            done.signal()
            if let thread { join(thread) }
        }
    }
}

@Suite struct GiveWayTests {
    /// rl_stats's last three lines from Swift: a source that re-signals
    /// itself keeps a run busy for 50 ms and the loop gives its CPU away
    /// (at least 10 times, at most once per 50 µs and once per pass); one-pass
    /// runs and a source signalled on every other timer tick never give way.
    @Test func sourcesKeepingARunBusyGiveWayAndNothingElseDoes() throws {
        let lines = Trace()
        onFreshThread {
            let loop = Registry.shared.current()!
            let insight = loop.makeInsight()
            func yesNo(_ b: Bool) -> String { b ? "yes" : "no" }
            let busy = mode("busy")
            var began = 0.0
            var performs = 0
            var source: Source!
            source = makeSource {
                performs += 1
                if performs == 1 { began = Clock.absoluteNow() }
                if Clock.absoluteNow() - began < 0.05 { source.signal() } else { loop.stop() }
            }
            _ = loop.add(.source(source), to: busy)
            insight.statistics.reset()
            source.signal()
            let start = Clock.absoluteNow()
            var result = loop.run(busy, seconds: 5, returnAfterSourceHandled: false)
            let busyMicros = (Clock.absoluteNow() - start) * 1e6
            let yields = insight.statistics.value(.busyYields)
            lines.add("busy 50 ms: \(resultNames[result]!), gave way >= 10: \(yesNo(yields >= 10)), "
                      + "at most once per 50 us: \(yesNo(Double(yields) <= busyMicros / 50 + 1)), "
                      + "once per pass at most: \(yesNo(yields < insight.statistics.value(.passes)))")
            insight.statistics.reset()
            for _ in 0..<200 {
                source.signal()
                _ = loop.run(busy, seconds: 0, returnAfterSourceHandled: false)
            }
            lines.add("200 one-pass runs: performed \(insight.statistics.value(.version0Performed)), gave way \(insight.statistics.value(.busyYields))")
            source.invalidate()
            source.releaseRef()

            insight.statistics.reset()
            let ticked = mode("ticked")
            let quiet = makeSource {}
            _ = loop.add(.source(quiet), to: ticked)
            var ticks = 0
            let tick = makeTimer(in: 0.001, interval: 0.001) { _ in
                ticks += 1
                if ticks > 40 { loop.stop() } else if ticks % 2 == 1 { quiet.signal() }
            }
            _ = loop.add(.timer(tick), to: ticked)
            result = loop.run(ticked, seconds: 5, returnAfterSourceHandled: false)
            lines.add("a source signalled every other 1 ms tick: \(resultNames[result]!), "
                      + "performed \(insight.statistics.value(.version0Performed)), gave way \(insight.statistics.value(.busyYields))")
            tick.invalidate()
            tick.releaseRef()
            quiet.invalidate()
            quiet.releaseRef()
        }
        // Line by line, so a failure shows the line that differs.
        let expected = Array(try Trace.expected("rl_stats").suffix(3))
        #expect(lines.lines.count == expected.count)
        for (got, want) in zip(lines.lines, expected) { #expect(got == want) }
    }
}

@Suite struct DescriptorSourcesTests {
    /// The sources of one descriptor keep the order they were added in
    /// through removals from the front, the middle and the end, and
    /// removing the last one says so.
    @Test func sourcesKeepTheirOrderThroughRemovals() {
        let made = (0..<4).map { _ in makeSource {} }
        func listed(_ list: DescriptorSources) -> [ObjectIdentifier] {
            var seen: [ObjectIdentifier] = []
            list.forEach { seen.append(ObjectIdentifier($0)) }
            return seen
        }
        var list = DescriptorSources(made[0])
        for source in made.dropFirst() { list.append(source) }
        #expect(listed(list) == made.map(ObjectIdentifier.init))
        let r1 = list.remove(made[2])  // the middle
        #expect(r1)
        #expect(listed(list) == [0, 1, 3].map { ObjectIdentifier(made[$0]) })
        let r2 = list.remove(made[0])  // the first: the next one moves up
        #expect(r2)
        #expect(listed(list) == [1, 3].map { ObjectIdentifier(made[$0]) })
        let r3 = list.remove(made[2])  // not here: nothing changes
        #expect(r3)
        #expect(listed(list) == [1, 3].map { ObjectIdentifier(made[$0]) })
        let r4 = list.remove(made[3])  // the end
        #expect(r4)
        #expect(listed(list) == [ObjectIdentifier(made[1])])
        let r5 = list.remove(made[1])  // the last one
        #expect(!r5)
        for source in made { source.invalidate() }
    }
}
