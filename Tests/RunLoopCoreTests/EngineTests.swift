import CRunLoop
import CRunLoopShims
import Foundation
@testable import RunLoopCore
import Synchronization
import TestSupport
import Testing

@Suite struct CrossThreadTests {
    @Test func signalAndWakeUpFromOtherThreadsRunOnTheLoopThread() {
        let performed = Atomic<Int>(0)
        let wrongThread = Atomic<Int>(0)
        onFreshThread {
            let loop = Registry.shared.current()!
            let tid = rl_gettid()
            let source = makeSource {
                if rl_gettid() != tid { wrongThread.add(1, ordering: .relaxed) }
                performed.add(1, ordering: .relaxed)
            }
            _ = loop.add(.source(source), to: .default)
            // Keep the loop alive and bounded: a long timer.
            let keepAlive = makeTimer(in: 100) { _ in }
            _ = loop.add(.timer(keepAlive), to: .default)
            let producer = Thread {
                for _ in 0..<200 {
                    source.signal()
                    loop.wakeUp()
                    // Wait until the loop took it, so each signal counts.
                    while source.isSignalled { usleep(50) }
                }
                loop.stop()
            }
            producer.start()
            var result = RunResult.timedOut
            while result != .stopped {
                result = loop.run(.default, seconds: 5, returnAfterSourceHandled: false)
            }
            keepAlive.invalidate()
            keepAlive.releaseRef()
            source.invalidate()
            source.releaseRef()
        }
        #expect(performed.load(ordering: .relaxed) == 200)
        #expect(wrongThread.load(ordering: .relaxed) == 0)
    }

    @Test func stopFromAnotherThreadEndsASleepingRun() {
        onFreshThread {
            let loop = Registry.shared.current()!
            let keepAlive = makeTimer(in: 100) { _ in }
            _ = loop.add(.timer(keepAlive), to: .default)
            let stopper = Thread {
                while !loop.isWaiting { usleep(100) }
                loop.stop()
            }
            stopper.start()
            #expect(loop.run(.default, seconds: 10, returnAfterSourceHandled: false) == .stopped)
            keepAlive.invalidate()
            keepAlive.releaseRef()
        }
    }

    @Test func performFromAnotherThreadRunsInMatchingModeOnly() {
        let trace = Trace()
        onFreshThread {
            let loop = Registry.shared.current()!
            let keepAlive = makeTimer(in: 100) { _ in }
            _ = loop.add(.timer(keepAlive), to: .common)
            let other = mode("swift-perform-other")
            _ = loop.add(.timer(keepAlive), to: other)
            let sender = Thread {
                _ = loop.perform(in: [other]) { trace.add("other-mode block") }
                _ = loop.perform(in: [.common]) { trace.add("common block") }
                _ = loop.perform(in: [.default]) { trace.add("default block") }
                loop.wakeUp()
            }
            sender.start()
            while trace.lines.count < 2 { _ = loop.run(.default, seconds: 0.01, returnAfterSourceHandled: false) }
            _ = loop.run(other, seconds: 0, returnAfterSourceHandled: false)
            keepAlive.invalidate()
            keepAlive.releaseRef()
        }
        #expect(trace.lines == ["common block", "default block", "other-mode block"])
    }

    @Test func mainLoopIsTheSameFromEveryThread() {
        let main = Registry.shared.mainLoop()!
        let seen = Mutex<Loop?>(nil)
        onFreshThread { seen.withLock { $0 = Registry.shared.mainLoop() } }
        #expect(seen.withLock { $0 } === main)
        #expect(main.isMain)
    }
}

