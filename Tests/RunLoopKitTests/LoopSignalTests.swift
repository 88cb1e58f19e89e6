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

    /// Sends `signo` `times` times from a new thread that unblocks it and
    /// raises it: each arrival is counted before `raise` returns.  A
    /// `kill()` from a thread that blocks the signal (a concurrency pool
    /// thread) returns before another thread takes it, so a run right
    /// after it could see some of the arrivals, and one still pending
    /// after the watch ends would meet the default disposition.
    static func raiseCaught(_ signo: Int32, times: Int) {
        var thread = pthread_t()
        let packed = UnsafeMutableRawPointer(bitPattern: Int(signo) << 8 | times)
        pthread_create(&thread, nil, { arg in
            let value = Int(bitPattern: arg)
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, Int32(value >> 8))
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            for _ in 0 ..< (value & 0xff) { raise(Int32(value >> 8)) }
            return nil
        }, packed)
        pthread_join(thread, nil)
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
        Self.raiseCaught(signo, times: 2)
        _ = loop.run(in: .default, for: .seconds(5), returnAfterSourceHandled: true)
        #expect(counts.value == [2])
        Self.raiseCaught(signo, times: 1)
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
        Self.raiseCaught(signo, times: 3)
        _ = Loop.current.run(in: .default, for: .seconds(5), returnAfterSourceHandled: true)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == 3)
    }
}
