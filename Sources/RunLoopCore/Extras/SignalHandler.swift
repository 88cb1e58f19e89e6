import CRunLoopShims
import Glibc
import Synchronization

/// The address of the handler's table (0 until the first watch): one
/// arrival count per signal number (`signalNumbers` words), then
/// `slotCount` wake slots.  A wake slot is 0, or a watch's signal number
/// (high 32 bits) and eventfd (low 32 bits).  Made once, never freed.
/// These three globals have constant initial values, so they are
/// statically initialized: the handler reads them with plain atomic loads,
/// never through a lazy initialization.
private let tableAddress = Atomic<UInt>(0)
/// How many slots, from the first, have ever been used: the handler scans
/// no further.
private let slotsInUse = Atomic<Int>(0)
/// How many runs of the handler are between their first and last access
/// to the table (see `SignalHandler.unwatch`).
private let handlersRunning = Atomic<Int>(0)

/// A signal's disposition (struct sigaction).
private typealias Disposition = sigaction

private let signalNumbers = 65  // 1...SIGRTMAX (64); index 0 unused
private let slotCount = 1024

/// The disposition of every watched signal.  Async-signal-safe: atomics
/// and write(2) (rl_eventfd_signal) only, no allocation, no lock, no Swift
/// runtime call; errno is kept.
private func handleSignal(_ signo: Int32) {
    let savedErrno = errno
    handlersRunning.wrappingAdd(1, ordering: .sequentiallyConsistent)
    if let table = UnsafeMutablePointer<Atomic<UInt64>>(bitPattern: tableAddress.load(ordering: .acquiring)),
       signo > 0 && Int(signo) < signalNumbers {
        table[Int(signo)].wrappingAdd(1, ordering: .sequentiallyConsistent)
        let slots = table + signalNumbers
        let wanted = UInt64(UInt32(signo))
        for i in 0..<slotsInUse.load(ordering: .sequentiallyConsistent) {
            let slot = slots[i].load(ordering: .sequentiallyConsistent)
            if slot >> 32 == wanted { _ = rl_eventfd_signal(Int32(truncatingIfNeeded: slot)) }
        }
    }
    handlersRunning.wrappingSubtract(1, ordering: .sequentiallyConsistent)
    errno = savedErrno
}

