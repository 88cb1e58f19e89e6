import Foundation
import Glibc
import RunLoopKit
import Synchronization
import TestSupport
import Testing

/// The Swift side of Tests/c/test_rl_stop_race.c: `Loop.stop()` from
/// another thread is never lost, wherever it lands: right after a run
/// began, or between a pass's last look at the stop and its sleep (after
/// quick wake-ups).  Each round waits until the run is in progress
/// (`currentMode`), makes 0-3 wake-ups and stops it; a run still going 1 s
/// after the stop is a lost stop, counted and rescued with another stop.
/// Before the fix (Iteration.swift, `wakeUpIfStopped`) the C test lost a
/// stop every ~1,000-10,000 rounds on 2 busy CPUs.
@Suite(.serialized) struct StopRaceTests {
    /// A gate whose wait gives up after a while.
    final class TimedGate: @unchecked Sendable {
        private let condition = NSCondition()
        private var count = 0
        func post() { condition.lock(); count += 1; condition.broadcast(); condition.unlock() }
        /// Whether a post came within `seconds`.
        func wait(seconds: Double) -> Bool {
            let deadline = Date(timeIntervalSinceNow: seconds)
            condition.lock()
            defer { condition.unlock() }
            while count == 0 {
                if !condition.wait(until: deadline) { break }
            }
            guard count > 0 else { return false }
            count -= 1
            return true
        }
    }

    @Test func aStopFromAnotherThreadIsNeverLost() {
        let mode = Loop.Mode("stop-race-swift")
        let rounds = 5_000
        let start = TimedGate(), returned = TimedGate(), ready = TimedGate()
        let quit = Atomic<Bool>(false)
        let notStopped = Atomic<Int>(0)
        let shared = Shared<Loop?>(nil)
        let thread = spawn {
            let loop = Loop.current
            let idle = LoopSource {}  // never signalled: only a stop ends a run
            try? loop.add(idle, to: mode)
            shared.value = loop
            ready.post()
            while start.wait(seconds: 3600), !quit.load(ordering: .relaxed) {
                if loop.run(in: mode, for: .seconds(1e6)) != .stopped { notStopped.add(1, ordering: .relaxed) }
                returned.post()
            }
            loop.remove(idle, from: mode)
        }
        #expect(ready.wait(seconds: 30))
        let loop = shared.value!
        var lost = 0, seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<rounds where lost < 5 {
            start.post()
            var polls = 0
            while loop.currentMode == nil && polls < 10_000_000 {
                polls += 1
                if polls > 64 { sched_yield() }
            }
            seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17
            for _ in 0..<(seed & 3) { loop.wakeUp() }
            loop.stop()
            if !returned.wait(seconds: 1) {
                lost += 1
                loop.stop()
                _ = returned.wait(seconds: 30)
            }
        }
        quit.store(true, ordering: .relaxed)
        start.post()
        join(thread)
        #expect(lost == 0)
        #expect(notStopped.load(ordering: .relaxed) == 0)
    }

    /// A fresh thread per round, its loop's first run stopped as soon as it
    /// is in progress (a first run is slower to reach its first pass: the
    /// widest window), more stops and wake-ups racing the thread's exit,
    /// and a stop of the loop once its thread is gone.
    @Test func aStopRacingAThreadsFirstRunAndExitIsNeverLost() {
        let mode = Loop.Mode("stop-race-exit-swift")
        var lost = 0, notStopped = 0
        for round in 0..<3_000 where lost < 5 {
            let ready = TimedGate()
            let shared = Shared<Loop?>(nil)
            let result = Shared<Loop.RunResult?>(nil)
            let done = TimedGate()
            let thread = spawn {
                let loop = Loop.current
                let idle = LoopSource {}
                try? loop.add(idle, to: mode)
                shared.value = loop
                ready.post()
                result.value = loop.run(in: mode, for: .seconds(1e6))
                loop.remove(idle, from: mode)
                done.post()
            }
            _ = ready.wait(seconds: 30)
            let loop = shared.value!
            var polls = 0
            while loop.currentMode == nil && polls < 10_000_000 {
                polls += 1
                if polls > 64 { sched_yield() }
            }
            loop.stop()
            for _ in 0..<(round % 4) {
                loop.stop()
                loop.wakeUp()
            }
            if !done.wait(seconds: 1) {
                lost += 1
                loop.stop()
                _ = done.wait(seconds: 30)
            }
            join(thread)
            if result.value != .stopped { notStopped += 1 }
            loop.stop()  // its thread has exited: nothing to stop, no error
            loop.wakeUp()
        }
        #expect(lost == 0)
        #expect(notStopped == 0)
    }
}