@Suite struct TeardownTests {
    @Test func threadExitRemovesItemsAndReleasesThem() {
        let events = Trace()
        let handleBox = Atomic<UInt64>(0)
        onFreshThread {
            let loop = Registry.shared.current()!
            handleBox.store(loop.handle, ordering: .relaxed)
            let source = makeSource(cancel: { _, name in events.add("cancel \(name)") },
                                    release: { events.add("source released") }) {}
            _ = loop.add(.source(source), to: .default)
            _ = loop.add(.source(source), to: mode("swift-teardown"))
            source.releaseRef()  // the loop keeps it alive until the thread exits
            HandleTable.retainKnown(loop.handle)  // keep the loop past its thread
        }
        #expect(events.lines.sorted() == ["cancel kCFRunLoopDefaultMode", "cancel swift-teardown", "source released"].sorted())
        #expect(events.lines.last == "source released")
        let loopHandle = handleBox.load(ordering: .relaxed)
        // The retained handle is still good, and Stop/WakeUp are harmless.
        guard case .success(let object) = HandleTable.shared.retain(UInt(loopHandle), kind: .runLoop) else {
            Issue.record("retained loop handle went stale")
            return
        }
        let loop = object as! Loop
        loop.stop()
        loop.wakeUp()
        #expect(loop.add(.timer(makeTimer(in: 1) { _ in }), to: .default).isFailure)
        loop.releaseRef()
        loop.releaseRef()
        #expect(HandleTable.shared.retainCount(loopHandle) == nil)
    }
}

extension Result {
    var isFailure: Bool { if case .failure = self { return true } else { return false } }
}

@Suite struct HandleTableTests {
    @Test func staleAndWrongTypeHandlesAreRefused() {
        let timer = makeTimer(in: 1) { _ in }
        let handle = timer.handle
        #expect(HandleTable.isHandle(UInt(handle)))
        guard case .failure(.wrongType) = HandleTable.shared.retain(UInt(handle), kind: .source) else {
            Issue.record("wrong type accepted")
            return
        }
        #expect(HandleTable.shared.retainCount(handle) == 1)
        timer.releaseRef()
        guard case .failure(.stale) = HandleTable.shared.retain(UInt(handle), kind: .timer) else {
            Issue.record("stale handle accepted")
            return
        }
        // A new object reusing the slot gets a different handle.
        let next = makeTimer(in: 1) { _ in }
        #expect(next.handle != handle)
        guard case .failure(.stale) = HandleTable.shared.retain(UInt(handle), kind: .timer) else {
            Issue.record("stale handle accepted after slot reuse")
            return
        }
        next.releaseRef()
        guard case .failure(.null) = HandleTable.shared.retain(0, kind: nil) else {
            Issue.record("NULL accepted")
            return
        }
    }

    /// A pin is not a reference: the last release of a pinned object makes
    /// its handle refuse pins and references at once, and the last unpin
    /// finalizes it.  A pin of the library's may still become a reference.
    @Test func pinsDoNotKeepHandlesAlive() {
        final class Probe: Object, @unchecked Sendable {
            var finalized = 0
            init() { super.init(kind: .data) }
            override func finalize() { finalized += 1 }
        }
        let probe = registered(Probe())
        let handle = probe.handle
        guard case .pinned = HandleTable.pin(UInt(handle), kind: .data) else {
            Issue.record("live handle refused")
            return
        }
        #expect(HandleTable.shared.retainCount(handle) == 1)
        probe.releaseRef()  // the last reference, while pinned
        #expect(HandleTable.shared.retainCount(handle) == nil)
        #expect(probe.finalized == 0)
        guard case .failed(.stale) = HandleTable.pin(UInt(handle), kind: .data) else {
            Issue.record("released handle pinned")
            return
        }
        #expect(HandleTable.shared.retain(UInt(handle), kind: nil).isFailure)
        HandleTable.unpin(handle, from: "test")
        #expect(probe.finalized == 1)

        // Revived by a reference taken while pinned (retainKnown).
        let other = registered(Probe())
        guard case .pinned = HandleTable.pin(UInt(other.handle), kind: .data) else {
            Issue.record("live handle refused")
            return
        }
        other.releaseRef()
        other.retainRef()
        HandleTable.unpin(other.handle, from: "test")
        #expect(other.finalized == 0)
        #expect(HandleTable.shared.retainCount(other.handle) == 1)
        other.releaseRef()
        #expect(other.finalized == 1)
    }

