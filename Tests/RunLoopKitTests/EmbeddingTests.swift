import Glibc
import RunLoopKit
import Testing

/// Touched on the loop's thread only.
private final class Count: @unchecked Sendable { var value = 0 }

/// Loop.pollDescriptor / timeout / runPending and DescriptorReadiness
/// (the C side is Tests/c/test_rl_embed.c).
@Suite struct EmbeddingTests {
    /// Runs `body` on a fresh thread (its own loop) and waits for it.
    private func onFreshThread(_ body: @escaping @Sendable () -> Void) {
        final class Job { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
        var thread = pthread_t()
        pthread_create(&thread, nil, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, Unmanaged.passRetained(Job(body)).toOpaque())
        pthread_join(thread, nil)
    }

    @Test func drivesALoopFromOutside() {
        onFreshThread {
            let loop = Loop.current
            let fd = try! loop.pollDescriptor()
            #expect(fd >= 0)
            let mode = Loop.Mode("embed-swift")
            #expect(try! loop.timeout(in: mode) == nil)
            let fired = Count()
            let timer = LoopTimer(after: .milliseconds(20)) { _ in fired.value += 1 }
            try! loop.add(timer, to: mode)
            let wait = try! loop.timeout(in: mode)
            #expect(wait != nil && wait! > .zero && wait! <= .milliseconds(20))
            // The add woke the loop (a timer added to the mode it is
            // prepared for, made by the add): one spare pass may come
            // first; then the timerfd alone makes the descriptor readable.
            var passes = 0
            while fired.value == 0 && passes < 5 {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                #expect(poll(&entry, 1, 2000) == 1)  // no timeout given: the descriptor tells
                #expect(try! loop.runPending(in: mode) == .timedOut)
                passes += 1
            }
            #expect(fired.value == 1)
            #expect(passes <= 2)
        }
    }

    /// Whether `fd` is readable within `ms` milliseconds.
    private func readable(_ fd: Int32, _ ms: Int32 = 0) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, ms) == 1 && entry.revents & Int16(POLLIN) != 0
    }

    /// A driver waiting on the descriptor alone for 200 ms: its rounds.
    private func rounds(_ loop: Loop, _ fd: Int32, _ mode: Loop.Mode) -> Int {
        var rounds = 0
        let end = ContinuousClock.now + .milliseconds(200)
        while case let left = end - ContinuousClock.now, left > .zero {
            _ = try? loop.timeout(in: mode)
            _ = readable(fd, Int32(left / .milliseconds(1)) + 1)
            _ = try? loop.runPending(in: mode)
            rounds += 1
        }
        return rounds
    }

    /// The descriptor is quiet while the mode prepared for has no work: a
    /// wake-up while it does not exist tells the driver once (before, it
    /// stayed readable: ~70k rounds in 200 ms); the common modes are
    /// refused and leave the loop prepared for none.
    @Test func staysQuietWithoutWorkInTheMode() {
        onFreshThread {
            let loop = Loop.current
            let fd = try! loop.pollDescriptor()
            let missing = Loop.Mode("embed-swift-missing")
            #expect(try! loop.timeout(in: missing) == nil)
            loop.wakeUp()
            #expect(readable(fd))
            #expect(try! loop.runPending(in: missing) == .finished)
            #expect(!readable(fd))
            loop.wakeUp()
            #expect(rounds(loop, fd, missing) <= 4)

            #expect(throws: LoopError.commonModes) { try loop.timeout(in: .common) }
            #expect(throws: LoopError.commonModes) { try loop.runPending(in: .common) }
            #expect(loop.run(in: .common, for: .seconds(5)) == .finished)  // at once, as CF
            loop.wakeUp()  // prepared for no mode: nothing to tell
            #expect(!readable(fd))

            // The mode comes into existence: the driver hears of it.
            let fired = Count()
            let timer = LoopTimer(after: .milliseconds(10)) { _ in fired.value += 1 }
            #expect(try! loop.timeout(in: missing) == nil)
            try! loop.add(timer, to: missing)
            #expect(readable(fd))
            var passes = 0
            while fired.value == 0 && passes < 5 {
                #expect(try! loop.timeout(in: missing) != nil)
                #expect(readable(fd, 2000))
                _ = try! loop.runPending(in: missing)
                passes += 1
            }
            #expect(fired.value == 1)
        }
    }

    /// The descriptor closed by mistake and its number taken by an open():
    /// the next pollDescriptor() notices at once and hands out a new,
    /// working one (before, the stolen number until the next prepare).
    @Test func replacesAClosedDescriptorAtOnce() {
        onFreshThread {
            let loop = Loop.current
            let fd = try! loop.pollDescriptor()
            close(fd)
            let stolen = open("/dev/null", O_RDONLY)  // fd's number, unless a test in parallel took it
            let fresh = try! loop.pollDescriptor()
            #expect(fresh >= 0 && fresh != fd && fresh != stolen)
            let mode = Loop.Mode("embed-swift-closed")
            let performed = Count()
            let source = LoopSource { performed.value += 1 }
            try! loop.add(source, to: mode)
            #expect(try! loop.timeout(in: mode) == nil)
            #expect(!readable(fresh))
            source.signalAndWakeUp()
            #expect(readable(fresh, 2000))
            _ = try! loop.runPending(in: mode)
            #expect(performed.value == 1)
            #expect(fcntl(stolen, F_GETFD) >= 0)
            close(stolen)
            source.invalidate()
        }
    }

    @Test func refusesAnotherThread() {
        let loop = Loop.current
        let mode = Loop.Mode("embed-swift-other")
        onFreshThread {
            #expect(throws: LoopError.wrongThread) { try loop.runPending(in: mode) }
            #expect(throws: LoopError.wrongThread) { try loop.timeout(in: mode) }
        }
    }

    @Test func readinessIsAnAsyncSequence() async {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let reader = fds[0], writer = fds[1]
        #expect(write(writer, "x", 1) == 1)
        var count = 0
        for await _ in DescriptorReadiness(reader) {
            count += 1
            var byte: UInt8 = 0
            _ = read(reader, &byte, 1)
            if count == 1 { #expect(write(writer, "y", 1) == 1) } else { break }
        }
        #expect(count == 2)
        close(reader)
        close(writer)
    }
}
