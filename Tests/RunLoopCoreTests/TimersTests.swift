import CRunLoop
import CRunLoopShims
import Foundation
@testable import RunLoopCore
import Synchronization
import TestSupport
import Testing

/// glibc's malloc_usable_size (malloc.h, which Glibc does not import).
@_silgen_name("malloc_usable_size") private func mallocUsableSize(_ block: UnsafeMutableRawPointer?) -> Int

@Suite struct TimerEngineTests {
    /// A timer is one heap block of at most 160 bytes (libuv's uv_timer_t
    /// plus its malloc header): a context with no callbacks is kept as
    /// its info alone.  One with callbacks keeps them in a second block.
    /// A version-0 source made from an info and a perform function (the
    /// usual context) is one heap block of at most 144 bytes (libuv's
    /// uv_async_t plus its malloc header); other contexts keep theirs in a
    /// second block.
    @Test func aSourceFitsIn144Bytes() {
        var c = RLRunLoopSourceContext()
        c.perform = { _ in }
        let plain = Source(order: 0, context: c)
        let bytes = mallocUsableSize(Unmanaged.passUnretained(plain).toOpaque())
        #expect(bytes <= 136, "a Source takes \(bytes) usable bytes")
        #expect(plain.cContext?.perform != nil && plain.cContext?.equal == nil)
        c.equal = { a, b in a == b ? 1 : 0 }
        let full = Source(order: 0, context: c)
        #expect(full.cContext?.equal != nil)
        #expect(full.identity?.equal != 0 && plain.identity?.equal == 0)
    }

    /// 120 usable bytes is a 128-byte block: one that malloc's fast bins
    /// take back cheaply when a burst of fired timers is freed.
    @Test func aTimerFitsIn128Bytes() {
        let plain = Timer(fireDate: 0, interval: 1, order: 0, callout: .function(nil, RLRunLoopTimerContext()))
        let bytes = mallocUsableSize(Unmanaged.passUnretained(plain).toOpaque())
        #expect(bytes <= 120, "a Timer takes \(bytes) usable bytes")
        var c = RLRunLoopTimerContext()
        c.copyDescription = { _ in nil }
        let full = Timer(fireDate: 0, interval: 1, order: 0, callout: .function(nil, c))
        #expect(full.cContext?.copyDescription != nil)
        #expect(plain.cContext?.copyDescription == nil)
    }

