import Glibc
import RunLoopKit
import Testing

/// LoopSignal (runloop/watch.h's RLSignal): real-time signals of their own
/// (other tests run in parallel in this process).
@Suite(.serialized) struct LoopSignalTests {
    static func disposition(_ signo: Int32) -> UnsafeRawPointer? {
        var action = sigaction()
        sigaction(signo, nil, &action)
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: UnsafeRawPointer?.self)
    }

    @Test func countsArrivalsOnTheLoopsThreadAndRestoresTheDisposition() throws {
        let signo = __libc_current_sigrtmin() + 5
        #expect(Self.disposition(signo) == nil)  // SIG_DFL
        let counts = Shared<[Int]>([])
        let watcher = try LoopSignal(signo) { signal, count in
            #expect(signal == signo)
            counts.update { $0.append(count) }
        }
        #expect(watcher.signal == signo && watcher.isValid)
        let loop = Loop.current
        try loop.add(watcher)
        kill(getpid(), signo); kill(getpid(), signo)
        _ = loop.run(in: .default, for: .seconds(5), returnAfterSourceHandled: true)
        #expect(counts.value == [2])
        kill(getpid(), signo)
        _ = loop.run(in: .default, for: .seconds(5), returnAfterSourceHandled: true)
        #expect(counts.value == [2, 1])
        watcher.invalidate()
        #expect(!watcher.isValid)
        #expect(Self.disposition(signo) == nil)
    }

    @Test func refusesSignalsThatCannotBeCaught() {
        for bad: Int32 in [0, SIGKILL, SIGSTOP, SIGSEGV, 65] {
            #expect(throws: SignalError.self) { _ = try LoopSignal(bad) { _, _ in } }
        }
    }

    @Test func arrivalsAsAnAsyncSequence() async throws {
        let signo = __libc_current_sigrtmin() + 6
        let stream = try LoopSignal.arrivals(of: signo, on: Loop.current)
        kill(getpid(), signo); kill(getpid(), signo); kill(getpid(), signo)
        _ = Loop.current.run(in: .default, for: .seconds(5), returnAfterSourceHandled: true)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 3)
    }
}
