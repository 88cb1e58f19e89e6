import Foundation
import RunLoopKit
import TestSupport
import Testing

/// A value shared between a loop's thread and the test.
final class Shared<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    func update<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }
}

/// A one-shot hand-over between threads (the C harness's gate_t).
final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var count = 0
    func post() { condition.lock(); count += 1; condition.broadcast(); condition.unlock() }
    func wait() { condition.lock(); while count == 0 { condition.wait() }; count -= 1; condition.unlock() }
    /// Takes a post if there is one, without waiting.
    func tryTake() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard count > 0 else { return false }
        count -= 1
        return true
    }
}

/// A hand-over at a loop's next BeforeWaiting, when a wake-up from another
/// thread is seen from then on (the C tests' sleep_gate): `arm()`, and that
/// loop's observer calls `loopWillSleep()`, which posts once; another
/// thread `wait()`s for it.
final class SleepGate: @unchecked Sendable {
    private let gate = Gate()
    private let armed = Shared(false)
    func arm() { armed.value = true }
    /// True once after `arm()`: the caller hands over itself.
    func take() -> Bool { armed.update { flag in defer { flag = false }; return flag } }
    func loopWillSleep() { if take() { gate.post() } }
    func wait() { gate.wait() }
}

func yesNo(_ b: Bool) -> String { b ? "yes" : "no" }

/// Lets time pass for timers (never used to order threads).
func sleepSeconds(_ s: Double) { usleep(UInt32(s * 1_000_000)) }

/// "(null)" when not running, as the C harness prints it.
func modeName(_ mode: Loop.Mode?) -> String { mode?.name ?? "(null)" }

/// Runs a scenario on a fresh thread, collecting its trace and the
/// failures of its checks (Swift Testing's #expect needs the test's task,
/// which a bare pthread does not have), then compares the trace with
/// Tests/traces/<name>.trace and reports every failed check.
func scenario(_ name: String, _ body: @escaping @Sendable (Trace) throws -> Void) throws -> (actual: [String], expected: [String], failures: [String]) {
    let trace = Trace()
    onFreshThread {
        do { try body(trace) } catch { trace.fail("thrown: \(error)") }
    }
    return (trace.traceLines, try Trace.expected(name), trace.failures)
}

extension Trace {
    private static let failureKey = "\u{1}FAIL "
    /// Records a failed check (kept apart from the trace lines).
    func fail(_ message: String) { add(Trace.failureKey + message) }
    /// Records a failure unless `condition`.
    func check(_ condition: Bool, _ message: String) { if !condition { fail(message) } }
    var traceLines: [String] { lines.filter { !$0.hasPrefix(Trace.failureKey) } }
    var failures: [String] { lines.filter { $0.hasPrefix(Trace.failureKey) }.map { String($0.dropFirst(Trace.failureKey.count)) } }
}



/// Runs the scenario and expects its trace to equal Tests/traces/<name>.trace
/// line for line, and every check to hold.
func expectTrace(_ name: String, sourceLocation: SourceLocation = #_sourceLocation,
                 _ body: @escaping @Sendable (Trace) throws -> Void) throws {
    let run = try scenario(name, body)
    #expect(run.actual == run.expected, sourceLocation: sourceLocation)
    #expect(run.failures == [], sourceLocation: sourceLocation)
}
