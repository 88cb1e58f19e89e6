import CRunLoop
import CRunLoopShims

@c(RLRunLoopGetCurrent)
public func rlRunLoopGetCurrent() -> RLRunLoopRef? {
    guard let handle = Registry.shared.currentHandle() else {
        reportError("RLRunLoopGetCurrent", .resources, "cannot create a run loop (out of descriptors?)")
        return nil
    }
    return OpaquePointer(bitPattern: UInt(handle))
}

@c(RLRunLoopGetMain)
public func rlRunLoopGetMain() -> RLRunLoopRef? {
    guard let handle = Registry.shared.mainHandle() else {
        reportError("RLRunLoopGetMain", .resources, "cannot create a run loop (out of descriptors?)")
        return nil
    }
    return OpaquePointer(bitPattern: UInt(handle))
}

@c(RLRunLoopCopyCurrentMode)
public func rlRunLoopCopyCurrentMode(_ rl: RLRunLoopRef?) -> RLRunLoopMode? {
    borrow(rl, as: .runLoop, "RLRunLoopCopyCurrentMode", orElse: nil) { (loop: Loop) in
        loop.currentModeName?.cString
    }
}

@c(RLRunLoopCopyAllModes)
public func rlRunLoopCopyAllModes(_ rl: RLRunLoopRef?) -> RLArrayRef? {
    borrow(rl, as: .runLoop, "RLRunLoopCopyAllModes", orElse: nil) { (loop: Loop) in
        newModeArray(loop.allModeNames)
    }
}

@c(RLRunLoopAddCommonMode)
public func rlRunLoopAddCommonMode(_ rl: RLRunLoopRef?, _ mode: RLRunLoopMode?) {
    let cFunction: StaticString = "RLRunLoopAddCommonMode"
    borrow(rl, as: .runLoop, cFunction, orElse: ()) { (loop: Loop) in
        guard let name = modeArgument(mode, cFunction) else { return }
        guard !name.isCommonModes else {
            reportError(cFunction, .invalidArgument, "kRLRunLoopCommonModes cannot be made common")
            return
        }
        loop.addCommonMode(name)
    }
}

@c(RLRunLoopGetNextTimerFireDate)
public func rlRunLoopGetNextTimerFireDate(_ rl: RLRunLoopRef?, _ mode: RLRunLoopMode?) -> RLAbsoluteTime {
    let cFunction: StaticString = "RLRunLoopGetNextTimerFireDate"
    return borrow(rl, as: .runLoop, cFunction, orElse: 0) { (loop: Loop) in
        guard let name = modeArgument(mode, cFunction) else { return 0 }
        return loop.nextTimerFireDate(in: name)
    }
}

@c(RLRunLoopRun)
public func rlRunLoopRun() {
    guard let loop = Registry.shared.current() else {
        reportError("RLRunLoopRun", .resources, "no run loop for this thread")
        return
    }
    while true {
        let result = loop.run(.default, seconds: 1.0e10, returnAfterSourceHandled: false)
        if result == .stopped || result == .finished { return }
    }
}

@c(RLRunLoopRunInMode)
public func rlRunLoopRunInMode(_ mode: RLRunLoopMode?, _ seconds: RLTimeInterval,
                               _ returnAfterSourceHandled: RLBoolean) -> RLRunLoopRunResult {
    let cFunction: StaticString = "RLRunLoopRunInMode"
    guard let name = modeArgument(mode, cFunction) else { return RunResult.finished.rawValue }
    guard finiteArgument(seconds, "seconds", cFunction) else { return RunResult.finished.rawValue }
    guard !name.isCommonModes else {
        // CF returns Finished and logs "invalid mode"; so does this, through the error channel.
        reportError(cFunction, .invalidArgument,
                    "kRLRunLoopCommonModes is not a mode a loop runs in: name a mode")
        return RunResult.finished.rawValue
    }
    guard let loop = Registry.shared.current() else {
        reportError(cFunction, .resources, "no run loop for this thread")
        return RunResult.finished.rawValue
    }
    return loop.run(name, seconds: seconds, returnAfterSourceHandled: returnAfterSourceHandled != 0).rawValue
}

