import CRunLoop
import CRunLoopShims
import Glibc

/// What went wrong in a call from outside.  The C entry points report
/// misuse through `reportError` instead of crashing; the call then does
/// nothing.  Raw values are the header's kRLError... constants.
package enum ErrorCode: Int32, Sendable {
    case nullHandle = 1
    case staleHandle = 2
    case wrongType = 3
    case invalidArgument = 4
    case wrongLoop = 5
    case loopGone = 6
    case overRelease = 7
    case resources = 8
    case forked = 9
    case wrongThread = 10

    package var summary: String {
        switch self {
        case .nullHandle: return "NULL handle"
        case .staleHandle: return "stale or unknown handle"
        case .wrongType: return "handle of the wrong type"
        case .invalidArgument: return "invalid argument"
        case .wrongLoop: return "item belongs to another run loop"
        case .loopGone: return "the run loop's thread has exited"
        case .overRelease: return "released more times than retained"
        case .resources: return "out of resources"
        case .forked: return "the object was created before fork(): it belongs to the parent process"
        case .wrongThread: return "only the loop's own thread may do this"
        }
    }
}

extension ErrorCode {
    /// The code for a refusal of the system (an errno): out of descriptors
    /// or memory is `.resources`, anything else `.invalidArgument`.
    package static func system(_ error: Int32) -> ErrorCode {
        error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM ? .resources : .invalidArgument
    }
}

/// The error channel: each thread's last error, and the process-wide
/// handler (by default one line on stderr).
package final class ErrorChannel: @unchecked Sendable {
    package static let shared = ErrorChannel()

    /// A thread's last error: code and "Function: problem" message.
    private final class LastError {
        var code: Int32 = 0
        var message = ""
    }

    private let key: pthread_key_t
    private let handler = Guarded<(callback: RLErrorHandler?, info: UnsafeMutableRawPointer?)>((nil, nil))

    private init() {
        Fork.install()
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            if let raw { Unmanaged<AnyObject>.fromOpaque(raw).release() }
        }
        self.key = key
    }

    private func last(creating: Bool) -> LastError? {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<AnyObject>.fromOpaque(raw).takeUnretainedValue() as? LastError
        }
        guard creating else { return nil }
        let fresh = LastError()
        pthread_setspecific(key, Unmanaged.passRetained(fresh as AnyObject).toOpaque())
        return fresh
    }

    package var lastCode: Int32 { last(creating: false)?.code ?? 0 }
    package var lastMessage: String? {
        guard let last = last(creating: false), last.code != 0 else { return nil }
        return last.message
    }

    package func clear() {
        if let last = last(creating: false) {
            last.code = 0
            last.message = ""
        }
    }

    /// Fork.swift only (see Guarded.lockForFork).
    package func lockForFork() { handler.lockForFork() }
    package func unlockAfterFork() { handler.unlockAfterFork() }

    package func setHandler(_ callback: RLErrorHandler?, _ info: UnsafeMutableRawPointer?) {
        handler.withLock { $0 = (callback, info) }
    }

    package func report(_ function: StaticString, _ code: ErrorCode, _ detail: String) {
        var message = "\(function): \(code.summary)"
        if !detail.isEmpty { message += ": \(detail)" }
        if let last = last(creating: true) {
            last.code = code.rawValue
            last.message = message
        }
        let (callback, info) = handler.withLock { $0 }
        if let callback {
            "\(function)".withCString { fn in
                message.withCString { text in callback(code.rawValue, fn, text, info) }
            }
        } else {
            var bytes = Array("runloop: \(message)\n".utf8)
            _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
        }
    }
}

/// Reports misuse: records it as the thread's last error and passes it to
/// the error handler (default: one line on stderr naming the function).
package func reportError(_ function: StaticString, _ code: ErrorCode, _ detail: String = "") {
    ErrorChannel.shared.report(function, code, detail)
}
