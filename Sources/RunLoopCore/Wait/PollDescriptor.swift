import CRunLoopShims
import Glibc
import Synchronization

// The poll descriptor: a loop driven from outside (Loop/Embedding.swift)
// is waited for on a descriptor handed out by RLRunLoopGetPollDescriptor,
// an epoll set of its own holding the loop's (its state: `exportFD`,
// `keptWakeFD` and `lostExportFD` in Poller's declaration).

extension Poller {
    /// At finalization: closes the poll descriptor kept open by
    /// `shutdown` (and the eventfd that keeps it readable), or handed out
    /// by a loop finalized without being torn down, if it is still ours.
    package func closePollDescriptor() {
        if exportFD >= 0 && keptWakeFD && pollDescriptorIsOurs(exportFD, member: wakeFD) {
            Glibc.close(exportFD)
        }
        exportFD = -1
        if keptWakeFD { Glibc.close(wakeFD) }
        keptWakeFD = false
    }

    /// The poll descriptor, made on first use; nil if the system refuses
    /// one.  The one handed out before is checked first (one epoll_ctl):
    /// if the caller closed it, its number may name another file already,
    /// so a new one is made and the old number returned as `lost`, for
    /// the caller to report.  Lock held; not after `shutdown`.
    package func pollDescriptorLocked() -> (fd: Int32, lost: Int32?)? {
        let lost = checkPollDescriptorLocked()
        if exportFD >= 0 { return (exportFD, nil) }
        var fd = rl_epoll_create()
        guard fd >= 0 else { return nil }
        // Not the number of one found closed: a driver that compares
        // numbers (libuv's uv_poll_t watches one for life) sees the change.
        if fd == lostExportFD, case let other = fcntl(fd, F_DUPFD_CLOEXEC, 0), other >= 0 {
            Glibc.close(fd)
            fd = other
        }
        guard rl_epoll_add(fd, epollFD, EPOLLIN.rawValue, Self.wakeToken) == 0 else {
            Glibc.close(fd)
            return nil
        }
        exportFD = fd
        return (fd, lost)
    }

    /// Whether the poll descriptor handed out is still the loop's: the
    /// caller may have closed it by mistake, and its number may name
    /// another file since.  If not, it is forgotten (never closed: the
    /// number may be someone else's now) and its number returned, for the
    /// caller to report.  One epoll_ctl.  Lock held.
    package func checkPollDescriptorLocked() -> Int32? {
        guard exportFD >= 0, !shut.load(ordering: .relaxed) else { return nil }
        if pollDescriptorIsOurs(exportFD, member: epollFD) { return nil }
        lostExportFD = exportFD
        defer { exportFD = -1 }
        return exportFD
    }

    /// Whether `fd` is an epoll set holding `member` (only ours is): an
    /// EPOLL_CTL_MOD of `member` succeeds.
    func pollDescriptorIsOurs(_ fd: Int32, member: Int32) -> Bool {
        rl_epoll_mod(fd, member, EPOLLIN.rawValue, Self.wakeToken) == 0
    }
}
