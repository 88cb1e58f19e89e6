import CRunLoop
import RunLoopCore
import TestSupport
import Testing

/// The README's Swift example, verbatim apart from the thread wrapper.
@Suite struct ReadmeExampleTests {
    @Test func readmeSwiftExampleRuns() {
        nonisolated(unsafe) var result: Int32 = 0
        onFreshThread {
            let loop = rlRunLoopGetCurrent()
            let timer = rlRunLoopTimerCreate(nil, rlAbsoluteTimeGetCurrent() + 0.1, 0, 0, 0,
                                             { _, _ in print("fired") }, nil)
            rlRunLoopAddTimer(loop, timer, "kCFRunLoopDefaultMode")
            rlRelease(UnsafeRawPointer(timer))
            result = rlRunLoopRunInMode("kCFRunLoopDefaultMode", 1.0, 0)
        }
        #expect(result == 1)
    }
}