@c(RLRunLoopIsWaiting)
public func rlRunLoopIsWaiting(_ rl: RLRunLoopRef?) -> RLBoolean {
    borrow(rl, as: .runLoop, "RLRunLoopIsWaiting", orElse: 0) { (loop: Loop) in cBool(loop.isWaiting) }
}

@c(RLRunLoopWakeUp)
public func rlRunLoopWakeUp(_ rl: RLRunLoopRef?) {
    // Already pending (or ignored): one load and one comparison, no pin.
    if _fastPath(HandleTable.hotWordIs(UInt(bitPattern: rl), kind: .runLoop, Poller.pending)) { return }
    wakeUpSlow(rl)
}

/// Out of line, so the check above runs without this path's frame:
/// awake/spinning (→ pending) on the hot word alone, no pin; else pinned.
@inline(never)
private func wakeUpSlow(_ rl: RLRunLoopRef?) {
    if Loop.wakeUpWithoutPin(UInt64(UInt(bitPattern: rl))) { return }
    wakeUpPinned(rl)
}

/// Out of line, so the checks above run without this path's frame.
@inline(never)
private func wakeUpPinned(_ rl: RLRunLoopRef?) {
    borrow(rl, as: .runLoop, "RLRunLoopWakeUp", orElse: ()) { (loop: Loop) in loop.wakeUp() }
}

@c(RLRunLoopStop)
public func rlRunLoopStop(_ rl: RLRunLoopRef?) {
    borrow(rl, as: .runLoop, "RLRunLoopStop", orElse: ()) { (loop: Loop) in loop.stop() }
}

@c(RLRunLoopPerformFunction)
public func rlRunLoopPerformFunction(_ rl: RLRunLoopRef?, _ mode: RLTypeRef?,
                                     _ fn: RLRunLoopPerformCallBack?, _ info: UnsafeMutableRawPointer?) {
    if let fn, let name = oneModeName(mode),
       Loop.queueWithoutLock(handle: UInt(bitPattern: rl), mode: name, { QueuedBlock(mode: $0, function: fn, info: info) }) {
        return
    }
    performPinned(rl, mode, "RLRunLoopPerformFunction", "function", fn.map { fn in { QueuedBlock(modes: $0, function: fn, info: info) } })
}

@c(RLRunLoopPerformBlock)
public func rlRunLoopPerformBlock(_ rl: RLRunLoopRef?, _ mode: RLTypeRef?,
                                  _ block: UnsafeRawPointer?) {  // void (^)(void), see CopiedBlock
    if let block, let name = oneModeName(mode),
       Loop.queueWithoutLock(handle: UInt(bitPattern: rl), mode: name, { QueuedBlock(modes: .one($0), block: block) }) {
        return
    }
    performPinned(rl, mode, "RLRunLoopPerformBlock", "block", block.map { block in { QueuedBlock(modes: $0, block: block) } })
}

/// A perform's mode argument when it is one mode name (not an RLArrayRef),
/// interned: what the lock-free route takes (Loop.queueWithoutLock).
@inline(__always)
private func oneModeName(_ mode: RLTypeRef?) -> ModeName? {
    guard let mode, !HandleTable.isHandle(UInt(bitPattern: mode)) else { return nil }
    return ModeName.intern(UnsafeRawPointer(mode).assumingMemoryBound(to: CChar.self))
}

/// A perform the lock-free route did not take: pinned, arguments checked,
/// under the loop's lock.  `make` builds the block for its modes (nil: the
/// caller passed no function or block).  Out of line, so the route above
/// runs without this one's frame.
@inline(never)
private func performPinned(_ rl: RLRunLoopRef?, _ mode: RLTypeRef?, _ cFunction: StaticString, _ what: String,
                           _ make: ((BlockModes) -> QueuedBlock)?) {
    borrow(rl, as: .runLoop, cFunction, orElse: ()) { (loop: Loop) in
        guard let make else {
            reportError(cFunction, .invalidArgument, "NULL \(what)")
            return
        }
        guard let modes = modeListArgument(mode, cFunction) else { return }
        if !loop.perform(make(modes)) { reportError(cFunction, .loopGone) }
    }
}

// MARK: Contains / Add / Remove

