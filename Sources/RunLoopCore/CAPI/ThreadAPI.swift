import CRunLoop

@c(RLThreadGetTypeID) public func rlThreadGetTypeID() -> RLTypeID { RLTypeID(HandleKind.thread.rawValue) }

@c(RLThreadCreate)
public func rlThreadCreate(_ name: UnsafePointer<CChar>?) -> RLThreadRef? {
    guard let worker = Thread.start(name: name.map { String(cString: $0) }) else {
        reportError("RLThreadCreate", .resources, "the system refused a thread or its run loop (out of threads or descriptors)")
        return nil
    }
    return worker.opaque
}

@c(RLThreadGetRunLoop)
public func rlThreadGetRunLoop(_ thread: RLThreadRef?) -> RLRunLoopRef? {
    borrow(thread, as: .thread, "RLThreadGetRunLoop", orElse: nil) { (w: Thread) in w.loop.opaque }
}

@c(RLThreadPerform)
public func rlThreadPerform(_ thread: RLThreadRef?, _ fn: RLRunLoopPerformCallBack?,
                            _ info: UnsafeMutableRawPointer?, _ waitUntilDone: RLBoolean) -> RLBoolean {
    let cFunction: StaticString = "RLThreadPerform"
    // The worker is pinned only to take a Swift reference: a call waiting
    // for its task holds no pin (a pin never keeps the handle alive, but
    // it delays the finalize of the last release until it goes).
    let worker: Thread? = borrow(thread, as: .thread, cFunction, orElse: nil) { (w: Thread) in w }
    guard let worker else { return 0 }
    guard let fn else {
        reportError(cFunction, .invalidArgument, "NULL function")
        return 0
    }
    let accepted = waitUntilDone != 0 ? worker.performAndWait { fn(info) } : worker.enqueue { fn(info) }
    if !accepted { reportError(cFunction, .invalidArgument, "the thread was stopped") }
    return cBool(accepted)
}

@c(RLThreadStop)
public func rlThreadStop(_ thread: RLThreadRef?) {
    borrow(thread, as: .thread, "RLThreadStop", orElse: ()) { (w: Thread) in w.stop() }
}
