import Glibc

// RLInternalHotWordDirectory: what the opt-in inline fast paths of
// include/runloop/fastpath.h read.  The layout they assume is the handle
// table's (HandleTable.swift): checked by FastPathLayoutTests, versioned by
// `fastPathLayout`.  The public header the core imports (runloop.h) does
// not include fastpath.h, so the number is written here too:
// test_rl_fastpath checks that fastpath.h's RL_FAST_PATH_LAYOUT is it.

/// The hot-word layout of this library, fastpath.h's `RL_FAST_PATH_LAYOUT`
/// (bump both when the table moves its hot words).
package let fastPathLayout: UInt32 = 1

@c(RLInternalHotWordDirectory)
public func rlInternalHotWordDirectory(_ layout: UInt32) -> UnsafeRawPointer? {
    layout == fastPathLayout ? HandleTable.directory : noPages
}

/// A directory with no pages, for callers built for another layout: their
/// every check fails, so every call goes to the library.  calloc'd: pages
/// of zeros never written.
nonisolated(unsafe) private let noPages: UnsafeRawPointer = UnsafeRawPointer(calloc(HandleTable.maxPages, 8)!)
