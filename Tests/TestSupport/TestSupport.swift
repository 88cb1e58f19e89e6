import Foundation

// Helpers shared by RunLoopCoreTests and RunLoopKitTests.

/// Starts `body` on a new pthread (a fresh run loop, unlike Swift Testing's
/// pool threads, which keep theirs); `join` it before the test ends.
public func spawn(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { raw in
        Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed")
    return thread
}

public func join(_ thread: pthread_t) { pthread_join(thread, nil) }

/// Runs `body` on a fresh pthread and joins it: when this returns, the
/// thread has exited and its loop has been torn down.
public func onFreshThread(_ body: @escaping @Sendable () -> Void) {
    join(spawn(body))
}

/// Lines recorded by a scenario, compared with Tests/traces/<name>.trace
/// (the file the C driver of the same scenario is compared with).
public final class Trace: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    public init() {}

    public var lines: [String] { lock.withLock { recorded } }

    public func add(_ line: String) { lock.withLock { recorded.append(line) } }

    public static func expected(_ name: String) throws -> [String] { try expectedTrace(name) }
}

/// The lines of Tests/traces/<name>.trace (the file the C driver of the
/// same scenario is compared with).
public func expectedTrace(_ name: String) throws -> [String] {
    let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    let text = try String(contentsOf: tests.appendingPathComponent("traces/\(name).trace"), encoding: .utf8)
    var lines = text.components(separatedBy: "\n")
    if lines.last == "" { lines.removeLast() }
    return lines
}
