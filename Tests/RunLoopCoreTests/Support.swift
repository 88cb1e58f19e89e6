import Foundation
@testable import RunLoopCore

/// Runs `body` on a fresh thread (so it gets a fresh run loop, unlike
/// Swift Testing's pool threads) and joins it: when this returns, the
/// thread has exited and its loop has been torn down.
func onFreshThread(_ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, nil, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    precondition(rc == 0, "pthread_create failed")
    pthread_join(thread, nil)
}

/// Lines recorded by a scenario, compared with Tests/traces/<name>.trace.
final class Trace: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var lines: [String] = []

    func add(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    static func expected(_ name: String) throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("traces/\(name).trace"), encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

let activityNames: [UInt: String] = [
    Activity.entry: "Entry", Activity.beforeTimers: "BeforeTimers", Activity.beforeSources: "BeforeSources",
    Activity.beforeWaiting: "BeforeWaiting", Activity.afterWaiting: "AfterWaiting", Activity.exit: "Exit",
]

let resultNames: [RunResult: String] = [
    .finished: "Finished", .stopped: "Stopped", .timedOut: "TimedOut", .handledSource: "HandledSource",
]

/// Engine objects, registered in the handle table as the C API does.
func registered<T: Handled>(_ object: T) -> T {
    HandleTable.shared.register(object)
    return object
}

func makeTimer(in seconds: Double, interval: Double = 0, _ fire: @escaping (LoopTimer) -> Void) -> LoopTimer {
    registered(LoopTimer(fireDate: Clock.absoluteNow() + seconds, interval: interval, order: 0,
                         callout: fire, releaseInfo: nil, cContext: nil))
}

func makeObserver(_ activities: UInt = Activity.all, repeats: Bool = true, order: Int = 0,
                  _ callout: @escaping (Observer, UInt) -> Void) -> Observer {
    registered(Observer(activities: activities, repeats: repeats, order: order, callout: callout,
                        releaseInfo: nil, cContext: nil))
}

func makeSource(order: Int = 0, schedule: ((Loop, ModeName) -> Void)? = nil, cancel: ((Loop, ModeName) -> Void)? = nil,
                release: (() -> Void)? = nil, _ perform: @escaping () -> Void) -> Source {
    registered(Source(order: order, callbacks: SourceCallbacks(schedule: schedule, cancel: cancel, perform: perform,
                                                               release: release, describe: nil), cContext: nil))
}

func mode(_ name: String) -> ModeName { ModeName.intern(name)! }
