import CRunLoop
import CRunLoopShims
import Glibc
import Synchronization

/// The watchdog behind RLRunLoopSetStallHandler: one thread for every
/// monitored loop.  It reads each loop's published step (Insight.marker)
/// and sleeps until the earliest moment one of them could become a stall
/// (step start + threshold); a loop that is asleep or idle is looked at
/// again one threshold later.  Each step is reported at most once.
/// Handlers run on the watchdog thread with no lock held.
package final class StallMonitor: @unchecked Sendable {
    package static let shared = StallMonitor()

    package typealias Handler = RLRunLoopStallHandler

    private struct Watch {
        var insight: Insight
        var loop: UInt64  // the loop's handle
        var thresholdNs: UInt64
        var handler: Handler
        var info: UnsafeMutableRawPointer?
        var reportedStep: UInt64 = .max
        /// Which call of `set` installed it.
        var generation: UInt64
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// Signalled when the watch list changes (the watchdog re-plans) and
    /// when a handler call returns (setters wait for it).
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let idle = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Guarded by `mutex`.
    private var watches: [ObjectIdentifier: Watch] = [:]
    private var started = false
    private var calling: ObjectIdentifier? = nil
    private var watchdogTID: Int32 = 0
    private var generation: UInt64 = 0

    private init() {
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(changed, &attr)
        pthread_condattr_destroy(&attr)
        pthread_cond_init(idle, nil)
    }

    /// Starts, replaces or (handler nil / threshold 0) stops watching `loop`.
    /// On return the previous handler is not running (unless this is
    /// called from it) and will not run again.
    package func set(_ loop: Loop, thresholdNs: UInt64, handler: Handler?, info: UnsafeMutableRawPointer?) {
        let insight = loop.makeInsight()
        let id = ObjectIdentifier(insight)
        pthread_mutex_lock(mutex)
        if let handler, thresholdNs > 0 {
            generation &+= 1
            watches[id] = Watch(insight: insight, loop: loop.handle, thresholdNs: thresholdNs, handler: handler, info: info,
                                generation: generation)
            insight.flags.bitwiseOr(Insight.stallBit, ordering: .relaxed)
            if !started { started = startThread() }
        } else {
            watches[id] = nil
            insight.flags.bitwiseAnd(~Insight.stallBit, ordering: .relaxed)
        }
        pthread_cond_signal(changed)
        while calling == id && rl_gettid() != watchdogTID { pthread_cond_wait(idle, mutex) }
        pthread_mutex_unlock(mutex)
    }

    private func startThread() -> Bool {
        var thread = pthread_t()
        let me = Unmanaged.passUnretained(self).toOpaque()
        return pthread_create(&thread, nil, { arg in
            Unmanaged<StallMonitor>.fromOpaque(arg!).takeUnretainedValue().watch()
            return nil
        }, me) == 0 && pthread_detach(thread) == 0
    }

    private struct Report {
        var id: ObjectIdentifier
        var loop: UInt64
        var handler: Handler
        var info: UnsafeMutableRawPointer?
        var generation: UInt64
        var stall: RLRunLoopStall
    }

    /// The watchdog thread's loop.
    private func watch() {
        pthread_mutex_lock(mutex)
        watchdogTID = rl_gettid()
        while true {
            let now = Clock.monotonicNow()
            var wake = Clock.never
            var reports: [Report] = []
            for (id, w) in watches {
                guard let seen = Self.read(w.insight) else {
                    wake = min(wake, Self.add(now, 1_000_000))  // being written: look again soon
                    continue
                }
                let step = seen.marker >> 16
                let phase = Phase(rawValue: UInt8(truncatingIfNeeded: seen.marker)) ?? .idle
                if phase == .idle || phase == .waiting || step == w.reportedStep || seen.start == 0 {
                    wake = min(wake, Self.add(now, w.thresholdNs))
                    continue
                }
                let elapsed = now > seen.start ? now - seen.start : 0
                guard elapsed >= w.thresholdNs else {
                    wake = min(wake, Self.add(seen.start, w.thresholdNs))
                    continue
                }
                watches[id]!.reportedStep = step
                wake = min(wake, Self.add(now, w.thresholdNs))
                let kind = Int32(truncatingIfNeeded: (seen.marker >> 8) & 0xFF)
                let stall = RLRunLoopStall(
                    phase: Int32(phase.rawValue), callout: kind,
                    item: UnsafeRawPointer(bitPattern: seen.item),
                    mode: UnsafePointer(bitPattern: seen.mode),
                    elapsed: Double(elapsed) / 1e9)
                reports.append(Report(id: id, loop: w.loop, handler: w.handler, info: w.info, generation: w.generation,
                                      stall: stall))
            }
            for report in reports { call(report) }
            if !reports.isEmpty { continue }  // re-plan: the list may have changed
            if watches.isEmpty || wake == Clock.never {
                pthread_cond_wait(changed, mutex)
            } else {
                var ts = timespec(tv_sec: Int(wake / 1_000_000_000), tv_nsec: Int(wake % 1_000_000_000))
                pthread_cond_timedwait(changed, mutex, &ts)
            }
        }
    }

    /// Calls one handler with the mutex released; drops the watch if the
    /// loop is gone.  Mutex held on entry and exit.
    private func call(_ report: Report) {
        guard watches[report.id]?.generation == report.generation else { return }  // replaced meanwhile
        guard case .success(let loop) = HandleTable.shared.retain(UInt(report.loop), kind: .runLoop) else {
            watches[report.id]?.insight.flags.bitwiseAnd(~Insight.stallBit, ordering: .relaxed)
            watches[report.id] = nil
            return
        }
        calling = report.id
        pthread_mutex_unlock(mutex)
        var stall = report.stall
        report.handler(loop.opaque, &stall, report.info)
        HandleTable.shared.release(loop.handle, from: "RLRunLoopSetStallHandler")
        pthread_mutex_lock(mutex)
        calling = nil
        pthread_cond_broadcast(idle)
    }

    private struct Seen {
        var marker: UInt64
        var start: UInt64
        var item: UInt
        var mode: UInt
    }

    /// A consistent read of the loop's published step, or nil if it was
    /// being rewritten (after a few tries).
    private static func read(_ insight: Insight) -> Seen? {
        for _ in 0..<4 {
            let m1 = insight.marker.load(ordering: .acquiring)
            if m1 & Insight.busyBit != 0 { continue }
            let seen = Seen(marker: m1, start: insight.markerStart.load(ordering: .relaxed),
                            item: insight.markerItem.load(ordering: .relaxed),
                            mode: insight.markerMode.load(ordering: .relaxed))
            atomicMemoryFence(ordering: .acquiring)
            if insight.marker.load(ordering: .relaxed) == m1 { return seen }
        }
        return nil
    }

    private static func add(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? Clock.never : sum
    }
}
