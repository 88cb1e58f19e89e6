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
    // The usual call, one mode name the loop already has: straight into
    // the loop's inbox, no pin, no lock (BlockInbox.swift).  The ring
    // checks the handle; anything else takes the pinned path below.
    let handle = UInt(bitPattern: rl)
    if let fn, let mode, !HandleTable.isHandle(UInt(bitPattern: mode)),
       let inbox = HandleTable.inbox(handle),
       let name = ModeName.intern(UnsafeRawPointer(mode).assumingMemoryBound(to: CChar.self)),
       inbox.isEnsured(name),
       inbox.queue(QueuedBlock(mode: name, function: fn, info: info), handle: UInt64(handle)) { return }
    performPinned(rl, mode, fn, info)
}

/// Out of line, so the path above runs without this one's frame.
@inline(never)
private func performPinned(_ rl: RLRunLoopRef?, _ mode: RLTypeRef?,
                           _ fn: RLRunLoopPerformCallBack?, _ info: UnsafeMutableRawPointer?) {
    borrow(rl, as: .runLoop, "RLRunLoopPerformFunction", orElse: ()) { (loop: Loop) in
        guard let fn else {
            reportError("RLRunLoopPerformFunction", .invalidArgument, "NULL function")
            return
        }
        guard let names = modeListArgument(mode, "RLRunLoopPerformFunction") else { return }
        if !loop.perform(in: names, function: fn, info: info) { reportError("RLRunLoopPerformFunction", .loopGone) }
    }
}

@c(RLRunLoopPerformBlock)
public func rlRunLoopPerformBlock(_ rl: RLRunLoopRef?, _ mode: RLTypeRef?,
                                  _ block: UnsafeRawPointer?) {  // void (^)(void), see CopiedBlock
    let cFunction: StaticString = "RLRunLoopPerformBlock"
    borrow(rl, as: .runLoop, cFunction, orElse: ()) { (loop: Loop) in
        guard let block else {
            reportError(cFunction, .invalidArgument, "NULL block")
            return
        }
        guard let names = modeListArgument(mode, cFunction) else { return }
        let copied = CopiedBlock(block)
        if !loop.perform(in: names, { rl_block_invoke_void(copied.pointer) }) {
            reportError(cFunction, .loopGone)
        }
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
