import RunLoopKit
import TestSupport
import Testing

/// The README's Swift example, verbatim apart from the thread wrapper and
/// collecting what it prints.
@Suite struct ReadmeSnippetTests {
    @Test func readmeSwiftExampleRuns() throws {
        let printed = Shared<[String]>([])
        let result = Shared<String>("")
        let failure = Shared<String?>(nil)
        onFreshThread {
            @Sendable func print(_ value: Any) { printed.update { $0.append("\(value)") } }
            do {
                let loop = Loop.current
                let observer = LoopObserver(activities: .allActivities) { _, activity in print(activity) }
                try loop.add(observer, to: .common)

                // A timer in the common modes keeps firing while the loop runs "tracking".
                let tracking: Loop.Mode = "tracking"
                loop.addCommonMode(tracking)
                let ticker = LoopTimer(after: .milliseconds(100), interval: .milliseconds(100)) { _ in print("tick") }
                try loop.add(ticker, to: .common)

                result.value = "\(loop.run(in: tracking, for: .seconds(1)))"
                ticker.invalidate()
                observer.invalidate()
            } catch {
                failure.value = "\(error)"
            }
        }
        #expect(failure.value == nil)
        #expect(result.value == "TimedOut")
        let ticks = printed.value.filter { $0 == "tick" }.count
        #expect(ticks >= 8 && ticks <= 10)
        // The observer is in the common modes, so it watches the run in "tracking".
        #expect(printed.value.first == "Entry")
        #expect(printed.value.last == "Exit")
        #expect(printed.value.contains("BeforeWaiting"))
    }
}
