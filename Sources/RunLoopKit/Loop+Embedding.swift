import Glibc
import RunLoopCore
import Synchronization

/// Driving a loop from another event loop (the C API's
/// RLRunLoopGetPollDescriptor, RLRunLoopGetTimeout, RLRunLoopRunPending;
/// see "Driving a loop from another event loop" in runloop.h for the
/// contract: level-triggered readiness, what prepares the loop, bad input).
///
/// ```swift
/// let loop = Loop.current
/// let fd = try loop.pollDescriptor()
/// while running {
///     let wait = try loop.timeout(in: .default)      // nil: no timer
///     waitReadable(fd, for: wait)                    // the other loop's wait
///     try loop.runPending(in: .default)
/// }
/// ```
extension Loop {
    /// The loop's poll descriptor: readable while the loop has work in the
    /// mode it was last prepared for.  Owned by the loop: do not close it.
    /// Any thread.
    public func pollDescriptor() throws(LoopError) -> Int32 {
        switch engine.pollDescriptor() {
        case .success(let (fd, _)): return fd
        case .failure(let failure): throw LoopError(failure)
        }
    }

    /// Prepares the loop to be waited for in `mode` and returns how long
    /// the caller may wait before running it: `.zero` if work is pending,
    /// nil if no timer is scheduled (only the descriptor will tell).  The
    /// loop's thread only.
    public func timeout(in mode: Mode = .default) throws(LoopError) -> Duration? {
        guard let name = mode.interned else { throw .invalidModeName(mode.name) }
        switch engine.timeout(name) {
        case .success(let (seconds, _)):
            return seconds.isInfinite ? nil : .nanoseconds(Int64((seconds * 1e9).rounded(.up)))
        case .failure(let failure): throw LoopError(failure)
        }
    }

    /// Runs the work pending in `mode` without waiting (one pass, as
    /// `run(in: mode, for: .zero)`), then prepares the loop for `mode`
    /// again.  The loop's thread only; from a callout it is a nested run.
    @discardableResult
    public func runPending(in mode: Mode = .default) throws(LoopError) -> RunResult {
        guard let name = mode.interned else { throw .invalidModeName(mode.name) }
        switch engine.runPending(name) {
        case .success(let (result, _)): return RunResult(result)
        case .failure(let failure): throw LoopError(failure)
        }
    }
}

extension LoopError {
    init(_ failure: RunLoopCore.Loop.EmbedFailure) {
        switch failure {
        case .wrongThread: self = .wrongThread
        case .gone: self = .loopGone
        case .resources: self = .outOfResources
        case .commonModes: self = .commonModes
        }
    }
}

/// The readiness of a descriptor for reading, as an `AsyncSequence`: each
/// element says "readable now" (level-triggered: if the reader leaves the
/// data unread, the next element comes at once).  The sequence ends when
/// the descriptor is closed or invalid (POLLNVAL), or the task is
/// cancelled.  Each wait runs `poll(2)` on a thread of its own, so a
/// waiting task blocks no executor thread.
///
/// ```swift
/// let fd = try loop.pollDescriptor()
/// for await _ in DescriptorReadiness(fd) {
///     await MainActor.run { try? Loop.main.runPending() }   // on the loop's thread
/// }
/// ```
public struct DescriptorReadiness: AsyncSequence, Sendable {
    public typealias Element = Void
    public let descriptor: Int32

    public init(_ descriptor: Int32) { self.descriptor = descriptor }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(descriptor: descriptor) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let descriptor: Int32
        var ended = false

        public mutating func next() async -> Void? {
            if ended || Task.isCancelled { return nil }
            let fd = descriptor
            let cancelled = Box()
            let readable = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                    let waiter = Waiter(fd: fd, cancelled: cancelled, continuation: continuation)
                    var thread = pthread_t()
                    let started = pthread_create(&thread, nil, { raw in
                        Unmanaged<Waiter>.fromOpaque(raw!).takeRetainedValue().wait()
                        return nil
                    }, Unmanaged.passRetained(waiter).toOpaque())
                    if started == 0 {
                        pthread_detach(thread)
                    } else {
                        Unmanaged.passUnretained(waiter).release()
                        continuation.resume(returning: false)
                    }
                }
            } onCancel: {
                cancelled.flag.store(true, ordering: .releasing)
            }
            if !readable { ended = true; return nil }
            return ()
        }
    }

    final class Box: Sendable {
        let flag = Atomic<Bool>(false)
    }

    /// One wait, on its own thread: poll in 50 ms slices so cancellation
    /// is noticed.
    final class Waiter: @unchecked Sendable {
        let fd: Int32
        let cancelled: Box
        let continuation: CheckedContinuation<Bool, Never>

        init(fd: Int32, cancelled: Box, continuation: CheckedContinuation<Bool, Never>) {
            self.fd = fd
            self.cancelled = cancelled
            self.continuation = continuation
        }

        func wait() {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            while !cancelled.flag.load(ordering: .acquiring) {
                entry.revents = 0
                let n = poll(&entry, 1, 50)
                if n < 0 && errno == EINTR { continue }
                if n < 0 || entry.revents & Int16(POLLNVAL) != 0 { break }
                if n == 1 { continuation.resume(returning: true); return }
            }
            continuation.resume(returning: false)
        }
    }
}