    /// A hot word is read through a handle with no pin: only while the
    /// handle is live and of the asked kind, and an object whose handle
    /// died cannot write into the slot's next owner.
    @Test func aHotWordBelongsToOneLiveHandle() {
        let source = makeSource {}
        let handle = UInt(source.handle)
        #expect(HandleTable.peek(handle, kind: .source) == 0)
        source.signal()
        #expect(HandleTable.peek(handle, kind: .source) == Source.signalledBit)
        #expect(HandleTable.peek(handle, kind: .runLoop) == nil)
        #expect(HandleTable.peek(0, kind: .source) == nil)
        source.releaseRef()
        #expect(HandleTable.peek(handle, kind: .source) == nil)
        #expect(!source.isSignalled)
        // The next source probably reuses the slot; the old object's
        // writes are refused either way.
        let next = makeSource {}
        #expect(!source.hot.compareExchange(expected: 0, desired: Source.signalledBit).exchanged)
        source.hot.store(Source.signalledBit)
        #expect(!source.claimPerform())
        #expect(HandleTable.peek(UInt(next.handle), kind: .source) == 0)
        #expect(!next.isSignalled)
        // The C fast paths (no tag or range test, one XOR): only the live
        // owner's exact handle, kind and value.
        let h = UInt(next.handle)
        let both = Source.signalledBit | Source.wokenBit
        next.signalAndWakeUp()  // in no loop: marked pending and woken
        #expect(HandleTable.hotWordIs(h, kind: .source, both))
        #expect(HandleTable.hotWordHas(h, kind: .source, Source.signalledBit))
        #expect(!HandleTable.hotWordIs(h, kind: .source, Source.signalledBit))
        #expect(!HandleTable.hotWordIs(h, kind: .runLoop, both))
        #expect(!HandleTable.hotWordIs(h | 1 << 26, kind: .source, both))  // same slot, forged index bits
        #expect(!HandleTable.hotWordIs(h ^ 1 << 32, kind: .source, both))  // another generation
        #expect(!HandleTable.hotWordIs(h ^ 1 << 56, kind: .source, both))  // another tag
        #expect(!HandleTable.hotWordHas(h ^ 1 << 32, kind: .source, Source.signalledBit))
        #expect(!HandleTable.hotWordIs(0, kind: .source, both))
        #expect(!HandleTable.hotWordHas(0, kind: .source, 0))
        #expect(next.claimPerform())
        #expect(HandleTable.peek(h, kind: .source) == 0)
        next.releaseRef()
        #expect(!HandleTable.hotWordHas(h, kind: .source, 0))  // released: 0 is no key's
    }

    @Test func finalizeRunsOnceWhenTheLastReferenceGoes() {
        let released = Atomic<Int>(0)
        let source = makeSource(release: { released.add(1, ordering: .relaxed) }) {}
        source.retainRef()
        source.releaseRef()
        #expect(released.load(ordering: .relaxed) == 0)
        source.releaseRef()
        #expect(released.load(ordering: .relaxed) == 1)
    }
}

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

@Suite struct ModeNameTests {
    @Test func namesAreInternedByValue() {
        let a = ModeName.intern("swift-intern-test")!
        let b = "swift-intern-test".withCString { ModeName.intern($0)! }
        #expect(a == b)
        #expect(a.cString == b.cString)
        #expect(ModeName.intern(a.cString) == a)
        #expect("kCFRunLoopDefaultMode".withCString { ModeName.intern($0) } == .default)
        #expect(ModeName.intern(String(repeating: "x", count: ModeName.maxLength + 1)) == nil)
    }

