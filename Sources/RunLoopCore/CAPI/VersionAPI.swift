import CRunLoop

// RLGetVersion: the library's version, from the header it was built with
// (include/runloop/version.h; CMake checks it matches the project VERSION).

/// RL_VERSION_STRING as a C string that lives for the whole process
/// (initialised once, thread-safely, then only read).
nonisolated(unsafe) private let versionCString: UnsafePointer<CChar> = {
    let bytes = Array(RL_VERSION_STRING.utf8CString)
    let storage = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    storage.initialize(from: bytes, count: bytes.count)
    return UnsafePointer(storage)
}()

@c(RLGetVersion)
public func rlGetVersion() -> UnsafePointer<CChar>? {
    versionCString
}
