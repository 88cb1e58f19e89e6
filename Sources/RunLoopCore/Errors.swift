import CRunLoopShims
import Glibc

/// What went wrong in a call from outside.  The C entry points report
/// misuse here instead of crashing; the call then does nothing.
package enum RLErrorCode: Int32, Sendable {
    case nullHandle = 1
    case staleHandle = 2
    case wrongType = 3
    case invalidArgument = 4
    case wrongLoop = 5
    case loopGone = 6
    case overRelease = 7

    package var summary: String {
        switch self {
        case .nullHandle: return "NULL handle"
        case .staleHandle: return "stale or unknown handle"
        case .wrongType: return "handle of the wrong type"
        case .invalidArgument: return "invalid argument"
        case .wrongLoop: return "item belongs to another run loop"
        case .loopGone: return "the run loop's thread has exited"
        case .overRelease: return "released more times than retained"
        }
    }
}

/// Reports misuse: one line on stderr naming the function and the problem.
package func reportError(_ function: StaticString, _ code: RLErrorCode, _ detail: String = "") {
    var line = "runloop: \(function): \(code.summary)"
    if !detail.isEmpty { line += ": \(detail)" }
    line += "\n"
    var bytes = Array(line.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}
