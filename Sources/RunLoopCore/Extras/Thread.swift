import CRunLoopShims
import Glibc
import Synchronization

/// A one-shot event some threads wait for and one thread posts.
package final class Completion: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var done = false  // guarded by mutex

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(cond, nil)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    package func post() {
        pthread_mutex_lock(mutex)
        done = true
        pthread_cond_broadcast(cond)
        pthread_mutex_unlock(mutex)
    }

    package func wait() {
        pthread_mutex_lock(mutex)
        while !done { pthread_cond_wait(cond, mutex) }
        pthread_mutex_unlock(mutex)
    }
}

/// A keep-alive worker (RLThread): a thread running its own loop in the
/// default mode until stopped, fed with tasks from any thread.
///
/// The loop is kept alive by a version-0 source that is never signalled
/// (CF code's usual "add a port" trick) and run again whenever a run ends
/// without a stop request, so a task calling RLRunLoopStop on it does not
/// end the thread.  Stopping queues a last task behind every task already
/// queued and stops every run of the loop (`Loop.stopEveryRun`): each run,
/// the worker's own and any a task runs nested, returns after its pass
/// without sleeping, so a task running the loop itself (a "modal" task)
/// gets its runs back and can return.  The worker runs its loop again until
/// the last task ran, then exits and is joined.
package final class Thread: Object, @unchecked Sendable {
    private enum Joiner { case nobody, caller, detached }
    private struct State {
        /// No task is accepted once set.
        var stopping = false
        var joiner = Joiner.nobody
        var thread: pthread_t? = nil
    }

    private let state = Guarded(State())
    /// Set by the last task; read by the worker between runs.
    private let exitRequested = Atomic<Bool>(false)
    /// Posted once the worker has its loop (or failed to get one).
    private let started = Completion()
    /// Posted once the thread has exited and was joined (or, when it was
    /// detached, when its function returns).
    private let gone = Completion()
    private let name: String?

    /// Written by the worker before `started` is posted, read-only after.
    private var startedLoop: Loop?

    private init(name: String?) {
        self.name = name
        super.init(kind: .thread)
    }

    /// The worker's loop (the thread object holds a reference to it).
    package var loop: Loop { startedLoop! }
    /// Whether the caller is the worker (its loop's thread).
    package var isWorkerThread: Bool { loop.isOwnThread }

    /// Starts a worker and waits until its loop exists.  nil if the
    /// system refuses a thread or the loop's descriptors.
    package static func start(name: String?) -> Thread? {
        let worker = Thread(name: name)
        var thread = pthread_t()
        let box = Unmanaged.passRetained(worker).toOpaque()
        guard pthread_create(&thread, nil, workerMain, box) == 0 else {
            Unmanaged<Thread>.fromOpaque(box).release()
            return nil
        }
        worker.started.wait()
        guard worker.startedLoop != nil else {
            pthread_join(thread, nil)
            return nil
        }
        worker.state.withLock { $0.thread = thread }
        guard HandleTable.shared.register(worker) else {
            worker.stop()
            return nil
        }
        return worker
    }

    fileprivate func main() {
        if let name { setThreadName(name) }
        // Its wait set made now (a loop makes it at its first run): a
        // worker whose loop could not sleep is refused at its start.
        guard let loop = Registry.shared.current(), loop.makePoller() else {
            started.post()
            return
        }
        loop.retainRef()  // dropped in deinit: GetRunLoop stays valid
        let keepAlive = Source(order: 0, callbacks: SourceCallbacks(perform: {}))
        if HandleTable.shared.register(keepAlive) {
            _ = loop.add(.source(keepAlive), to: .default)
            keepAlive.releaseRef()  // the mode holds it now
        }
        startedLoop = loop
        started.post()

        while !exitRequested.load(ordering: .acquiring) {
            _ = loop.run(.default, seconds: 1e10, returnAfterSourceHandled: false)
        }
        keepAlive.invalidate()
        if state.withLock({ $0.joiner == .detached }) { gone.post() }
    }

    /// Queues `work` behind every earlier task and wakes the worker; false
    /// once a stop was requested.
    package func enqueue(_ work: @escaping () -> Void) -> Bool {
        let accepted = state.withLock { s -> Bool in
            guard !s.stopping else { return false }
            return loop.perform(in: [.common], work)
        }
        if accepted { loop.wakeUp() }
        return accepted
    }

    /// Runs `work` on the worker and returns after it did: inline when
    /// called on the worker itself.  False once a stop was requested.
    package func performAndWait(_ work: @escaping () -> Void) -> Bool {
        if isWorkerThread {
            guard !state.withLock({ $0.stopping }) else { return false }
            work()
            return true
        }
        let done = Completion()
        guard enqueue({ work(); done.post() }) else { return false }
        done.wait()
        return true
    }

    /// Requests the stop (once); from another thread, also waits until the
    /// thread has exited and joins it.
    package func stop() {
        let loop = self.loop
        let first = state.withLock { s -> Bool in
            guard !s.stopping else { return false }
            s.stopping = true
            return loop.perform(in: [.common]) { [self] in
                exitRequested.store(true, ordering: .releasing)
            }
        }
        if first { loop.stopEveryRun() }  // and wakes the loop
        if isWorkerThread {
            state.withLock { s in
                guard s.joiner == .nobody, let thread = s.thread else { return }
                s.joiner = .detached
                pthread_detach(thread)
            }
            return
        }
        let thread: pthread_t? = state.withLock { s in
            guard s.joiner == .nobody else { return nil }
            s.joiner = .caller
            return s.thread
        }
        if let thread {
            pthread_join(thread, nil)
            gone.post()
        } else {
            gone.wait()
        }
    }

    package var isStopping: Bool { state.withLock { $0.stopping } }

    /// The last release stops a worker still running.
    package override func finalize() { stop() }

    deinit { startedLoop?.releaseRef() }
}

private func workerMain(_ box: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let worker = Unmanaged<Thread>.fromOpaque(box!).takeRetainedValue()
    worker.main()
    return nil
}

/// pthread_setname_np is a GNU extension the Glibc module does not import:
/// look it up once.  The kernel keeps 15 bytes.
private typealias SetNameFunction = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
private let setNameFunction: SetNameFunction? = unsafeBitCast(dlsym(nil, "pthread_setname_np"), to: SetNameFunction?.self)

private func setThreadName(_ name: String) {
    guard let setName = setNameFunction else { return }
    var bytes = Array(name.utf8.prefix(15))
    while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }  // no cut UTF-8 sequence
    if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
    bytes.append(0)
    bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { _ = setName(pthread_self(), $0.baseAddress!) }
    }
}
