import RunLoopCore

/// A "permanent thread": a thread that runs its own ``Loop`` until stopped,
/// kept alive by a source that is never signalled, and takes work from any
/// thread.  The Swift face of the C API's `RLThread`.
///
/// ```swift
/// let worker = LoopThread(name: "io")!
/// worker.execute { print("on the worker") }          // queued, the loop is woken
/// let answer = worker.executeAndWait { 6 * 7 }        // 42, run on the worker
/// try worker.loop.add(someTimer, to: .default)        // its loop, like any other
/// worker.stop()                                       // runs what is queued, then joins
/// ```
///
/// `LoopThread` is `Sendable`: every method may be called from any thread.
/// Dropping the last `LoopThread` of a running worker stops it.
public final class LoopThread: Sendable {
    private let engine: RunLoopCore.Thread

    /// Starts the thread and waits until its loop is running.  nil if the
    /// system refuses a thread or descriptors.
    public init?(name: String? = nil) {
        guard let engine = RunLoopCore.Thread.start(name: name) else { return nil }
        self.engine = engine  // the reference `start` gives us, dropped in deinit
    }

    deinit { engine.releaseRef() }

    /// The worker's loop (add timers, sources, observers to it).
    public var loop: Loop { Loop(retaining: engine.loop) }

    /// Whether the caller is running on the worker thread.
    public var isCurrent: Bool { engine.isWorkerThread }

    /// Queues `work` to run on the worker, in order, and wakes it.
    /// - Returns: false if the worker was stopped (the work is dropped).
    @discardableResult
    public func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        engine.enqueue(work)
    }

    /// Runs `work` on the worker and waits for its result (inline when
    /// called on the worker itself).  nil if the worker was stopped.
    public func executeAndWait<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T? {
        let result = ResultBox<T>()
        guard engine.performAndWait({ result.value = work() }) else { return nil }
        return result.value
    }

    /// Runs the work already queued, stops the loop and joins the thread
    /// (from the worker itself: requests the stop and returns).  Idempotent.
    public func stop() { engine.stop() }
}

/// Carries a result from the worker back to the waiting caller (the wait
/// orders the write before the read).
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
