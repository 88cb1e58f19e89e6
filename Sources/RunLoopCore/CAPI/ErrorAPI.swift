import CRunLoop
import Glibc

@c(RLGetLastError)
public func rlGetLastError() -> RLErrorCode { ErrorChannel.shared.lastCode }

@c(RLCopyLastErrorDescription)
public func rlCopyLastErrorDescription() -> UnsafeMutablePointer<CChar>? {
    ErrorChannel.shared.lastMessage.flatMap(mallocCString)
}

@c(RLClearLastError)
public func rlClearLastError() { ErrorChannel.shared.clear() }

@c(RLSetErrorHandler)
public func rlSetErrorHandler(_ handler: RLErrorHandler?, _ info: UnsafeMutableRawPointer?) {
    ErrorChannel.shared.setHandler(handler, info)
}
