import Glibc

/// Readable dumps of loops and items, in the spirit of CF's
/// CFCopyDescription of a run loop.
package func describe(_ object: Object) -> String {
    switch object {
    case let loop as Loop: return loop.debugDescription
    case let source as Source: return source.debugDescription
    case let observer as Observer: return observer.debugDescription
    case let timer as Timer: return timer.debugDescription
    case let array as ModeArray:
        return "<RLArray 0x\(String(array.handle, radix: 16))>(" + array.names.map(\.description).joined(separator: ", ") + ")"
    case let f as FileDescriptor:
        return header("RLFileDescriptor", f) + "{valid = \(yesNo(f.isValid)), fd = \(f.fd), enabled = "
            + "\(f.enabledCallBacks & FileDescriptor.readCallBack != 0 ? "read" : "")"
            + "\(f.enabledCallBacks & FileDescriptor.writeCallBack != 0 ? " write" : ""), closeOnInvalidate = \(yesNo(f.closeOnInvalidate))}"
    case let s as Socket:
        return header("RLSocket", s) + "{valid = \(yesNo(s.isValid)), fd = \(s.fd), callback types = 0x"
            + "\(String(s.callBackTypes, radix: 16)), flags = 0x\(String(s.flags, radix: 16))}"
    case let s as SignalWatch:
        return header("RLSignal", s) + "{valid = \(yesNo(s.isValid)), signal = \(s.signal)}"
    case let data as Data:
        return header("RLData", data) + "{length = \(data.count)}"
    case let port as MessagePort:
        return header("RLMessagePort", port) + "{name = \(port.name ?? "(none)"), remote = \(yesNo(port.isRemote)), valid = \(yesNo(port.isValid))}"
    case let thread as Thread:
        return header("RLThread", thread) + "{stopping = \(yesNo(thread.isStopping))}"
    default: return "<unknown>"
    }
}

/// A context's copyDescription callback (every C context has one).
package typealias InfoDescriber = @convention(c) (UnsafeRawPointer?) -> UnsafeMutablePointer<CChar>?

/// What `copy` says of `info`: the malloc()ed string it returns, taken
/// and freed; nil if it returns NULL.  User code: no lock held.
package func copyInfoDescription(_ copy: InfoDescriber, _ info: UnsafeRawPointer?) -> String? {
    guard let text = copy(info) else { return nil }
    defer { free(text) }
    return String(cString: text)
}

private func yesNo(_ value: Bool) -> String { value ? "Yes" : "No" }

private func header(_ type: String, _ object: Object) -> String {
    "<\(type) 0x\(String(object.handle, radix: 16))>"
}

package func activityNames(_ mask: UInt) -> String {
    if mask & Activity.all == Activity.all { return "AllActivities" }
    let names: [(UInt, String)] = [(Activity.entry, "Entry"), (Activity.beforeTimers, "BeforeTimers"),
                                   (Activity.beforeSources, "BeforeSources"), (Activity.beforeWaiting, "BeforeWaiting"),
                                   (Activity.afterWaiting, "AfterWaiting"), (Activity.exit, "Exit")]
    let set = names.filter { mask & $0.0 != 0 }.map(\.1)
    return set.isEmpty ? "none" : set.joined(separator: "|")
}

extension Source {
    package var debugDescription: String {
        var text = header("RLRunLoopSource", self) + "{valid = \(yesNo(isValid)), order = \(order), signalled = \(yesNo(isSignalled))"
        if let info = describeInfo() { text += ", info = \(info)" }
        return text + "}"
    }
}

extension Observer {
    package var debugDescription: String {
        var text = header("RLRunLoopObserver", self)
            + "{valid = \(yesNo(isValid)), activities = 0x\(String(activities, radix: 16)) (\(activityNames(activities)))"
            + ", repeats = \(yesNo(repeats)), order = \(order)"
        if let info = describeInfo() { text += ", info = \(info)" }
        return text + "}"
    }
}

