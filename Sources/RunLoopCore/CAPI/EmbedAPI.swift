import CRunLoop

// Driving a loop from another event loop (Loop/Embedding.swift).

@c(RLRunLoopGetPollDescriptor)
public func rlRunLoopGetPollDescriptor(_ rl: RLRunLoopRef?) -> Int32 {
    let cFunction: StaticString = "RLRunLoopGetPollDescriptor"
    return borrow(rl, as: .runLoop, cFunction, orElse: -1) { (loop: Loop) in
        switch loop.pollDescriptor() {
        case .success(let (fd, lost)):
            if let lost { reportLostPollDescriptor(lost, cFunction) }
            return fd
        case .failure(let failure):
            reportEmbedFailure(failure, cFunction)
            return -1
        }
    }
}

@c(RLRunLoopGetTimeout)
public func rlRunLoopGetTimeout(_ rl: RLRunLoopRef?, _ mode: RLRunLoopMode?) -> RLTimeInterval {
    let cFunction: StaticString = "RLRunLoopGetTimeout"
    return borrow(rl, as: .runLoop, cFunction, orElse: 0) { (loop: Loop) in
        guard let name = modeArgument(mode, cFunction) else { return 0 }
        switch loop.timeout(name) {
        case .success(let (seconds, lost)):
            if let lost { reportLostPollDescriptor(lost, cFunction) }
            return seconds
        case .failure(let failure):
            reportEmbedFailure(failure, cFunction)
            return 0
        }
    }
}

@c(RLRunLoopRunPending)
public func rlRunLoopRunPending(_ rl: RLRunLoopRef?, _ mode: RLRunLoopMode?) -> RLRunLoopRunResult {
    let cFunction: StaticString = "RLRunLoopRunPending"
    return borrow(rl, as: .runLoop, cFunction, orElse: RunResult.finished.rawValue) { (loop: Loop) in
        guard let name = modeArgument(mode, cFunction) else { return RunResult.finished.rawValue }
        switch loop.runPending(name) {
        case .success(let (result, lost)):
            if let lost { reportLostPollDescriptor(lost, cFunction) }
            return result.rawValue
        case .failure(let failure):
            reportEmbedFailure(failure, cFunction)
            return RunResult.finished.rawValue
        }
    }
}

private func reportEmbedFailure(_ failure: Loop.EmbedFailure, _ function: StaticString) {
    switch failure {
    case .wrongThread: reportError(function, .wrongThread, "call it on the loop's own thread")
    case .gone: reportError(function, .loopGone)
    case .resources: reportError(function, .resources, "cannot create the loop's descriptors (out of descriptors?)")
    case .commonModes:
        reportError(function, .invalidArgument,
                    "kRLRunLoopCommonModes is not a mode a loop runs in: name a mode "
                    + "(the loop is left prepared for none, its poll descriptor quiet)")
    }
}

private func reportLostPollDescriptor(_ fd: Int32, _ function: StaticString) {
    reportError(function, .invalidArgument,
                "poll descriptor \(fd) is no longer the loop's (closed by the caller?): "
                + "RLRunLoopGetPollDescriptor returns a new one (never number \(fd)); the pending work was not lost")
}