    /// What few timers have lives in their extras (TimerExtras): the
    /// interval, order and tolerance read back as set, whether the extras
    /// were made at creation or later; a timer in several modes finds,
    /// lists and leaves each placement.
    @Test func timerExtrasKeepWhatWasSet() {
        let oneShot = Timer(fireDate: 0, interval: 0, order: 0, callout: .function(nil, RLRunLoopTimerContext()))
        #expect(oneShot.interval == 0 && oneShot.order == 0 && oneShot.tolerance == 0 && !oneShot.repeats)
        oneShot.tolerance = 0.25
        #expect(oneShot.tolerance == 0.25 && oneShot.interval == 0 && oneShot.order == 0)
        let repeating = Timer(fireDate: 0, interval: 2, order: -7, callout: .function(nil, RLRunLoopTimerContext()))
        #expect(repeating.interval == 2 && repeating.order == -7 && repeating.repeats)
        repeating.tolerance = 5  // at most half the interval
        #expect(repeating.tolerance == 1)
        // A mode's reference to a timer is a handle reference.
        HandleTable.shared.register(oneShot)
        HandleTable.shared.register(repeating)
        onFreshThread {
            let loop = Registry.shared.current()!
            let names: [ModeName] = [.default, mode("extras-a"), mode("extras-b"), mode("extras-c")]
            for name in names { _ = loop.add(.timer(oneShot), to: name) }
            for name in names { #expect(loop.contains(.timer(oneShot), in: name)) }
            loop.lock.withLock {
                #expect(oneShot.placementCount == 4)
                var listed = 0
                oneShot.forEachPlacement { _, _ in listed += 1 }
                #expect(listed == 4)
            }
            loop.remove(.timer(oneShot), from: names[0])  // the inline one: the last extra moves in
            loop.remove(.timer(oneShot), from: names[2])
            #expect(!loop.contains(.timer(oneShot), in: names[0]) && !loop.contains(.timer(oneShot), in: names[2]))
            #expect(loop.contains(.timer(oneShot), in: names[1]) && loop.contains(.timer(oneShot), in: names[3]))
            #expect(loop.lock.withLock { oneShot.placementCount } == 2)
            oneShot.invalidate()
            for name in names { #expect(!loop.contains(.timer(oneShot), in: name)) }
            #expect(loop.lock.withLock { oneShot.placementCount } == 0)
        }
        oneShot.releaseRef()
        repeating.releaseRef()
    }

    /// A mode holds a timer by a handle reference (its slot holds it
    /// unretained): a timer with no handle (the table was full) is refused
    /// as out of resources, not held without a reference.
    @Test func aTimerWithNoHandleIsRefused() {
        let unregistered = Timer(fireDate: 0, interval: 0, order: 0, callout: .function(nil, RLRunLoopTimerContext()))
        onFreshThread {
            let loop = Registry.shared.current()!
            guard case .failure(.outOfMemory) = loop.add(timer: unregistered, to: .default) else {
                Issue.record("a timer with no handle was added")
                return
            }
            #expect(!loop.contains(.timer(unregistered), in: .default))
        }
    }

    /// The list of due timers keeps its memory between passes up to
    /// `keptCapacity` entries, and gives back a larger burst's.
    @Test func dueTimersKeepSmallListsAndGiveBackLargeOnes() {
        let due = DueTimers()
        due.reserve(100)
        #expect(due.capacity == 100 && due.hasRoom)
        due.removeAll()
        #expect(due.capacity == 100 && due.count == 0)
        due.reserve(DueTimers.keptCapacity + 1)
        #expect(due.capacity == DueTimers.keptCapacity + 1)
        due.removeAll()
        #expect(due.capacity == 0 && !due.hasRoom)
    }

    /// A pass's list of due timers is put in firing order in place: in
    /// order already, reversed, and shuffled with equal deadlines (FIFO
    /// among them by sequence number).
    @Test func dueTimersSortInFiringOrder() {
        let timer = Timer(fireDate: 0, interval: 0, order: 0, callout: .function(nil, RLRunLoopTimerContext()))
        var generator = SystemRandomNumberGenerator()
        for shape in 0 ..< 3 {
            let inOrder = (1 ... 3000).map { DueToken(TimerHeap.Entry(deadline: UInt64($0 / 3), seq: UInt64($0), slot: $0)) }
            var tokens = inOrder
            if shape == 1 { tokens.reverse() }
            if shape == 2 { tokens.shuffle(using: &generator) }
            let due = DueTimers()
            due.reserve(tokens.count)
            for token in tokens { due.append(DueTimer(timer: .passUnretained(timer), token: token)) }
            due.sortByDeadline()
            #expect((0 ..< due.count).map { due[$0].token } == inOrder)
            due.removeAll()
        }
    }

    /// MallocList's in-place sort against Swift's, on the shapes that
    /// trouble a quicksort (sorted, reversed, organ pipe, sawtooth, a
    /// median-of-three killer, few distinct values, all equal), on every
    /// length up to 40 (the insertion sort's ranges and the first
    /// partitions) and two large ones, with the heapsort fallback forced
    /// too (depth limits 0 and 1).
    @Test func mallocListSortsInPlaceOnEveryShape() {
        var generator = SystemRandomNumberGenerator()
        func shapes(_ n: Int) -> [[Int]] {
            let up = Array(0 ..< n)
            var killer = Array(repeating: 0, count: n)  // Musser's median-of-3 killer
            let k = n / 2
            for i in 0 ..< k where k > 0 {
                killer[2 * i] = i
                if 2 * i + 1 < n { killer[2 * i + 1] = k + i }
            }
            for i in 0 ..< k { killer[k + i] = 2 * i + 1 }
            return [up, up.reversed(), up.shuffled(using: &generator),
                    (0 ..< n).map { $0 < n / 2 ? 2 * $0 : 2 * (n - $0) - 1 },
                    (0 ..< n).map { ($0 % 7) * n + $0 }, killer,
                    (0 ..< n).map { _ in Int.random(in: 0 ..< 3, using: &generator) },  // mostly equal
                    Array(repeating: 5, count: n)]
        }
        for n in Array(0 ... 40) + [1000, 5000] {
            for values in shapes(n) {
                for depthLimit in [nil, 0, 1] as [Int?] {
                    var list = MallocList<Int>(keptCapacity: 0)
                    list.reserve(values.count)
                    var appended = true
                    for v in values { appended = list.append(v) && appended }
                    #expect(appended)
                    list.sort(depthLimit: depthLimit) { $0 < $1 }
                    let sorted = (0 ..< list.count).map { list[$0] }
                    #expect(sorted == values.sorted(), "n \(n) depth \(String(describing: depthLimit))")
                }
            }
        }
    }

    @Test func heapPopsByDeadlineThenFIFO() {
        var heap = TimerHeap()
        var expected: [(UInt64, UInt64)] = []
        var generator = SystemRandomNumberGenerator()
        for seq in 1...2000 {
            let deadline = UInt64.random(in: 0..<50, using: &generator)
            _ = heap.push(.init(deadline: deadline, seq: UInt64(seq), slot: seq))
            expected.append((deadline, UInt64(seq)))
        }
        expected.sort { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
        var popped: [(UInt64, UInt64)] = []
        while let entry = heap.pop() { popped.append((entry.deadline, entry.seq)) }
        #expect(popped.map(\.0) == expected.map(\.0))
        #expect(popped.map(\.1) == expected.map(\.1))
    }

    /// Runs 50 one-shot timers, timer i due at `date + offset(i)`, each
    /// tracing its number; `before` runs before the adds (with the loop),
    /// `after` after them (with the timers and `date`).
    private func fireFiftyTimers(offset: @escaping @Sendable (Int) -> Double,
                                 before: @escaping @Sendable (Loop) -> Void = { _ in },
                                 after: @escaping @Sendable ([Timer], Double) -> Void = { _, _ in }) -> [String] {
        let trace = Trace()
        onFreshThread {
            let loop = Registry.shared.current()!
            before(loop)
            let date = Clock.absoluteNow() + 0.02
            var timers: [Timer] = []
            for i in 0..<50 {
                let t = registered(Timer(fireDate: date + offset(i), interval: 0, order: 0,
                                             callout: .closure { _ in trace.add("\(i)") }))
                _ = loop.add(.timer(t), to: .default)
                timers.append(t)
            }
            after(timers, date)
            #expect(loop.run(.default, seconds: 1, returnAfterSourceHandled: false) == .finished)
            timers.forEach { $0.releaseRef() }
        }
        return trace.lines
    }

    @Test func timersDueTogetherFireInTheOrderScheduled() {
        #expect(fireFiftyTimers(offset: { _ in 0 }) == (0..<50).map { "\($0)" })
    }

    @Test func heapSequenceNumbersAreRenumberedBeforeTheyRunOut() {
        let lines = fireFiftyTimers(offset: { Double($0 % 3) * 0.001 }, before: { loop in
            // A tiny limit: the mode renumbers its entries every few schedules.
            loop.lock.withLock { loop.existingModeLocked(.default)!.timers.seqLimit = 7 }
        }, after: { timers, date in
            timers[4].setNextFireDate(date)  // a stale entry, and last among the earliest
        })
        let group = { (g: Int) in (0..<50).filter { $0 % 3 == g && $0 != 4 }.map { "\($0)" } }
        #expect(lines == group(0) + ["4"] + group(1) + group(2))
    }

    @Test func missedSlotsAreSkippedNotBurst() {
        let firings = Atomic<Int>(0)
        onFreshThread {
            let loop = Registry.shared.current()!
            let timer = makeTimer(in: 0.01, interval: 0.02) { _ in
                if firings.add(1, ordering: .relaxed).newValue == 1 { usleep(75_000) }  // overrun ~3.5 slots
            }
            _ = loop.add(.timer(timer), to: .default)
            let firstDate = timer.nextFireDate
            _ = loop.run(.default, seconds: 0.15, returnAfterSourceHandled: false)
            // 150 ms: slot at 10 ms overruns to ~85 ms, then slots 90, 110, 130, 150.
            #expect(firings.load(ordering: .relaxed) <= 5)
            let slots = (timer.nextFireDate - firstDate) / 0.02
            #expect(abs(slots - slots.rounded()) < 1e-3)  // still on the original grid (within 20 µs)
            timer.invalidate()
            timer.releaseRef()
        }
    }
}