extension Timer {
    package var debugDescription: String {
        let s = withSchedule { $0 }
        let remaining = s.fireDate - Clock.absoluteNow()
        var text = header("RLRunLoopTimer", self)
            + "{valid = \(yesNo(isValid)), firing = \(yesNo(firing)), interval = \(interval), tolerance = \(tolerance)"
            + ", next fire date = \(s.fireDate) (\(remaining >= 0 ? "in" : "late by") \(abs(remaining)) s), order = \(order)"
        if let info = describeInfo() { text += ", info = \(info)" }
        return text + "}"
    }
}

/// What a loop's description shows, copied under the loop's lock: each
/// item is held (a Swift reference, and a handle reference while it still
/// has one) until the description is made, so an item that user code
/// removes or releases meanwhile is still described, and finalized only
/// when the description lets it go.
private struct LoopContents {
    struct ModeContents {
        let name: ModeName
        let sources: [Source]
        let observers: [Observer]
        let timers: [Timer]
    }

    /// The first line (the loop's own state), made under the lock.
    let heading: String
    let commonModes: [ModeName]
    let commonItems: [Object]
    let modes: [ModeContents]
    /// The items whose handle reference this copy took.
    private var held: [Object] = []

    /// Copies `loop`'s contents; its lock held.
    init(lockedLoop loop: Loop) {
        let current = loop.runs.last.map { $0.mode.name.description } ?? "(none)"
        heading = header("RLRunLoop", loop) + "{thread = \(loop.ownerTID)\(loop.isMain ? " (main)" : ""), current mode = \(current)"
            + ", waiting = \(yesNo(loop.isWaiting)), torn down = \(yesNo(loop.isDead))"
            + ", queued blocks = \(loop.work.blockCount + (loop.inbox?.count ?? 0)),"
        commonModes = loop.commonModes
        commonItems = loop.commonItemOrder.map { loop.commonItems[$0]!.object }
        modes = loop.modes.map { mode in
            ModeContents(name: mode.name,
                         sources: mode.sources.all.sorted { $0.order < $1.order },
                         observers: mode.observers.map(\.observer),
                         timers: mode.timers.all.map { ($0, $0.nextFireDate) }.sorted { $0.1 < $1.1 }.map(\.0))
        }
        for object in commonItems + modes.flatMap({ $0.sources as [Object] + $0.observers + $0.timers }) {
            if case .success = HandleTable.shared.retain(UInt(object.handle), kind: object.kind) { held.append(object) }
        }
    }

    /// Drops the handle references; may finalize an item (user code): no
    /// lock held.
    func release() {
        for object in held { object.releaseRef() }
    }
}

extension Loop {
    /// The loop's contents, copied under its lock, then described with the
    /// lock released: describing a source calls its context's
    /// copyDescription, user code that may call into this loop (ask
    /// whether it holds a source, add or remove one) or invalidate the
    /// source it describes.
    package var debugDescription: String {
        let contents = lock.withLock { LoopContents(lockedLoop: self) }
        defer { contents.release() }
        var lines = [contents.heading]
        lines.append("common modes = {" + contents.commonModes.map(\.description).joined(separator: ", ") + "},")
        lines.append("common mode items = {")
        for item in contents.commonItems { lines.append("    " + describe(item) + ",") }
        lines.append("},")
        lines.append("modes = {")
        for mode in contents.modes {
            lines.append("  \(mode.name) = {")
            lines.append("    sources = {")
            for source in mode.sources { lines.append("      " + source.debugDescription + ",") }
            lines.append("    },")
            lines.append("    observers = {")
            for observer in mode.observers { lines.append("      " + observer.debugDescription + ",") }
            lines.append("    },")
            lines.append("    timers = {")
            for timer in mode.timers { lines.append("      " + timer.debugDescription + ",") }
            lines.append("    },")
            lines.append("  },")
        }
        lines.append("}}")
        return lines.joined(separator: "\n")
    }
}
