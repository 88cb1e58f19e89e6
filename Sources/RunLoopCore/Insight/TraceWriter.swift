import CRunLoopShims
import Glibc
import Synchronization

/// One loop's Chrome trace-event file (RLRunLoopTraceStart/Stop): a JSON
/// object whose `traceEvents` array holds a complete ("X") event per step
/// and callout, in µs of the monotonic clock.  Events are formatted into a
/// buffer written out in 64 KiB chunks; `close` writes the rest and the
/// closing brackets.  Every method takes the writer's own mutex, so a stop
/// from another thread is safe at any moment: events that arrive after it
/// are dropped.
package final class TraceWriter: @unchecked Sendable {
    /// An event's optional argument.
    package enum Arg {
        case none
        case word(StaticString, StaticString)
        case hex(StaticString, UInt)
        case text(StaticString, String)
    }

    private static let chunk = 64 * 1024
    private let lock = Lock()
    // Guarded by `lock`.
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    private var pid: Int32 = 0
    private var tid: Int32 = 0
    private var opened: UInt64 = 0
    private var tearDownID: Int? = nil

    package init() {}

    /// Creates the file and writes the header.  False if already open or
    /// the file cannot be created (errno tells why).
    package func open(path: UnsafePointer<CChar>, tid: Int32, threadName: String) -> Bool {
        lock.withLock {
            guard fd < 0 else { return false }
            let f = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard f >= 0 else { return false }
            fd = f
            pid = getpid()
            self.tid = tid
            opened = Clock.monotonicNow()
            buffer.removeAll(keepingCapacity: true)
            buffer.reserveCapacity(Self.chunk + 1024)
            append("{\"traceEvents\":[\n")
            append("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":\(pid),\"tid\":\(tid),\"args\":{\"name\":")
            appendString(threadName)
            append("}}")
            TraceWriter.openWriters.withLock { $0[ObjectIdentifier(self)] = self }
            return true
        }
    }

    package var isOpen: Bool { lock.withLock { fd >= 0 } }

    /// Remembers the loop's tear-down handler id (removed at close).
    package func setTearDownID(_ id: Int?) -> Int? {
        lock.withLock {
            let old = tearDownID
            tearDownID = id
            return old
        }
    }

    /// Records a complete event from `start` to `end` (monotonic ns).
    package func complete(name: StaticString, category: StaticString, start: UInt64, end: UInt64, _ arg: Arg) {
        lock.withLock {
            guard fd >= 0 else { return }
            let from = max(start, opened)
            append(",\n{\"name\":\"")
            append(name)
            append("\",\"cat\":\"")
            append(category)
            append("\",\"ph\":\"X\",\"ts\":")
            appendMicros(from)
            append(",\"dur\":")
            appendMicros(end > from ? end - from : 0)
            append(",\"pid\":\(pid),\"tid\":\(tid)")
            switch arg {
            case .none: break
            case .word(let key, let value):
                append(",\"args\":{\"\(key)\":\"\(value)\"}")
            case .hex(let key, let value):
                append(",\"args\":{\"\(key)\":\"0x\(String(value, radix: 16))\"}")
            case .text(let key, let value):
                append(",\"args\":{\"\(key)\":")
                appendString(value)
                append("}")
            }
            append("}")
            if buffer.count >= Self.chunk { flush() }
        }
    }

    /// Writes the rest and closes the file.  Returns whether it was open.
    @discardableResult
    package func close() -> Bool {
        let closed: Bool = lock.withLock {
            guard fd >= 0 else { return false }
            append("\n],\"displayTimeUnit\":\"ms\"}\n")
            flush()
            Glibc.close(fd)
            fd = -1
            buffer = []
            return true
        }
        if closed { _ = TraceWriter.openWriters.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) } }
        return closed
    }

    // MARK: formatting (lock held)

    private func append(_ s: StaticString) {
        s.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    private func append(_ s: String) { buffer.append(contentsOf: s.utf8) }

    /// A JSON string literal.
    private func appendString(_ s: String) {
        buffer.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                buffer.append(UInt8(ascii: "\\"))
                buffer.append(byte)
            case 0..<0x20:
                append("\\u00")
                let hex = Array("0123456789abcdef".utf8)
                buffer.append(hex[Int(byte >> 4)])
                buffer.append(hex[Int(byte & 15)])
            default:
                buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Nanoseconds as microseconds with three decimals.
    private func appendMicros(_ ns: UInt64) {
        append(String(ns / 1000))
        let frac = ns % 1000
        buffer.append(UInt8(ascii: "."))
        buffer.append(UInt8(ascii: "0") + UInt8(frac / 100))
        buffer.append(UInt8(ascii: "0") + UInt8(frac / 10 % 10))
        buffer.append(UInt8(ascii: "0") + UInt8(frac % 10))
    }

    private func flush() {
        var offset = 0
        buffer.withUnsafeBytes { raw in
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }  // disk full: the rest is lost
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: process exit

    /// Writers with an open file, closed by `closeAllAtExit`.
    private static let openWriters: Guarded<[ObjectIdentifier: TraceWriter]> = {
        atexit { TraceWriter.closeAllAtExit() }
        return Guarded([:])
    }()

    private static func closeAllAtExit() {
        let writers = openWriters.withLock { Array($0.values) }
        for writer in writers { writer.close() }
    }
}

/// Starting and stopping a loop's trace (RLRunLoopTraceStart/Stop).
extension Loop {
    package enum TraceStart {
        case started, alreadyTracing, loopGone
        case cannotCreate(Int32)
    }

    package func startTrace(path: UnsafePointer<CChar>) -> TraceStart {
        let insight = makeInsight()
        let writer = insight.makeTrace()
        if writer.isOpen { return .alreadyTracing }
        let name = isMain ? "run loop (main thread)" : "run loop (thread \(ownerTID))"
        guard writer.open(path: path, tid: ownerTID, threadName: name) else {
            return writer.isOpen ? .alreadyTracing : .cannotCreate(errno)
        }
        // The loop's thread exiting ends the trace (the main thread's is
        // ended by the process's exit, see TraceWriter.closeAllAtExit).
        guard let id = onTearDown({ [weak self] in self?.stopTrace() }) else {
            writer.close()
            return .loopGone
        }
        _ = writer.setTearDownID(id)
        insight.flags.bitwiseOr(Insight.traceBit, ordering: .relaxed)
        return .started
    }

    /// Returns whether a trace was being recorded.
    @discardableResult
    package func stopTrace() -> Bool {
        let insight = makeInsight()
        insight.flags.bitwiseAnd(~Insight.traceBit, ordering: .relaxed)
        guard let writer = insight.trace else { return false }
        if let id = writer.setTearDownID(nil) { removeTearDownHandler(id) }
        return writer.close()
    }
}
