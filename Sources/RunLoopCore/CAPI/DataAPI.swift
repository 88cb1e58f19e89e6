import CRunLoop

@c(RLDataGetTypeID) public func rlDataGetTypeID() -> RLTypeID { RLTypeID(HandleKind.data.rawValue) }

@c(RLDataCreate)
public func rlDataCreate(_ allocator: RLAllocatorRef?, _ bytes: UnsafePointer<UInt8>?, _ length: RLIndex) -> RLDataRef? {
    let cFunction: StaticString = "RLDataCreate"
    guard length >= 0 else {
        reportError(cFunction, .invalidArgument, "negative length \(length)")
        return nil
    }
    guard length == 0 || bytes != nil else {
        reportError(cFunction, .invalidArgument, "NULL bytes with length \(length)")
        return nil
    }
    guard let data = Data.make(copying: bytes, count: length) else {
        reportError(cFunction, .invalidArgument, "handle table full")
        return nil
    }
    return data.opaque
}

@c(RLDataGetLength)
public func rlDataGetLength(_ data: RLDataRef?) -> RLIndex {
    borrow(data, as: .data, "RLDataGetLength", orElse: 0) { (d: Data) in d.count }
}

@c(RLDataGetBytePtr)
public func rlDataGetBytePtr(_ data: RLDataRef?) -> UnsafePointer<UInt8>? {
    borrow(data, as: .data, "RLDataGetBytePtr", orElse: nil) { (d: Data) in
        UnsafePointer(d.bytes.assumingMemoryBound(to: UInt8.self))
    }
}
