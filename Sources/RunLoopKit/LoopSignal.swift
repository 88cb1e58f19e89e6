import Glibc
import RunLoopCore

/// A Unix signal caught and delivered on a loop's thread (C:
/// `RLSignal`, runloop/watch.h; dispatch's signal source).  From creation
/// until ``invalidate()`` the library's handler is the signal's
/// disposition; `handler` runs on the thread of a loop holding it, with
/// the signal and how many times it arrived since the previous call.
///
/// ```swift
/// let term = try LoopSignal(SIGTERM) { _, _ in Loop.current.stop() }
/// try Loop.current.add(term)
/// Loop.current.run()
/// ```
///
/// Nothing about the threads' signal masks is required; several
/// `LoopSignal`s of one signal (in loops of several threads) each count
/// every arrival; the disposition it replaced comes back when the
/// signal's last one is invalidated (or released while in no loop).
/// Loops keep the object while they hold it.
public final class LoopSignal: Sendable, CustomStringConvertible {
    let engine: SignalWatch
    let source: RunLoopCore.Source

    /// Starts catching `signal`.
    /// - Throws: ``SignalError`` for a signal that cannot be caught
    ///   (0, SIGKILL, SIGSTOP, the fault signals, the C library's
    ///   reserved ones, out of range) or when descriptors run out.
    public init(_ signal: Int32, order: Int = 0,
                handler: @escaping @Sendable (_ signal: Int32, _ count: Int) -> Void) throws(SignalError) {
        let watch: SignalHandler.Watch
        switch SignalHandler.watch(signal) {
        case .failure(let failure): throw SignalError(signal: signal, reason: failure.detail)
        case .success(let started): watch = started
        }
        engine = SignalWatch(signal: signal, watch: watch, callout: { _, signo, count in handler(signo, count) },
                             releaseInfo: nil, cContext: nil)
        guard HandleTable.shared.register(engine), let source = engine.runLoopSource(order: order) else {
            engine.invalidate()
            throw SignalError(signal: signal, reason: "no handle left")
        }
        self.source = source
    }

    deinit {
        source.releaseRef()
        engine.releaseRef()
    }

    /// The signal it catches.
    public var signal: Int32 { engine.signal }
    /// False once invalidated.
    public var isValid: Bool { engine.isValid }
    /// Stops catching (see the type's comment) and leaves every loop.
    /// From any thread, also from the handler.  Idempotent.
    public func invalidate() { engine.invalidate() }

    public var description: String { "<LoopSignal \(signal)>{valid = \(isValid ? "Yes" : "No")}" }

    /// The arrivals of `signal` on `loop` (in `mode`) as an
    /// `AsyncSequence`: each element is how many arrived since the
    /// previous one.  The signal is caught from this call until the
    /// stream ends (its consumer stops iterating or is cancelled).  The
    /// loop must run for elements to come.
    public static func arrivals(of signal: Int32, on loop: Loop,
                                in mode: Loop.Mode = .default) throws -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let watcher = try LoopSignal(signal) { _, count in continuation.yield(count) }
        try loop.add(watcher, to: mode)
        continuation.onTermination = { _ in watcher.invalidate() }
        return stream
    }
}

/// Why a ``LoopSignal`` could not be made.
public struct SignalError: Error, Sendable, Hashable, CustomStringConvertible {
    public let signal: Int32
    public let reason: String
    public var description: String { "signal \(signal): \(reason)" }
}

extension Loop {
    /// Adds `signal`'s source to `mode`.
    /// - Throws: as for sources (``LoopError/invalidItem`` once invalidated).
    public func add(_ signal: LoopSignal, to mode: Mode = .default) throws(LoopError) {
        guard let name = mode.interned else { throw .invalidModeName(mode.name) }
        if case .failure(let failure) = engine.add(.source(signal.source), to: name) { throw LoopError(failure) }
    }

    /// Removes `signal`'s source from `mode` (it goes on catching).
    public func remove(_ signal: LoopSignal, from mode: Mode = .default) {
        guard let name = mode.interned else { return }
        engine.remove(.source(signal.source), from: name)
    }
}
