import CRunLoop
import Glibc

/// The array RLRunLoopCopyAllModes returns (and RLArrayCreateWithModes
/// builds for the Perform* mode argument).
package final class ModeArray: Object, @unchecked Sendable {
    let names: [ModeName]
    init(names: [ModeName]) {
        self.names = names
        super.init(kind: .array)
    }
}

func newModeArray(_ names: [ModeName]) -> RLArrayRef? {
    publish(ModeArray(names: names), "RLRunLoopCopyAllModes")
}

@c(RLRetain)
public func rlRetain(_ object: RLTypeRef?) -> RLTypeRef? {
    let cFunction: StaticString = "RLRetain"
    guard let object else {
        reportError(cFunction, .nullHandle)
        return nil
    }
    if !HandleTable.isHandle(UInt(bitPattern: object)) { return object }  // an interned mode name
    switch HandleTable.shared.retain(UInt(bitPattern: object), kind: nil) {
    case .success: return object
    case .failure(let failure):
        reportError(cFunction, failure.code)
        return nil
    }
}

@c(RLRelease)
public func rlRelease(_ object: RLTypeRef?) {
    let cFunction: StaticString = "RLRelease"
    guard let object else {
        reportError(cFunction, .nullHandle)
        return
    }
    if !HandleTable.isHandle(UInt(bitPattern: object)) { return }  // an interned mode name
    HandleTable.shared.release(UInt64(UInt(bitPattern: object)), from: cFunction)
}

@c(RLGetRetainCount)
public func rlGetRetainCount(_ object: RLTypeRef?) -> RLIndex {
    let cFunction: StaticString = "RLGetRetainCount"
    guard let object else {
        reportError(cFunction, .nullHandle)
        return 0
    }
    guard let count = HandleTable.shared.retainCount(UInt64(UInt(bitPattern: object))) else {
        reportError(cFunction, .staleHandle)
        return 0
    }
    return RLIndex(count)
}

@c(RLGetTypeID)
public func rlGetTypeID(_ object: RLTypeRef?) -> RLTypeID {
    let cFunction: StaticString = "RLGetTypeID"
    switch HandleTable.shared.retain(UInt(bitPattern: object), kind: nil) {
    case .success(let handled):
        defer { HandleTable.shared.release(handled.handle, from: cFunction) }
        return RLTypeID(handled.kind.rawValue)
    case .failure(let failure):
        reportError(cFunction, failure.code)
        return 0
    }
}

@c(RLCopyDescription)
public func rlCopyDescription(_ object: RLTypeRef?) -> UnsafeMutablePointer<CChar>? {
    let cFunction: StaticString = "RLCopyDescription"
    switch HandleTable.shared.retain(UInt(bitPattern: object), kind: nil) {
    case .success(let handled):
        defer { HandleTable.shared.release(handled.handle, from: cFunction) }
        return mallocCString(describe(handled))
    case .failure(let failure):
        reportError(cFunction, failure.code)
        return nil
    }
}

@c(RLRunLoopGetTypeID) public func rlRunLoopGetTypeID() -> RLTypeID { RLTypeID(HandleKind.runLoop.rawValue) }
@c(RLRunLoopSourceGetTypeID) public func rlRunLoopSourceGetTypeID() -> RLTypeID { RLTypeID(HandleKind.source.rawValue) }
@c(RLRunLoopObserverGetTypeID) public func rlRunLoopObserverGetTypeID() -> RLTypeID { RLTypeID(HandleKind.observer.rawValue) }
@c(RLRunLoopTimerGetTypeID) public func rlRunLoopTimerGetTypeID() -> RLTypeID { RLTypeID(HandleKind.timer.rawValue) }
@c(RLArrayGetTypeID) public func rlArrayGetTypeID() -> RLTypeID { RLTypeID(HandleKind.array.rawValue) }

@c(RLAbsoluteTimeGetCurrent)
public func rlAbsoluteTimeGetCurrent() -> RLAbsoluteTime { Clock.absoluteNow() }

@c(RLArrayGetCount)
public func rlArrayGetCount(_ array: RLArrayRef?) -> RLIndex {
    borrow(array, as: .array, "RLArrayGetCount", orElse: 0) { (a: ModeArray) in a.names.count }
}

@c(RLArrayGetValueAtIndex)
public func rlArrayGetValueAtIndex(_ array: RLArrayRef?, _ index: RLIndex) -> UnsafeRawPointer? {
    let cFunction: StaticString = "RLArrayGetValueAtIndex"
    return borrow(array, as: .array, cFunction, orElse: nil) { (a: ModeArray) in
        guard index >= 0, index < a.names.count else {
            reportError(cFunction, .invalidArgument, "index \(index) out of range 0..<\(a.names.count)")
            return nil
        }
        return UnsafeRawPointer(a.names[index].cString)
    }
}

@c(RLArrayCreateWithModes)
public func rlArrayCreateWithModes(_ modes: UnsafePointer<RLRunLoopMode?>?, _ count: RLIndex) -> RLArrayRef? {
    let cFunction: StaticString = "RLArrayCreateWithModes"
    guard count >= 0, count == 0 || modes != nil else {
        reportError(cFunction, .invalidArgument, "NULL modes or negative count")
        return nil
    }
    var names: [ModeName] = []
    for i in 0..<count {
        guard let name = modeArgument(modes![i], cFunction) else { return nil }
        names.append(name)
    }
    return newModeArray(names)
}