    @Test func theDefaultAndCommonNamesHaveTheFixedIds() {
        #expect(ModeName.default.id == ModeName.defaultID)
        #expect(ModeName.common.id == ModeName.commonID)
        #expect(ModeName.common.isCommonModes && !ModeName.default.isCommonModes)
    }

    /// The cache in front of the table is keyed by the caller's pointer: a
    /// buffer reused for another name must give the other name.
    @Test func aReusedBufferInternsItsCurrentContents() {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 2 * ModeName.maxLength)
        defer { buffer.deallocate() }
        func fill(_ text: String) { _ = text.withCString { strcpy(buffer, $0) } }
        fill("swift-cache-a")
        let a = ModeName.intern(UnsafePointer(buffer))
        #expect(a == ModeName.intern("swift-cache-a"))
        #expect(ModeName.intern(UnsafePointer(buffer)) == a)  // the cached answer
        fill("swift-cache-b")
        #expect(ModeName.intern(UnsafePointer(buffer)) == ModeName.intern("swift-cache-b"))
        fill("swift-cache-a")
        #expect(ModeName.intern(UnsafePointer(buffer)) == a)
        fill(String(repeating: "y", count: ModeName.maxLength + 1))
        #expect(ModeName.intern(UnsafePointer(buffer)) == nil)  // over-long, even after a hit
        fill("kCFRunLoopCommonModes")
        #expect(ModeName.intern(UnsafePointer(buffer))?.isCommonModes == true)
    }

    /// A cache hit compares the caller's string to the interned one eight
    /// bytes at a time, reading past a shorter string's NUL only within
    /// the page its first byte is in: strings that end at the last byte
    /// before an unreadable page, and strings that differ from a cached
    /// name in one byte, a missing last byte or one extra byte, all intern
    /// to their own contents.
    @Test func cachedNamesAreComparedByContentsUpToAPageEnd() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let raw = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let raw, raw != MAP_FAILED else { Issue.record("mmap failed"); return }
        defer { munmap(raw, 2 * page) }
        #expect(mprotect(raw + page, page, PROT_NONE) == 0)  // a read past the page faults
        let memory = raw.assumingMemoryBound(to: CChar.self)
        let lengths = [1, 2, 7, 8, 9, 15, 16, 17, 21, 23, 24, 25, 40]
        // `text` written so its NUL is `gap` bytes before the page's end
        // (after garbage in front of it), interned through that pointer.
        func internAt(_ text: String, gap: Int) -> ModeName? {
            let bytes = Array(text.utf8)
            let start = page - gap - bytes.count - 1
            memset(memory, 0x5A, page)
            for (i, b) in bytes.enumerated() { memory[start + i] = CChar(bitPattern: b) }
            memory[start + bytes.count] = 0
            return ModeName.intern(UnsafePointer(memory + start))
        }
        for length in lengths {
            let name = String(repeating: "m", count: length - 1) + "\(length % 10)"
            let interned = try #require(ModeName.intern(name))
            for gap in [0, 1, 3, 8, 100] {
                #expect(internAt(name, gap: gap) == interned)
                #expect(internAt(name, gap: gap) == interned)  // the cached answer
                // Same pointer, other contents: a byte changed, one
                // missing, one more.
                for index in [0, length / 2, length - 1] {
                    var changed = Array(name.utf8)
                    changed[index] = UInt8(ascii: "#")
                    let other = String(decoding: changed, as: UTF8.self)
                    #expect(internAt(other, gap: gap) == ModeName.intern(other))
                    _ = internAt(name, gap: gap)  // cache the name again
                }
                let shorter = String(name.dropLast())
                if !shorter.isEmpty { #expect(internAt(shorter, gap: gap) == ModeName.intern(shorter)) }
                _ = internAt(name, gap: gap)
                #expect(internAt(name + "x", gap: gap) == ModeName.intern(name + "x"))
            }
        }
    }
}

