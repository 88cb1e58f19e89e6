import CRunLoopShims
import Glibc
import Synchronization

/// One loop per thread: found through thread-specific data, created on
/// first use, torn down by the key's destructor when the thread exits.
/// The main thread's loop is also reachable from every other thread.
package final class Registry: @unchecked Sendable {
    package static let shared = Registry()

    private var key = pthread_key_t()
    /// The main thread's loop; the registry's reference keeps it for the
    /// life of the process.
    private let main = Locked<Loop?>(nil)

    private init() {
        pthread_key_create(&key, registryThreadExited)
    }

    /// The calling thread's loop, created on first use.  nil only if the
    /// system refuses descriptors or the handle table is full.
    package func current() -> Loop? {
        if let stored = pthread_getspecific(key) {
            return Unmanaged<Loop>.fromOpaque(stored).takeUnretainedValue()
        }
        let loop: Loop?
        if rl_is_main_thread() != 0 {
            loop = mainLoop()
        } else if let fresh = Loop(ownerTID: rl_gettid(), isMain: false), HandleTable.shared.register(fresh) {
            // The thread's reference, dropped at thread exit.
            loop = fresh
        } else {
            loop = nil
        }
        if let loop { pthread_setspecific(key, Unmanaged.passUnretained(loop).toOpaque()) }
        return loop
    }

    /// The main thread's loop, from any thread.
    package func mainLoop() -> Loop? {
        main.withLock { main in
            if let main { return main }
            guard let loop = Loop(ownerTID: getpid(), isMain: true), HandleTable.shared.register(loop) else { return nil }
            main = loop
            return loop
        }
    }

    fileprivate func threadExited(_ stored: UnsafeMutableRawPointer) {
        let loop = Unmanaged<Loop>.fromOpaque(stored).takeUnretainedValue()
        loop.tearDown()
        if !loop.isMain { loop.releaseRef() }
    }
}

private func registryThreadExited(_ stored: UnsafeMutableRawPointer?) {
    guard let stored else { return }
    Registry.shared.threadExited(stored)
}
