import CRunLoopShims
import Glibc
import Synchronization

/// One loop per thread: found through thread-specific data, created on
/// first use, torn down by the key's destructor when the thread exits.
/// The main thread's loop is also reachable from every other thread.
///
/// In a fork() child the forking thread's thread-specific loop is the
/// parent's (a copy made before the fork): it is skipped, and the thread
/// gets a fresh loop, as the child's main thread (see Fork.swift).
package final class Registry: @unchecked Sendable {
    package static let shared = Registry()

    private let key: pthread_key_t
    /// The main thread's loop; the registry's reference keeps it for the
    /// life of the process.
    private let main = Guarded<Loop?>(nil)
    /// Its handle once it exists (0 before): the main loop lives as long
    /// as the process (in a fork child, until `forgetMainAfterFork`).  A
    /// handle is a number: a caller that uses it goes through the handle
    /// table, which orders what it reads.
    private let mainLoopHandle = Atomic<UInt64>(0)

    private init() {
        Fork.install()
        var key = pthread_key_t()
        pthread_key_create(&key, registryThreadExited)
        self.key = key
    }

    /// The calling thread's loop, created on first use.  nil only if the
    /// handle table is full.  (Its descriptors are made by its first run:
    /// Loop.pollerOnce.)
    package func current() -> Loop? {
        if let stored = pthread_getspecific(key) {
            let loop = Unmanaged<Loop>.fromOpaque(stored).takeUnretainedValue()
            // Otherwise a parent's loop (this thread forked): left as it
            // is, its reference never dropped (Fork.swift), and replaced.
            if loop.forkGeneration == Fork.generation { return loop }
        }
        let loop: Loop?
        if ThreadIdentity.isMain {
            loop = makeMainLoop()
        } else {
            // The thread's reference, dropped at thread exit.
            let fresh = Loop(ownerTID: rl_gettid(), isMain: false)
            loop = HandleTable.shared.register(fresh) ? fresh : nil
        }
        if let loop { pthread_setspecific(key, Unmanaged.passUnretained(loop).toOpaque()) }
        return loop
    }

    /// The handle of the calling thread's loop (`current()`), with no
    /// reference counted on the way: what RLRunLoopGetCurrent, among the
    /// most called entry points, returns (a retain and a release were half
    /// its time).
    package func currentHandle() -> UInt64? {
        if let stored = pthread_getspecific(key) {
            let handle = Unmanaged<Loop>.fromOpaque(stored)._withUnsafeGuaranteedRef {
                $0.forkGeneration == Fork.generation ? $0.handle : 0
            }
            if handle != 0 { return handle }
        }
        return current()?.handle
    }

    /// The handle of the main thread's loop (`mainLoop()`), from any
    /// thread, with no lock or reference counted once the loop exists.
    package func mainHandle() -> UInt64? {
        if ThreadIdentity.isMain { return currentHandle() }
        let known = mainLoopHandle.load(ordering: .relaxed)
        return known != 0 ? known : makeMainLoop()?.handle
    }

    /// The main thread's loop, from any thread.  On the main thread, also
    /// its thread-specific loop (`current`), so it is torn down if the main
    /// thread exits with pthread_exit, however it was first asked for (in a
    /// fork child, the forking thread is the main thread and may well do so).
    package func mainLoop() -> Loop? {
        ThreadIdentity.isMain ? current() : makeMainLoop()
    }

    private func makeMainLoop() -> Loop? {
        main.withLock { main in
            if let main { return main }
            let loop = Loop(ownerTID: getpid(), isMain: true)
            guard HandleTable.shared.register(loop) else { return nil }
            main = loop
            mainLoopHandle.store(loop.handle, ordering: .relaxed)
            return loop
        }
    }

    /// Fork.swift only: the main-loop lock is held across fork(); it is
    /// held while a main loop is made, which takes the handle table's page
    /// lock (and the mode-name table's): the first lock in Fork's order.
    package func lockForFork() { main.lockForFork() }
    package func unlockAfterFork() { main.unlockAfterFork() }

    /// In the fork child (lock held): the parent's main loop is not the
    /// child's, whose main thread is the forking thread.
    package func forgetMainAfterFork() {
        main.withHeldForFork { $0 = nil }
        mainLoopHandle.store(0, ordering: .relaxed)
    }

    fileprivate func threadExited(_ stored: UnsafeMutableRawPointer) {
        let loop = Unmanaged<Loop>.fromOpaque(stored).takeUnretainedValue()
        // A parent's loop, in a fork child: not ours to tear down.
        guard loop.forkGeneration == Fork.generation else { return }
        loop.tearDown()
        if !loop.isMain { loop.releaseRef() }
    }
}

private func registryThreadExited(_ stored: UnsafeMutableRawPointer?) {
    guard let stored else { return }
    Registry.shared.threadExited(stored)
}
