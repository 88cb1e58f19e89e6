import CRunLoopShims
import Glibc
import Synchronization

/// The main loop serves libdispatch's main queue, as CoreFoundation does:
/// blocks sent with `dispatch_async(dispatch_get_main_queue(), ...)`
/// (Swift's `DispatchQueue.main.async`, `@MainActor` jobs) run on the main
/// thread while it runs its loop in a common mode, woken by the queue's
/// eventfd, without polling.
///
/// runloop does not link libdispatch: the two entry points libdispatch
/// exports for CoreFoundation are looked up in the process when the main
/// loop first runs, so a program that does not use libdispatch pays
/// nothing.  The queue's descriptor is a version-1 source, kept for the
/// life of the process, that every common mode of the main loop watches
/// without holding it (Loop.mainQueue): like CF's main-queue port, it
/// makes no mode exist and shows in no mode.  A common mode of the main
/// loop is never empty (never `Finished`) whether or not the process has
/// libdispatch (Loop.isEmptyLocked), so a program behaves the same with
/// and without it.
enum DispatchMainQueue {
    /// int _dispatch_get_main_queue_handle_4CF(void)
    typealias HandleFunction = @convention(c) () -> Int32
    /// void _dispatch_main_queue_callback_4CF(void *msg)  (msg: NULL on Linux)
    typealias DrainFunction = @convention(c) (UnsafeMutableRawPointer?) -> Void

    /// Set once the main loop has looked for libdispatch (and, if found,
    /// got the queue's descriptor).
    static let looked = Atomic<Bool>(false)
    /// Set once "the main queue is not served" has been reported.
    static let reportedNoDescriptor = Atomic<Bool>(false)

    static func lookUp() -> (handle: HandleFunction, drain: DrainFunction)? {
        let everywhere = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
        guard let h = dlsym(everywhere, "_dispatch_get_main_queue_handle_4CF"),
              let d = dlsym(everywhere, "_dispatch_main_queue_callback_4CF") else { return nil }
        return (unsafeBitCast(h, to: HandleFunction.self), unsafeBitCast(d, to: DrainFunction.self))
    }
}

extension Loop {
    /// Called by the main loop's thread at the start of each run: the first
    /// time, makes the main queue's source if libdispatch is in the
    /// process, for the common modes to watch.
    ///
    /// libdispatch creates the queue's eventfd on the first request for it
    /// and traps (SIGILL) if it cannot.  So a descriptor is tried first:
    /// with none free, the run goes on without the main queue, reporting
    /// kRLErrorResources once, and the next run tries again.  (Another
    /// thread taking the descriptor between the try and libdispatch's
    /// eventfd would still trap; that window is a few instructions.)
    package func ensureMainQueueSource() {
        guard !DispatchMainQueue.looked.load(ordering: .relaxed) else { return }
        guard let queue = DispatchMainQueue.lookUp() else {
            DispatchMainQueue.looked.store(true, ordering: .relaxed)
            return
        }
        let spare = rl_eventfd()
        guard spare >= 0 else {
            let error = rl_errno()
            if !DispatchMainQueue.reportedNoDescriptor.exchange(true, ordering: .relaxed) {
                reportError("RLRunLoopRunInMode", .resources,
                            "the main queue is not served: no descriptor for its eventfd "
                            + "(\(String(cString: strerror(error)))); the next run of the main loop tries again")
            }
            return
        }
        close(spare)
        DispatchMainQueue.looked.store(true, ordering: .relaxed)
        let fd = queue.handle()
        guard fd >= 0 else { return }
        let drain = queue.drain
        // The main loop lives as long as the process: the source may hold it.
        let callbacks = SourceCallbacks(perform: {}, describe: { "libdispatch main queue (fd \(fd))" },
                                        ready: { _ in
            // Consume the wake-up first, so a block queued while draining
            // signals the descriptor again.
            rl_drain_counter(fd)
            self.drainMainQueue(drain, fd: fd)
            return true
        })
        let source = Source(order: 0, callbacks: callbacks, descriptor: fd, interest: EPOLLIN.rawValue)
        guard HandleTable.shared.register(source) else { return }
        // The registration's reference stays: the source lives as long as
        // the process.
        lock.withLock {
            mainQueue = source
            descriptorEpoch &+= 1  // the run starting now watches it
        }
    }

    /// Drains the main queue (the queue's source's callout).  As CF's main
    /// loop, a run nested in one of its blocks does not serve the queue
    /// (libdispatch's drain is not re-entrant): while it drains, no mode
    /// watches the queue's descriptor and common modes count as empty when
    /// nothing else is in them.  The mode being run watches it again when
    /// the drain returns.  One descriptor changes each way, not the whole
    /// wait set.
    private func drainMainQueue(_ drain: DispatchMainQueue.DrainFunction, fd: Int32) {
        setDrainingMainQueue(true, fd: fd)
        drain(nil)
        setDrainingMainQueue(false, fd: fd)
    }

    private func setDrainingMainQueue(_ draining: Bool, fd: Int32) {
        lock.withLock {
            drainingMainQueue = draining
            if let mode = runs.last?.mode { descriptorsEditedLocked(mode, fd: fd) }
        }
    }
}
