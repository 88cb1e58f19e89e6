import RunLoopKit

/// An actor pinned to a run-loop thread: its methods run on the worker's
/// thread (so they may use that loop's timers and sources directly), and
/// callers simply `await` them.
///
/// ```swift
/// let worker = PermanentThread()
/// let counter = LoopCounter(on: worker.loop)
/// let onWorker = await counter.increment()   // true: ran on the worker thread
/// worker.stop()
/// ```
public actor LoopCounter {
    private let executor: LoopExecutor
    private var count = 0

    /// A counter whose methods run on `loop`'s thread (which must be running).
    public init(on loop: Loop) { executor = LoopExecutor(loop) }

    /// Pins the actor to the loop's thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Adds one; returns whether it ran on the loop's thread.
    public func increment() -> Bool {
        count += 1
        return executor.loop.isCurrent
    }

    /// How many times `increment` ran.
    public var value: Int { count }
}
