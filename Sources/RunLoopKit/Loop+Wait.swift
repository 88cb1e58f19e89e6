import RunLoopCore

extension Loop {
    /// Suspends the calling task, without blocking its thread, until
    /// `condition` is true on the loop's thread.
    ///
    /// `condition` is evaluated on the loop's thread: once as soon as the
    /// loop runs one of `modes`, then at the start of each pass
    /// (`beforeTimers`), before it sleeps (`beforeWaiting`) and when a run
    /// ends (`exit`).  So it sees the loop's state between callouts, never
    /// in the middle of one.  The loop must be running one of `modes` for
    /// the wait to end.
    ///
    /// ```swift
    /// let done = Counter()                 // some Sendable state the loop's work updates
    /// try await worker.wait { done.value == 3 }
    /// ```
    ///
    /// - Throws: `CancellationError` if the task is cancelled first;
    ///   ``LoopError/loopGone`` if the loop's thread has exited or exits
    ///   before the condition holds; ``LoopError`` if a mode is invalid.
    public func wait(in modes: [Mode] = [.common], until condition: @escaping @Sendable () -> Bool) async throws {
        let waiter = Waiter()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiter.start(continuation)
                let observer = LoopObserver(activities: [.beforeTimers, .beforeWaiting, .exit]) { observer, _ in
                    if condition() { waiter.finish(.success(())) }
                }
                waiter.observer = observer
                // If the loop's thread exits first, end the wait with loopGone.
                guard let teardown = engine.onTearDown({ waiter.finish(.failure(LoopError.loopGone)) }) else {
                    waiter.finish(.failure(LoopError.loopGone))
                    return
                }
                waiter.whenFinished { [engine] in engine.removeTearDownHandler(teardown) }
                do {
                    for mode in modes { try add(observer, to: mode) }
                } catch {
                    waiter.finish(.failure(error))
                    return
                }
                // Look once right away (the loop may be sleeping).
                let queued = perform(in: modes) { if condition() { waiter.finish(.success(())) } }
                if queued { wakeUp() } else { waiter.finish(.failure(LoopError.loopGone)) }
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
    }
}

/// One `wait`: resumes its continuation once, then invalidates its
/// observer.  Guarded by its own lock (never held while calling out).
private final class Waiter: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var outcome: Result<Void, any Error>?
        var observer: LoopObserver?
        var cleanup: (@Sendable () -> Void)?
    }
    private let state = Guarded(State())

    /// The observer to invalidate when the wait ends.  Not kept once the
    /// wait has ended (the observer's handler refers to this waiter).
    var observer: LoopObserver? {
        get { state.withLock { $0.observer } }
        set {
            let finished = state.withLock { s -> Bool in
                if s.outcome == nil { s.observer = newValue }
                return s.outcome != nil
            }
            if finished { newValue?.invalidate() }
        }
    }

    /// Stores the continuation; resumes it at once if already finished
    /// (cancelled before it got here).
    /// Runs `cleanup` when the wait ends (at once if it already has).
    func whenFinished(_ cleanup: @escaping @Sendable () -> Void) {
        let finished = state.withLock { s -> Bool in
            if s.outcome == nil { s.cleanup = cleanup }
            return s.outcome != nil
        }
        if finished { cleanup() }
    }

    func start(_ continuation: CheckedContinuation<Void, any Error>) {
        let early = state.withLock { s -> Result<Void, any Error>? in
            if let outcome = s.outcome { return outcome }
            s.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    /// The first call wins; later ones do nothing.
    func finish(_ outcome: Result<Void, any Error>) {
        let taken = state.withLock { s -> (CheckedContinuation<Void, any Error>?, LoopObserver?, (@Sendable () -> Void)?)? in
            guard s.outcome == nil else { return nil }
            s.outcome = outcome
            defer { s.continuation = nil; s.observer = nil; s.cleanup = nil }
            return (s.continuation, s.observer, s.cleanup)
        }
        guard let (continuation, observer, cleanup) = taken else { return }
        cleanup?()
        observer?.invalidate()
        continuation?.resume(with: outcome)
    }
}
