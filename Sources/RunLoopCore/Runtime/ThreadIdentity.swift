import CRunLoopShims
import Glibc
import Synchronization

/// Which thread is calling, without a system call.
///
/// A loop belongs to a thread, and several paths ask whether the caller is
/// that thread: adding a timer to a running mode (another thread must wake
/// the loop), RLRunLoopGetMain, the embedding calls.  The kernel's thread
/// ID answers, but glibc does not cache it: `gettid` is a system call.
/// `pthread_self()` is one load from the thread pointer, and
/// identifies a thread as well while it lives.
package enum ThreadIdentity {
    /// The calling thread, as `pthread_self()`.
    @inline(__always)
    package static var current: UInt { UInt(pthread_self()) }

    /// The main thread's `pthread_self()`, 0 until the main thread first
    /// asks `isMain` (learned then with one `gettid`; until then every
    /// other thread pays that call, once per question).  A statically
    /// initialized global, reset in a fork child, whose main thread is the
    /// thread that forked (Fork.child).
    private static let main = Atomic<UInt>(0)

    /// Whether the caller is the process's main thread (its thread ID is
    /// the process ID).
    package static var isMain: Bool {
        let known = main.load(ordering: .relaxed)
        if known != 0 { return known == current }
        guard rl_is_main_thread() != 0 else { return false }
        // Relaxed: any thread that loads it compares it with its own
        // pthread_self(), which only the main thread's equals.
        main.store(current, ordering: .relaxed)
        return true
    }

    /// Fork.child only: the thread that forked is the child's main thread.
    package static func forgetMainAfterFork() { main.store(0, ordering: .relaxed) }
}
