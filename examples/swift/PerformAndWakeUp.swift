import RunLoopKit

/// The articles' cross-thread hand-off: another thread queues work on a
/// loop that sleeps with `perform`, then `wakeUp`s it so the work runs at
/// once on the loop's thread (without the wake-up it would wait for the
/// loop's next timer or source).
///
/// Prints `worker sleeps`, `work ran on the worker thread: true`,
/// `worker stopped`.
public func performAndWakeUpExample(_ output: @escaping ExampleOutput = { print($0) }) {
    let worker = PermanentThread()
    let loop = worker.loop
    let sleeping = ExampleLatch()
    // Know when the worker sleeps (only to make the output deterministic).
    let observer = LoopObserver(activities: .beforeWaiting, repeats: false) { _, _ in
        output("worker sleeps")
        sleeping.open()
    }
    worker.execute { try? loop.add(observer, to: .default) }
    sleeping.wait()

    let done = ExampleLatch()
    loop.perform(in: [.default]) {
        output("work ran on the worker thread: \(loop.isCurrent)")
        done.open()
    }
    loop.wakeUp()
    done.wait()
    worker.stop()
    output("worker stopped")
}
