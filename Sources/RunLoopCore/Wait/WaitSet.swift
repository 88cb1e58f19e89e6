import CRunLoopShims
import Glibc
import Synchronization

// The descriptors of version-1 sources in a loop's wait set
// (level-triggered).
//
// An epoll registration belongs to the open file, not to the number:
// epoll_ctl names it by number, but if the number is closed while the
// file stays open elsewhere (a dup, a forked child, a socket still
// referenced), the registration lives on, no epoll_ctl can reach it
// any more (the number is closed, or names another file), and it keeps
// reporting under its old token: a ghost.  So each registration has a
// token of its own (a serial in the high bits), a registration that
// epoll_ctl could not reach by number is remembered as lost, and a lost
// token reported ready is a ghost, cured by `rebuildWaitSet`.
//
// Descriptors epoll refuses with EPERM (regular files, /dev/null) are
// always ready, as poll(2) reports them: they are kept in `alwaysReady`
// and the loop treats them as ready on every pass (Loop.readyDescriptors).
//
// All of this state (stored in Poller's declaration, Poller.swift) is
// guarded by the loop's lock (so declared @exclusivity(unchecked), as the
// loop-thread-only state of `wait`): `watch`, `unwatch`, `isGhost`,
// `takeProblems` and `rebuildWaitSet` are called with it held.

extension Poller {
    /// A descriptor in the wait set: its events, and the token epoll
    /// reports it under.
    struct Registration {
        var events: UInt32
        var token: UInt64
    }

    package func takeProblems() -> [String] {
        defer { problems = [] }
        return problems
    }

    /// Starts watching `fd` for `events`, or changes what is watched.
    package func watch(_ fd: Int32, events: UInt32) {
        guard !shut.load(ordering: .relaxed) else { return }  // not reached: see `shutdown`
        alwaysReady[fd] = nil  // looked at again: the number may name another file now
        if let old = registrations[fd] {
            if rl_epoll_mod(epollFD, fd, events, old.token) == 0 {
                registrations[fd]?.events = events
                return
            }
            lose(fd, old, rl_errno(), "changing what is watched")
        }
        serial &+= 1
        let token = Self.fdTokenBase + UInt64(UInt32(bitPattern: fd)) | UInt64(serial) << 32
        if rl_epoll_add(epollFD, fd, events, token) == 0 {
            registrations[fd] = Registration(events: events, token: token)
            return
        }
        let error = rl_errno()
        switch error {
        case EPERM:
            alwaysReady[fd] = events
        case EBADF:
            problems.append("descriptor \(fd) is not open: it cannot be watched")
        default:
            problems.append("descriptor \(fd): epoll_ctl(ADD) failed: \(String(cString: strerror(error)))")
        }
    }

    package func unwatch(_ fd: Int32) {
        guard !shut.load(ordering: .relaxed) else { return }  // not reached: see `shutdown`
        if alwaysReady.removeValue(forKey: fd) != nil { return }
        guard let old = registrations.removeValue(forKey: fd) else { return }
        if rl_epoll_del(epollFD, fd) != 0 { lose(fd, old, rl_errno(), "removing it") }
    }

    /// A registration epoll_ctl could not reach by its number: the number
    /// is closed (EBADF) or names a file not in the set (ENOENT), so the
    /// descriptor was closed while watched.  If its file is still open
    /// elsewhere, the registration is a ghost: remembered, so that a
    /// report under its token is known as one.
    private func lose(_ fd: Int32, _ registration: Registration, _ error: Int32, _ doing: String) {
        registrations[fd] = nil
        if error == EBADF || error == ENOENT {
            lostTokens.insert(registration.token)
            problems.append("descriptor \(fd) was closed while a source watched it (found \(doing)): "
                            + "close a descriptor only after invalidating its source")
        } else {
            problems.append("descriptor \(fd): epoll_ctl failed \(doing): \(String(cString: strerror(error)))")
        }
    }

    /// Whether a ready descriptor was reported by a lost registration.
    package func isGhost(_ ready: Ready) -> Bool {
        !lostTokens.isEmpty && lostTokens.contains(ready.token)
    }

    /// Replaces the epoll set with a new one holding the wake-up eventfd,
    /// the timerfd and the registrations still reachable, and closes the
    /// old one: the only way to remove a ghost, which no epoll_ctl can
    /// name.  The new set takes the old one's number (dup3), so `epollFD`
    /// never changes.  Called on the loop's thread (the only one that
    /// waits) with the loop's lock held (every epoll_ctl is made with it).
    /// Pending wake-ups and timer expirations are kept: both descriptors
    /// are level-triggered.  If the system refuses a new set, the ghost
    /// stays (ignored, pass after pass) and that is reported.
    package func rebuildWaitSet(ghost fd: Int32) {
        let fresh = rl_epoll_create()
        guard fresh >= 0,
              rl_epoll_add(fresh, wakeFD, EPOLLIN.rawValue, Self.wakeToken) == 0,
              rl_epoll_add(fresh, timerFD, EPOLLIN.rawValue, Self.timerToken) == 0,
              registrations.allSatisfy({ rl_epoll_add(fresh, $0.key, $0.value.events, $0.value.token) == 0 })
                || rebuildDroppingClosed(fresh),
              rl_epoll_replace(epollFD, fresh) == 0 else {
            let error = String(cString: strerror(rl_errno()))
            if fresh >= 0 { Glibc.close(fresh) }
            problems.append("descriptor \(fd): a ghost registration could not be removed: \(error)")
            return
        }
        Glibc.close(fresh)  // the set lives on under epollFD
        // The poll descriptor watched the old set's file, gone with it.
        if exportFD >= 0 && rl_epoll_add(exportFD, epollFD, EPOLLIN.rawValue, Self.wakeToken) != 0
            && rl_errno() == EEXIST {
            _ = rl_epoll_mod(exportFD, epollFD, EPOLLIN.rawValue, Self.wakeToken)
        }
        lostTokens.removeAll()
        rebuilds += 1
        problems.append("descriptor \(fd): a registration outlived its descriptor (closed while a source "
                        + "watched it, its file still open elsewhere): the wait set was rebuilt")
    }

    /// `rebuildWaitSet` found a registration it could not copy into the
    /// new set `fresh`: its number was closed too.  Copies the others and
    /// forgets the closed ones; false if another error stops the copy.
    private func rebuildDroppingClosed(_ fresh: Int32) -> Bool {
        for (fd, registration) in registrations {
            if rl_epoll_add(fresh, fd, registration.events, registration.token) == 0 { continue }
            let error = rl_errno()
            if error == EEXIST { continue }  // copied by the first attempt
            guard error == EBADF || error == ENOENT || error == EPERM else { return false }
            registrations[fd] = nil
            problems.append("descriptor \(fd) was closed while a source watched it: "
                            + "close a descriptor only after invalidating its source")
        }
        return true
    }
}
