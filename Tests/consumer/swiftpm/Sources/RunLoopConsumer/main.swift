// Drives runloop through the C API that the `runloop` product exports
// (`import CRunLoop` gives the header's types and functions), from Swift.
// Prints the same transcript as Tests/consumer/c/consumer.c.
import CRunLoop
#if canImport(Glibc)
import Glibc
#endif

nonisolated(unsafe) var fired = 0

let version = String(cString: RLGetVersion())
print("library \(version), header \(RL_VERSION_STRING): \(version == RL_VERSION_STRING ? "match" : "MISMATCH")")

let rl = RLRunLoopGetCurrent()
let timer = RLRunLoopTimerCreate(nil, RLAbsoluteTimeGetCurrent(), 0.001, 0, 0, { _, _ in
    fired += 1
    print("tick \(fired)")
    if fired == 3 { RLRunLoopStop(RLRunLoopGetCurrent()) }
}, nil)
let activities = RLOptionFlags(kRLRunLoopEntry) | RLOptionFlags(kRLRunLoopExit)
let observer = RLRunLoopObserverCreate(nil, activities, 1, 0, { _, activity, _ in
    if activity == RLRunLoopActivity(kRLRunLoopEntry) { print("entry") }
    if activity == RLRunLoopActivity(kRLRunLoopExit) { print("exit") }
}, nil)
RLRunLoopAddTimer(rl, timer, "kCFRunLoopDefaultMode")
RLRunLoopAddObserver(rl, observer, "kCFRunLoopDefaultMode")

let result = RLRunLoopRunInMode("kCFRunLoopDefaultMode", 10, 0)
print("result \(result == RLRunLoopRunResult(kRLRunLoopRunStopped) ? "stopped" : "UNEXPECTED")")

RLRunLoopTimerInvalidate(timer)
RLRunLoopObserverInvalidate(observer)
RLRelease(UnsafeRawPointer(timer))
RLRelease(UnsafeRawPointer(observer))
exit(result == RLRunLoopRunResult(kRLRunLoopRunStopped) && version == RL_VERSION_STRING ? 0 : 1)
