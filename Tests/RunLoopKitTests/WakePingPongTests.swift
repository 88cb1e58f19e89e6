import RunLoopKit
import Glibc
import Synchronization
import TestSupport
import Testing

/// The Swift side of Tests/c/test_rl_wake_pingpong.c :
/// two loops asleep in `run(in:for:)` bounce one token through each of
/// the Swift API's hand-overs (signal + wakeUp, signalAndWakeUp, perform +
/// wakeUp).  With one item in flight, a lost wake-up is a stall: no bounce
/// for 250 ms while the token waits.  The watchdog counts stalls, rescues
/// each with a wake-up of both loops, and the test fails if there was any.
@Suite(.serialized) struct WakePingPongTests {
    enum Path: CaseIterable, Sendable { case pair, oneCall, perform }

    final class Side: @unchecked Sendable {
        var loop: Loop!
        var source: LoopSource!
        var peer: Side!
    }

    @Test(arguments: Path.allCases)
    func noWakeUpIsLost(_ path: Path) {
        let mode = Loop.Mode("pingpong-swift")
        let bounces = Atomic<Int>(0)
        let hold = Atomic<Bool>(false)
        let quit = Atomic<Bool>(false)
        let sides = [Side(), Side()]
        sides[0].peer = sides[1]
        sides[1].peer = sides[0]

        @Sendable func send(_ to: Side) {
            switch path {
            case .pair:
                to.source.signal()
                to.loop.wakeUp()
            case .oneCall:
                to.source.signalAndWakeUp()
            case .perform:
                _ = to.loop.perform(in: [mode]) { receive(to) }
                to.loop.wakeUp()
            }
        }
        @Sendable func receive(_ side: Side) {
            bounces.add(1, ordering: .relaxed)
            if !hold.load(ordering: .relaxed) { send(side.peer) }
        }

        let ready = Gate()
        var threads: [pthread_t] = []
        for side in sides {
            threads.append(spawn {
                side.loop = Loop.current
                side.source = LoopSource { receive(side) }
                try? side.loop.add(side.source, to: mode)
                ready.post()
                while !quit.load(ordering: .relaxed) {
                    _ = side.loop.run(in: mode, for: .seconds(10), returnAfterSourceHandled: false)
                }
                side.loop.remove(side.source, from: mode)
            })
            ready.wait()
        }

        send(sides[0])
        var stalls = 0
        let start = Loop.now
        var last = 0, lastChange = start
        while Loop.now - start < 0.4 {
            usleep(2_000)
            let n = bounces.load(ordering: .relaxed)
            if n != last {
                (last, lastChange) = (n, Loop.now)
            } else if Loop.now - lastChange >= 0.25 {
                stalls += 1
                sides[0].loop.wakeUp()
                sides[1].loop.wakeUp()
                lastChange = Loop.now
            }
        }
        hold.store(true, ordering: .relaxed)
        usleep(50_000)
        quit.store(true, ordering: .relaxed)
        for side in sides { side.loop.stop() }
        for thread in threads { join(thread) }
        #expect(bounces.load(ordering: .relaxed) > 100)
        #expect(stalls == 0)
    }
}
