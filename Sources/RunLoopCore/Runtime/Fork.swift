import CRunLoopShims
import Glibc
import Synchronization

/// The fork generation: 0 in the process that loaded the library, one more
/// in each fork() child (set by `Fork.child`).  A statically initialized
/// global (constant initial value), so reading it is one load, never a
/// lazy initialization.
private let forkGeneration = Atomic<UInt32>(0)

/// fork(): what a child may do with the library, and how its locks survive.
///
/// Everything that exists when a process forks belongs to the parent.  The
/// child's copies of the parent's loops share the parent's epoll set,
/// eventfd and timerfd (the same open file descriptions): a child that ran
/// one would steal the parent's events and re-arm its timer, and even
/// epoll_ctl from the child edits the parent's set.  And any of their
/// locks may have been held, at the moment of the fork, by a thread the
/// child does not have.  So in the child:
///
/// - every handle that was live at the fork is refused with
///   kRLErrorForked (`HandleTable.disownAfterFork`: its slot's generation
///   becomes 0, which no handle names, and its hot word and block inbox
///   stop answering, so the opt-in inline fast paths and the lock-free
///   perform path fall through to a pinned call that reports it).  Such an
///   object is never finalized in the child: its memory and its loop's
///   three descriptors stay as they are, untouched (the descriptors are
///   close-on-exec, so fork + exec gives them back).  They are not closed
///   here: a run of a parent's loop may be on the child's stack (fork()
///   from a callout) and would find their numbers reused under it, and a
///   child handler should do no more than it must.
/// - the forking thread is the child's main thread (its tid is the child's
///   pid): `RLRunLoopGetCurrent()` and `RLRunLoopGetMain()` give it a fresh
///   main loop (Registry: the inherited thread-specific loop is from an
///   older generation and is skipped; the main slot is emptied).  Threads
///   the child starts get fresh loops as usual.
/// - a run of a parent's loop that regains control in the child (fork()
///   from a callout, and the callout returns) ends before it would wait
///   (Iteration.swift), returning kRLRunLoopRunFinished.
/// - libdispatch's main queue is not served (libdispatch does not support
///   use in the child of a multithreaded parent).
///
/// Locks: `prepare` (in the parent, just before fork) first makes sure
/// every lazily initialized global of the library exists, so no other
/// thread can be inside one of those one-time initializations when the
/// process forks (the child would wait forever for a thread it does not
/// have), then takes the library's process-wide locks in one fixed order:
/// the signal watches' (SignalHandler; the child puts back the
/// dispositions it replaced), the table of this process's port names (held while a local port binds
/// or frees a name), the registry's main-loop lock (held while a main loop
/// is made, which takes the next ones), the mode-name table, the handle table's page
/// lock, the error handler's lock, then the 128 stripes.  Holders of the
/// later ones never take an earlier one (each is a leaf; see their
/// comments), so the order cannot deadlock.  `parent` and `child` release
/// them in reverse order; `child` first disowns the parent's objects and
/// bumps the generation.  Per-object locks are not taken (there are any
/// number of them): only the parent's objects have them, and the child
/// never touches those.
///
/// The handlers are installed by the first of the library's globals to be
/// made (`install()`, called from each shared table's initializer), so a
/// process that forks has them unless it forks while that very first
/// initialization runs.
package enum Fork {
    /// This process's fork generation (see `forkGeneration`).
    @inline(__always)
    package static var generation: UInt32 { forkGeneration.load(ordering: .relaxed) }

    /// Installs the handlers, once.
    package static func install() { _ = installed }

    private static let installed: Bool = {
        pthread_atfork({ Fork.prepare() }, { Fork.parent() }, { Fork.child() }) == 0
    }()

    private static func prepare() {
        // Every lazy global, first (no lock held while waiting for one).
        _ = ErrorChannel.shared
        _ = HandleTable.directory
        _ = ModeName.default
        _ = ModeName.common
        _ = Registry.shared
        _ = HotWord.detached
        _ = SpinBeforeSleep.limitNs
        Stripes.prepareForFork()
        // The locks, in order (see the type's comment).
        SignalHandler.lockForFork()
        LocalPortNames.lockForFork()
        Registry.shared.lockForFork()
        ModeNames.shared.lockForFork()
        HandleTable.shared.lockForFork()
        ErrorChannel.shared.lockForFork()
        Stripes.lockAllForFork()
    }

    private static func parent() {
        unlockAll()
        LocalPortNames.unlockAfterFork(child: false)
        SignalHandler.unlockAfterFork(child: false)
    }

    private static func child() {
        // Only this thread exists, and it holds every lock above.
        forkGeneration.store(forkGeneration.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
        HandleTable.shared.disownAfterFork()
        Registry.shared.forgetMainAfterFork()
        ThreadIdentity.forgetMainAfterFork()
        DispatchMainQueue.looked.store(true, ordering: .relaxed)
        unlockAll()
        LocalPortNames.unlockAfterFork(child: true)
        SignalHandler.unlockAfterFork(child: true)
    }

    private static func unlockAll() {
        Stripes.unlockAllAfterFork()
        ErrorChannel.shared.unlockAfterFork()
        HandleTable.shared.unlockAfterFork()
        ModeNames.shared.unlockAfterFork()
        Registry.shared.unlockAfterFork()
    }
}
