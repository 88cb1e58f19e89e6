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
    case let data as Data:
        return header("RLData", data) + "{length = \(data.count)}"
    case let port as MessagePort:
        return header("RLMessagePort", port) + "{name = \(port.name ?? "(none)"), remote = \(yesNo(port.isRemote)), valid = \(yesNo(port.isValid))}"
    case let thread as Thread:
        return header("RLThread", thread) + "{stopping = \(yesNo(thread.isStopping))}"
    default: return "<unknown>"
    }
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
        header("RLRunLoopObserver", self)
            + "{valid = \(yesNo(isValid)), activities = 0x\(String(activities, radix: 16)) (\(activityNames(activities)))"
            + ", repeats = \(yesNo(repeats)), order = \(order)}"
    }
}

extension Timer {
    package var debugDescription: String {
        let s = withSchedule { $0 }
        let remaining = s.fireDate - Clock.absoluteNow()
        return header("RLRunLoopTimer", self)
            + "{valid = \(yesNo(isValid)), firing = \(yesNo(firing)), interval = \(interval), tolerance = \(tolerance)"
            + ", next fire date = \(s.fireDate) (\(remaining >= 0 ? "in" : "late by") \(abs(remaining)) s), order = \(order)}"
    }
}

extension Loop {
    package var debugDescription: String {
        lock.withLock {
            var lines: [String] = []
            let current = runs.last.map { $0.mode.name.description } ?? "(none)"
            lines.append(header("RLRunLoop", self) + "{thread = \(ownerTID)\(isMain ? " (main)" : ""), current mode = \(current)"
                + ", waiting = \(yesNo(isWaiting)), torn down = \(yesNo(isDead)), queued blocks = \(work.blockCount + (inbox?.count ?? 0)),")
            lines.append("common modes = {" + commonModes.map(\.description).joined(separator: ", ") + "},")
            lines.append("common mode items = {")
            for id in commonItemOrder { lines.append("    " + describe(commonItems[id]!.object) + ",") }
            lines.append("},")
            lines.append("modes = {")
            for mode in modes.ordered {
                lines.append("  \(mode.name) = {")
                lines.append("    sources = {")
                for source in mode.sources.all.sorted(by: { $0.order < $1.order }) {
                    lines.append("      " + source.debugDescription + ",")
                }
                lines.append("    },")
                lines.append("    observers = {")
                for entry in mode.observers { lines.append("      " + entry.observer.debugDescription + ",") }
                lines.append("    },")
                lines.append("    timers = {")
                let timers = mode.timers.all.sorted { $0.nextFireDate < $1.nextFireDate }
                for timer in timers { lines.append("      " + timer.debugDescription + ",") }
                lines.append("    },")
                lines.append("  },")
            }
            lines.append("}}")
            return lines.joined(separator: "\n")
        }
    }
}
