import RunLoopKit
import Testing

@Suite struct LoopThreadTests {
    @Test func workRunsOnTheWorkerInOrderAndStopJoins() throws {
        let worker = try #require(LoopThread(name: "kit-worker"))
        let seen = Shared<[Int]>([])
        let offThread = Shared(0)
        for i in 0..<10_000 {
            worker.execute {
                if !worker.isCurrent { offThread.update { $0 += 1 } }
                seen.update { $0.append(i) }
            }
        }
        #expect(worker.executeAndWait { 6 * 7 } == 42)
        #expect(worker.executeAndWait { worker.isCurrent } == true)
        worker.stop()
        #expect(seen.value == Array(0..<10_000))
        #expect(offThread.value == 0)
        #expect(worker.execute {} == false)
        #expect(worker.executeAndWait { 1 } == nil)
    }

    @Test func theWorkersLoopTakesTimers() throws {
        let worker = try #require(LoopThread())
        let fired = Shared(0)
        let timer = LoopTimer(after: .milliseconds(5), interval: .milliseconds(5)) { _ in fired.update { $0 += 1 } }
        try worker.loop.add(timer, to: .common)
        while fired.value < 3 { sleepSeconds(0.005) }
        timer.invalidate()
        worker.stop()
        #expect(fired.value >= 3)
    }
}
