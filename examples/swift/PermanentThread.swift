import Foundation   // Thread and NSCondition; RunLoop and Timer do not clash with Loop and LoopTimer
import RunLoopKit

/// The articles' "permanent thread": one thread that stays alive, sleeping
/// in its run loop, and runs the tasks other threads give it, in order,
/// instead of a new thread per task.
///
/// ```swift
/// let worker = PermanentThread()
/// worker.execute { print("on the worker") }
/// worker.stop()          // waits until the thread has exited
/// ```
///
/// The loop stays in `run` because of a source that is never signalled (a
/// mode with no sources and no timers makes `run` return `.finished` at
/// once).  `execute` queues the task with `perform` and wakes the loop;
/// `stop` queues a task that sets the stop flag and stops the loop, then
/// waits for the thread to exit.
public final class PermanentThread: Sendable {
    /// The worker thread's loop (to add items to, or for a LoopExecutor).
    public let loop: Loop
    private let state: WorkerState

    /// Starts the thread and waits until its loop is ready.
    public init() {
        let state = WorkerState()
        let thread = Thread {
            let loop = Loop.current
            let keepAlive = LoopSource {}   // never signalled: keeps the default mode alive
            try? loop.add(keepAlive, to: .default)
            state.started(loop)
            while !state.stopRequested {
                loop.run(in: .default, for: .seconds(1_000_000))
            }
            keepAlive.invalidate()
            state.exiting()
        }
        thread.start()
        loop = state.waitUntilStarted()
        self.state = state
    }

    /// Runs `task` on the worker thread, after the tasks given before it.
    /// From any thread; dropped once the thread has exited.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        loop.perform(in: [.default], task)
        loop.wakeUp()
    }

    /// Ends the thread after the tasks already given, and waits for it.
    public func stop() {
        let loop = self.loop, state = self.state
        let queued = loop.perform(in: [.default]) {
            state.stopRequested = true
            loop.stop()
        }
        loop.wakeUp()
        if queued { state.waitUntilExited() }
    }
}

/// What the worker and its owner share, guarded by one condition lock.
private final class WorkerState: @unchecked Sendable {
    private let condition = NSCondition()
    private var loop: Loop?
    private var stop = false
    private var exited = false

    var stopRequested: Bool {
        get { condition.withLock { stop } }
        set { condition.withLock { stop = newValue } }
    }

    func started(_ loop: Loop) { condition.withLock { self.loop = loop; condition.broadcast() } }
    func exiting() { condition.withLock { exited = true; condition.broadcast() } }

    func waitUntilStarted() -> Loop {
        condition.withLock {
            while loop == nil { condition.wait() }
            return loop!
        }
    }

    func waitUntilExited() { condition.withLock { while !exited { condition.wait() } } }
}

/// A one-time gate between threads, for the examples.
final class ExampleLatch: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false
    func open() { condition.withLock { isOpen = true; condition.broadcast() } }
    func wait() { condition.withLock { while !isOpen { condition.wait() } } }
}
