import RunLoopCore

/// A `SerialExecutor` that runs jobs on a loop's thread, one at a time, in
/// the order they were enqueued: it pins an actor to a run-loop thread.
///
/// ```swift
/// actor Worker {
///     let executor: LoopExecutor
///     init(loop: Loop) { executor = LoopExecutor(loop) }
///     nonisolated var unownedExecutor: UnownedSerialExecutor {
///         executor.asUnownedSerialExecutor()
///     }
///     func work() { /* runs on the loop's thread */ }
/// }
/// ```
///
/// A job is queued with ``Loop/perform(in:_:)`` for `modes` and the loop
/// is woken, so jobs run while the loop runs one of those modes (by
/// default any common mode) — the loop's thread must be running it, e.g.
/// with ``Loop/run()`` kept alive by a source.  Jobs enqueued after the
/// loop's thread has exited are dropped (their tasks never resume).
///
/// `LoopExecutor` is `Sendable` (executors must be): it holds a `Sendable`
/// ``Loop`` and an immutable list of modes.  Keep it alive while the actor
/// lives (store it in the actor): `UnownedSerialExecutor` does not own it.
public final class LoopExecutor: SerialExecutor, Sendable, CustomStringConvertible {
    /// The loop whose thread runs the jobs.
    public let loop: Loop
    /// The modes in which jobs run.
    public let modes: [Loop.Mode]

    /// An executor running jobs on `loop`'s thread while it runs one of
    /// `modes`.
    public init(_ loop: Loop, modes: [Loop.Mode] = [.common]) {
        self.loop = loop
        self.modes = modes
    }

    /// Queues `job` on the loop and wakes it.  From any thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let queued = loop.perform(in: modes) { [self] in
            job.runSynchronously(on: self.asUnownedSerialExecutor())
        }
        if queued { loop.wakeUp() }
    }

    /// The executor as an actor's `unownedExecutor` returns it.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Traps unless called on the loop's thread (what `assumeIsolated`
    /// and `preconditionIsolated` rely on).
    public func checkIsolated() {
        precondition(loop.isCurrent, "runloop: not on the thread of the LoopExecutor's loop")
    }

    /// Whether the calling thread is the loop's thread.
    public func isIsolatingCurrentContext() -> Bool? { loop.isCurrent }

    /// `LoopExecutor(modes: [...])`.
    public var description: String { "LoopExecutor(modes: \(modes))" }
}