@c(RLRunLoopContainsSource)
public func rlRunLoopContainsSource(_ rl: RLRunLoopRef?, _ source: RLRunLoopSourceRef?, _ mode: RLRunLoopMode?) -> RLBoolean {
    withLoopAndItem(rl, source, as: .source, mode, "RLRunLoopContainsSource", orElse: 0) { (loop, s: Source, name) in
        cBool(loop.contains(.source(s), in: name))
    }
}

@c(RLRunLoopAddSource)
public func rlRunLoopAddSource(_ rl: RLRunLoopRef?, _ source: RLRunLoopSourceRef?, _ mode: RLRunLoopMode?) {
    let cFunction: StaticString = "RLRunLoopAddSource"
    withLoopAndItem(rl, source, as: .source, mode, cFunction, orElse: ()) { (loop, s: Source, name) in
        if case .failure(let failure) = loop.add(.source(s), to: name) { reportAddFailure(failure, cFunction) }
    }
}

@c(RLRunLoopRemoveSource)
public func rlRunLoopRemoveSource(_ rl: RLRunLoopRef?, _ source: RLRunLoopSourceRef?, _ mode: RLRunLoopMode?) {
    withLoopAndItem(rl, source, as: .source, mode, "RLRunLoopRemoveSource", orElse: ()) { (loop, s: Source, name) in
        loop.remove(.source(s), from: name)
    }
}

@c(RLRunLoopContainsObserver)
public func rlRunLoopContainsObserver(_ rl: RLRunLoopRef?, _ observer: RLRunLoopObserverRef?, _ mode: RLRunLoopMode?) -> RLBoolean {
    withLoopAndItem(rl, observer, as: .observer, mode, "RLRunLoopContainsObserver", orElse: 0) { (loop, o: Observer, name) in
        cBool(loop.contains(.observer(o), in: name))
    }
}

@c(RLRunLoopAddObserver)
public func rlRunLoopAddObserver(_ rl: RLRunLoopRef?, _ observer: RLRunLoopObserverRef?, _ mode: RLRunLoopMode?) {
    let cFunction: StaticString = "RLRunLoopAddObserver"
    withLoopAndItem(rl, observer, as: .observer, mode, cFunction, orElse: ()) { (loop, o: Observer, name) in
        if case .failure(let failure) = loop.add(.observer(o), to: name) { reportAddFailure(failure, cFunction) }
    }
}

@c(RLRunLoopRemoveObserver)
public func rlRunLoopRemoveObserver(_ rl: RLRunLoopRef?, _ observer: RLRunLoopObserverRef?, _ mode: RLRunLoopMode?) {
    withLoopAndItem(rl, observer, as: .observer, mode, "RLRunLoopRemoveObserver", orElse: ()) { (loop, o: Observer, name) in
        loop.remove(.observer(o), from: name)
    }
}

@c(RLRunLoopContainsTimer)
public func rlRunLoopContainsTimer(_ rl: RLRunLoopRef?, _ timer: RLRunLoopTimerRef?, _ mode: RLRunLoopMode?) -> RLBoolean {
    withLoopAndItem(rl, timer, as: .timer, mode, "RLRunLoopContainsTimer", orElse: 0) { (loop, t: Timer, name) in
        cBool(loop.contains(.timer(t), in: name))
    }
}

@c(RLRunLoopAddTimer)
public func rlRunLoopAddTimer(_ rl: RLRunLoopRef?, _ timer: RLRunLoopTimerRef?, _ mode: RLRunLoopMode?) {
    let cFunction: StaticString = "RLRunLoopAddTimer"
    withLoopAndItem(rl, timer, as: .timer, mode, cFunction, orElse: ()) { (loop, t: Timer, name) in
        if case .failure(let failure) = loop.add(timer: t, to: name) { reportAddFailure(failure, cFunction) }
    }
}

@c(RLRunLoopRemoveTimer)
public func rlRunLoopRemoveTimer(_ rl: RLRunLoopRef?, _ timer: RLRunLoopTimerRef?, _ mode: RLRunLoopMode?) {
    withLoopAndItem(rl, timer, as: .timer, mode, "RLRunLoopRemoveTimer", orElse: ()) { (loop, t: Timer, name) in
        loop.remove(.timer(t), from: name)
    }
}