/// The process-wide side of RLSignal: which signals are caught, the
/// dispositions they replaced, and the wake slots the handler writes.
///
/// Why a handler and an eventfd per watch rather than signalfd: a
/// signalfd sees only signals blocked in every thread, and the library
/// can block nothing in threads it does not own; a handler runs whatever
/// the masks are.  Each watch owns an eventfd (a plain version-1 source),
/// so loops on several threads each wake and each count every arrival
/// against the process-wide count.
package enum SignalHandler {
    package struct Failure: Error {
        package let code: ErrorCode
        package let detail: String

        package func report(_ function: StaticString) { reportError(function, code, detail) }
    }

    /// A watch: its eventfd, its slot, and the arrival count it starts from.
    package typealias Watch = (fd: Int32, slot: Int, seen: UInt64)

    private struct State {
        var watchers = [Int](repeating: 0, count: signalNumbers)
        var saved = [Disposition](repeating: Disposition(), count: signalNumbers)
    }

    private static let state: Guarded<State> = {
        let table = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: signalNumbers + slotCount)
        for i in 0..<(signalNumbers + slotCount) { (table + i).initialize(to: Atomic(0)) }
        tableAddress.store(UInt(bitPattern: table), ordering: .releasing)
        return Guarded(State())
    }()

    private static var table: UnsafeMutablePointer<Atomic<UInt64>> {
        UnsafeMutablePointer(bitPattern: tableAddress.load(ordering: .acquiring))!
    }

    /// Why `signo` cannot be caught, or nil.
    private static func refusal(_ signo: Int32) -> String? {
        let rtMin = __libc_current_sigrtmin(), rtMax = __libc_current_sigrtmax()
        if signo <= 0 || signo > rtMax || Int(signo) >= signalNumbers { return "no signal \(signo) (1...\(rtMax))" }
        if signo == SIGKILL || signo == SIGSTOP { return "signal \(signo) cannot be caught" }
        if signo == SIGSEGV || signo == SIGBUS || signo == SIGFPE || signo == SIGILL {
            return "signal \(signo) is a fault: a handler that returns would restart the faulting instruction"
        }
        if signo > SIGSYS && signo < rtMin { return "signal \(signo) is reserved by the C library (below SIGRTMIN \(rtMin))" }
        return nil
    }

    /// Starts a watch of `signo` (catching it from now on).
    package static func watch(_ signo: Int32) -> Result<Watch, Failure> {
        if let reason = refusal(signo) { return .failure(Failure(code: .invalidArgument, detail: reason)) }
        let fd = rl_eventfd()
        if fd < 0 {
            let error = errno
            return .failure(Failure(code: .system(error), detail: "eventfd: \(String(cString: strerror(error)))"))
        }
        let result = state.withLock { state -> Result<Watch, Failure> in
            let slots = table + signalNumbers
            let used = slotsInUse.load(ordering: .relaxed)
            guard let slot = (0..<used).first(where: { slots[$0].load(ordering: .relaxed) == 0 })
                    ?? (used < slotCount ? used : nil) else {
                return .failure(Failure(code: .resources, detail: "\(slotCount) signal watches already live"))
            }
            if state.watchers[Int(signo)] == 0 {
                var action = Disposition()
                action.__sigaction_handler.sa_handler = handleSignal
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                guard sigaction(signo, &action, &state.saved[Int(signo)]) == 0 else {
                    let error = errno
                    return .failure(Failure(code: .invalidArgument,
                                            detail: "sigaction(\(signo)): \(String(cString: strerror(error)))"))
                }
            }
            state.watchers[Int(signo)] += 1
            // The slot first, then the count to start from: an arrival
            // between the two wakes the loop with nothing new; every later
            // one is counted and wakes it.
            slots[slot].store(UInt64(UInt32(signo)) << 32 | UInt64(UInt32(fd)), ordering: .sequentiallyConsistent)
            if slot == used { slotsInUse.store(used + 1, ordering: .sequentiallyConsistent) }
            return .success((fd, slot, table[Int(signo)].load(ordering: .sequentiallyConsistent)))
        }
        if case .failure = result { Glibc.close(fd) }
        return result
    }

    /// Ends a watch: frees its slot, puts the saved disposition back with
    /// the signal's last watch, and returns once no run of the handler can
    /// still write the watch's eventfd, which the caller may then close.
    ///
    /// Why the wait is enough: the handler counts itself running before it
    /// loads a slot, and this clears the slot before it loads the count,
    /// all sequentially consistent.  If the load here sees no handler
    /// running, any handler that starts later loads the cleared slot.
    package static func unwatch(_ signo: Int32, slot: Int) {
        state.withLock { state in
            (table + signalNumbers)[slot].store(0, ordering: .sequentiallyConsistent)
            state.watchers[Int(signo)] -= 1
            if state.watchers[Int(signo)] == 0 { sigaction(signo, &state.saved[Int(signo)], nil) }
        }
        while handlersRunning.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
    }

    /// How many times the handler ran for `signo`, ever.
    package static func arrivals(_ signo: Int32) -> UInt64 {
        table[Int(signo)].load(ordering: .sequentiallyConsistent)
    }

    /// Fork.swift only: the lock is held across fork(); the child puts
    /// back every disposition the library replaced and forgets every watch
    /// (the parent's watches are refused in the child, kRLErrorForked).
    package static func lockForFork() { state.lockForFork() }
    package static func unlockAfterFork(child: Bool) {
        if child {
            state.withHeldForFork { state in
                for signo in 1..<signalNumbers where state.watchers[signo] != 0 {
                    sigaction(Int32(signo), &state.saved[signo], nil)
                    state.watchers[signo] = 0
                }
                let slots = table + signalNumbers
                for i in 0..<slotCount { slots[i].store(0, ordering: .relaxed) }
            }
            handlersRunning.store(0, ordering: .relaxed)
        }
        state.unlockAfterFork()
    }
}
