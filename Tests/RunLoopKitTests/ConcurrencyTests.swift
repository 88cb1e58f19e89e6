import Foundation
import RunLoopKit
import RunLoopKitExamples
import TestSupport
import Testing

/// An actor whose every method runs on a run-loop thread.
actor PinnedWorker {
    let executor: LoopExecutor
    private var calls: [String] = []

    init(loop: Loop) { executor = LoopExecutor(loop) }

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Where this call ran: the pthread and whether it is the loop's thread.
    func whereAmI(_ tag: String) -> (thread: pthread_t, onLoopThread: Bool) {
        calls.append(tag)
        return (pthread_self(), executor.loop.isCurrent)
    }

    func history() -> [String] { calls }
}

@Suite struct ConcurrencyTests {
    @Test func anActorOnALoopExecutorRunsEveryMethodOnTheLoopsThread() async throws {
        let worker = PermanentThread()
        let workerThread = await withCheckedContinuation { (c: CheckedContinuation<pthread_t, Never>) in
            worker.execute { c.resume(returning: pthread_self()) }
        }
        let actor = PinnedWorker(loop: worker.loop)
        for i in 0..<20 {
            let place = await actor.whereAmI("call \(i)")
            #expect(place.onLoopThread)
            #expect(pthread_equal(place.thread, workerThread) != 0)
        }
        // The test's own task is not on that thread.
        #expect(pthread_equal(pthread_self(), workerThread) == 0)
        #expect(!worker.loop.isCurrent)
        // Calls from many tasks at once are serialised, none lost.
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<50 { group.addTask { _ = await actor.whereAmI("concurrent \(i)") } }
        }
        #expect(await actor.history().count == 70)
        // Code queued on the loop is isolated to the actor: assumeIsolated works there.
        let sawIsolation = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
            worker.execute {
                let history = actor.assumeIsolated { $0.history().count }
                c.resume(returning: history == 70)
            }
        }
        #expect(sawIsolation)
        #expect(actor.executor.isIsolatingCurrentContext() == false)
        worker.stop()
    }

    @Test func waitSuspendsUntilAConditionHoldsOnTheLoopsThread() async throws {
        let worker = PermanentThread()
        let ticks = Shared(0)
        let evaluatedOnLoop = Shared(true)
        let timer = LoopTimer(after: .milliseconds(5), interval: .milliseconds(5)) { _ in ticks.update { $0 += 1 } }
        try worker.loop.add(timer, to: .default)
        try await worker.loop.wait(in: [.default]) {
            if !worker.loop.isCurrent { evaluatedOnLoop.value = false }
            return ticks.value >= 3
        }
        #expect(ticks.value >= 3)
        #expect(evaluatedOnLoop.value)
        // A condition that is already true returns at once.
        try await worker.loop.wait { true }
        timer.invalidate()
        worker.stop()
    }

    @Test func aCancelledWaitThrowsCancellationError() async throws {
        let worker = PermanentThread()
        let started = Shared(false)
        let task = Task {
            try await worker.loop.wait {
                started.value = true
                return false
            }
        }
        try await worker.loop.wait { started.value }   // the other wait is in place
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        worker.stop()
    }

    @Test func aWaitEndsWithLoopGoneWhenTheLoopsThreadExits() async throws {
        let loopBox = Shared<Loop?>(nil)
        let inPlace = Gate(), release = Gate()
        let thread = spawn {
            let loop = Loop.current
            loopBox.value = loop
            let keepAlive = LoopTimer(after: .seconds(100)) { _ in }
            try? loop.add(keepAlive, to: .default)
            // Run until the main side says the wait is in place, then exit.
            while true {
                _ = loop.run(in: .default, for: .milliseconds(5))
                if release.tryTake() { break }
            }
            keepAlive.invalidate()
        }
        let loop = try #require({ () -> Loop? in
            while loopBox.value == nil { usleep(1000) }
            return loopBox.value
        }())
        let task = Task {
            try await loop.wait {
                inPlace.post()
                return false
            }
        }
        inPlace.wait()
        release.post()
        await #expect(throws: LoopError.loopGone) { try await task.value }
        join(thread)
    }

    @Test func waitOnALoopWhoseThreadExitedThrowsLoopGone() async throws {
        let gone = Shared<Loop?>(nil)
        onFreshThread { gone.value = Loop.current }
        let loop = try #require(gone.value)
        await #expect(throws: LoopError.loopGone) { try await loop.wait { true } }
    }
}
