import CRunLoop
import Glibc

// RLInternalHotWordDirectory: what the header's inline fast paths
// (include/runloop/fastpath.h) read.  The layout they assume is the handle
// table's (HandleTable.swift): checked by a test, versioned by
// RL_FAST_PATH_LAYOUT.

@c(RLInternalHotWordDirectory)
public func rlInternalHotWordDirectory(_ layout: UInt32) -> UnsafeRawPointer? {
    layout == RL_FAST_PATH_LAYOUT ? HandleTable.directory : noPages
}

/// A directory with no pages, for callers built for another layout: their
/// every check fails, so every call goes to the library.  calloc'd: pages
/// of zeros never written.
nonisolated(unsafe) private let noPages: UnsafeRawPointer = UnsafeRawPointer(calloc(HandleTable.maxPages, 8)!)