@Suite struct GiveWayTests {
    /// rl_stats's last three lines from Swift: a source that re-signals
    /// itself keeps a run busy for 50 ms and the loop gives its CPU away
    /// (at least 10 times, at most once per 50 µs and once per pass); one-pass
    /// runs and a source signalled on every other timer tick never give way.
    @Test func sourcesKeepingARunBusyGiveWayAndNothingElseDoes() throws {
        let lines = Trace()
        onFreshThread {
            let loop = Registry.shared.current()!
            let insight = loop.makeInsight()
            func yesNo(_ b: Bool) -> String { b ? "yes" : "no" }
            let busy = mode("busy")
            var began = 0.0
            var performs = 0
            var source: Source!
            source = makeSource {
                performs += 1
                if performs == 1 { began = Clock.absoluteNow() }
                if Clock.absoluteNow() - began < 0.05 { source.signal() } else { loop.stop() }
            }
            _ = loop.add(.source(source), to: busy)
            insight.statistics.reset()
            source.signal()
            let start = Clock.absoluteNow()
            var result = loop.run(busy, seconds: 5, returnAfterSourceHandled: false)
            let busyMicros = (Clock.absoluteNow() - start) * 1e6
            let yields = insight.statistics.value(.busyYields)
            lines.add("busy 50 ms: \(resultNames[result]!), gave way >= 10: \(yesNo(yields >= 10)), "
                      + "at most once per 50 us: \(yesNo(Double(yields) <= busyMicros / 50 + 1)), "
                      + "once per pass at most: \(yesNo(yields < insight.statistics.value(.passes)))")
            insight.statistics.reset()
            for _ in 0..<200 {
                source.signal()
                _ = loop.run(busy, seconds: 0, returnAfterSourceHandled: false)
            }
            lines.add("200 one-pass runs: performed \(insight.statistics.value(.version0Performed)), gave way \(insight.statistics.value(.busyYields))")
            source.invalidate()
            source.releaseRef()

            insight.statistics.reset()
            let ticked = mode("ticked")
            let quiet = makeSource {}
            _ = loop.add(.source(quiet), to: ticked)
            var ticks = 0
            let tick = makeTimer(in: 0.001, interval: 0.001) { _ in
                ticks += 1
                if ticks > 40 { loop.stop() } else if ticks % 2 == 1 { quiet.signal() }
            }
            _ = loop.add(.timer(tick), to: ticked)
            result = loop.run(ticked, seconds: 5, returnAfterSourceHandled: false)
            lines.add("a source signalled every other 1 ms tick: \(resultNames[result]!), "
                      + "performed \(insight.statistics.value(.version0Performed)), gave way \(insight.statistics.value(.busyYields))")
            tick.invalidate()
            tick.releaseRef()
            quiet.invalidate()
            quiet.releaseRef()
        }
        // Line by line, so a failure shows the line that differs.
        let expected = Array(try Trace.expected("rl_stats").suffix(3))
        #expect(lines.lines.count == expected.count)
        for (got, want) in zip(lines.lines, expected) { #expect(got == want) }
    }
}

@Suite struct DescriptorMapTests {
    @Test func valuesByNumberGrowAndShrink() {
        var map = DescriptorMap<String>()
        #expect(map.isEmpty && map[0] == nil && map[-1] == nil && map[1 << 20] == nil)
        map[-3] = "ignored"
        #expect(map.isEmpty)
        map[5] = "five"
        map[1000] = "thousand"
        map[5, default: ""] += "!"
        #expect(map.count == 2 && map[5] == "five!" && map[1000] == "thousand" && map[6] == nil)
        #expect(map.keys == [5, 1000])
        map[1000] = nil
        map[1000] = nil  // twice: nothing to remove
        #expect(map.count == 1 && map.keys == [5] && map[1000] == nil)
        map[5] = nil
        #expect(map.isEmpty && map.keys.isEmpty)
    }
}

@Suite struct ModeTableTests {
    /// Modes are found by their name's id through every growth of the
    /// table, names not made are not found, and the order is creation order.
    @Test func modesAreFoundByNameAndListedInOrder() {
        var table = ModeTable()
        let names = (0..<200).map { ModeName.intern("mode-table-test-\($0)")! }
        #expect(table[names[0]] == nil)
        var made: [Mode] = []
        for (i, name) in names.enumerated() {
            let mode = Mode(name: name)
            table.insert(mode)
            made.append(mode)
            // Every mode made so far is found, the next one not yet.
            #expect(made.allSatisfy { table[$0.name] === $0 })
            if i + 1 < names.count { #expect(table[names[i + 1]] == nil) }
        }
        #expect(table.ordered.map(\.name) == names && table.names == names)
        #expect(table[.default] == nil)
    }
}

@Suite struct DescriptorSourcesTests {
    /// The sources of one descriptor keep the order they were added in
    /// through removals from the front, the middle and the end, and
    /// removing the last one says so.
    @Test func sourcesKeepTheirOrderThroughRemovals() {
        let made = (0..<4).map { _ in makeSource {} }
        func listed(_ list: DescriptorSources) -> [ObjectIdentifier] {
            var seen: [ObjectIdentifier] = []
            list.forEach { seen.append(ObjectIdentifier($0)) }
            return seen
        }
        var list = DescriptorSources(made[0])
        for source in made.dropFirst() { list.append(source) }
        #expect(listed(list) == made.map(ObjectIdentifier.init))
        let r1 = list.remove(made[2])  // the middle
        #expect(r1)
        #expect(listed(list) == [0, 1, 3].map { ObjectIdentifier(made[$0]) })
        let r2 = list.remove(made[0])  // the first: the next one moves up
        #expect(r2)
        #expect(listed(list) == [1, 3].map { ObjectIdentifier(made[$0]) })
        let r3 = list.remove(made[2])  // not here: nothing changes
        #expect(r3)
        #expect(listed(list) == [1, 3].map { ObjectIdentifier(made[$0]) })
        let r4 = list.remove(made[3])  // the end
        #expect(r4)
        #expect(listed(list) == [ObjectIdentifier(made[1])])
        let r5 = list.remove(made[1])  // the last one
        #expect(!r5)
        for source in made { source.invalidate() }
    }
}

@Suite struct FastPathLayoutTests {
    /// The opt-in inline fast paths (include/runloop/fastpath.h, layout
    /// RL_FAST_PATH_LAYOUT = `fastPathLayout`, which test_rl_fastpath
    /// checks from C) find an object's hot word at directory entry
    /// (handle >> 12) & 0x3FFF, word 0x2000 + (handle & 0xFFF) of that
    /// page, holding `kind << 24 | value` XOR the handle: the table's own
    /// layout, for objects in several pages.
    @Test func theHeadersLayoutIsTheTables() {
        let directory = rlInternalHotWordDirectory(fastPathLayout)!
        #expect(rlInternalHotWordDirectory(fastPathLayout) == directory)
        #expect(rlInternalHotWordDirectory(fastPathLayout + 1) != directory)
        let sources = (0..<5000).map { _ in makeSource {} }
        var mismatches = 0
        for source in sources {
            let h = source.handle
            let page = directory.load(fromByteOffset: Int((h >> 12) & 0x3FFF) * 8, as: UnsafeRawPointer?.self)
            let word = page.map { $0 + 0x10000 + Int(h & 0xFFF) * 8 }
            if word != UnsafeRawPointer(source.hot.pointer) { mismatches += 1 }
            source.signal()
            if let word, word.load(as: UInt64.self) ^ h != UInt64(HandleKind.source.rawValue) << 24 | UInt64(Source.signalledBit) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
        for source in sources { source.invalidate(); source.releaseRef() }
    }
}
