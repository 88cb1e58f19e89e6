import RunLoopKit

/// The articles' first experiment: watch one run of a loop with an
/// observer of every activity, while a one-shot timer fires.
///
/// Prints `Entry`, `BeforeTimers`, `BeforeSources`, `BeforeWaiting`,
/// `AfterWaiting`, `timer fired`, `Exit`, then `run ended: Finished` (the
/// one-shot timer was the mode's last item).  Call it on a thread whose
/// loop is idle.
public func observerTraceExample(_ output: @escaping ExampleOutput = { print($0) }) throws {
    let loop = Loop.current
    let observer = LoopObserver(activities: .allActivities) { _, activity in output("\(activity)") }
    try loop.add(observer, to: .default)

    let timer = LoopTimer(after: .milliseconds(10)) { _ in output("timer fired") }
    try loop.add(timer, to: .default)

    let result = loop.run(in: .default, for: .seconds(1))
    output("run ended: \(result)")
    observer.invalidate()
}
