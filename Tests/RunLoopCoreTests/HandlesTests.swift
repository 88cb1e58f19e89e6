import CRunLoop
import CRunLoopShims
import Foundation
@testable import RunLoopCore
import Synchronization
import TestSupport
import Testing

extension Result {
    var isFailure: Bool { if case .failure = self { return true } else { return false } }
}

@Suite struct HandleTableTests {
    @Test func staleAndWrongTypeHandlesAreRefused() {
        let timer = makeTimer(in: 1) { _ in }
        let handle = timer.handle
        #expect(HandleTable.isHandle(UInt(handle)))
        guard case .failure(.wrongType) = HandleTable.shared.retain(UInt(handle), kind: .source) else {
            Issue.record("wrong type accepted")
            return
        }
        #expect(HandleTable.shared.retainCount(handle) == 1)
        timer.releaseRef()
        guard case .failure(.stale) = HandleTable.shared.retain(UInt(handle), kind: .timer) else {
            Issue.record("stale handle accepted")
            return
        }
        // A new object reusing the slot gets a different handle.
        let next = makeTimer(in: 1) { _ in }
        #expect(next.handle != handle)
        guard case .failure(.stale) = HandleTable.shared.retain(UInt(handle), kind: .timer) else {
            Issue.record("stale handle accepted after slot reuse")
            return
        }
        next.releaseRef()
        guard case .failure(.null) = HandleTable.shared.retain(0, kind: nil) else {
            Issue.record("NULL accepted")
            return
        }
    }

    /// A pin is not a reference: the last release of a pinned object makes
    /// its handle refuse pins and references at once, and the last unpin
    /// finalizes it.  A pin of the library's may still become a reference.
    @Test func pinsDoNotKeepHandlesAlive() {
        final class Probe: Object, @unchecked Sendable {
            var finalized = 0
            init() { super.init(kind: .data) }
            override func finalize() { finalized += 1 }
        }
        let probe = registered(Probe())
        let handle = probe.handle
        guard case .pinned = HandleTable.pin(UInt(handle), kind: .data) else {
            Issue.record("live handle refused")
            return
        }
        #expect(HandleTable.shared.retainCount(handle) == 1)
        probe.releaseRef()  // the last reference, while pinned
        #expect(HandleTable.shared.retainCount(handle) == nil)
        #expect(probe.finalized == 0)
        guard case .failed(.stale) = HandleTable.pin(UInt(handle), kind: .data) else {
            Issue.record("released handle pinned")
            return
        }
        #expect(HandleTable.shared.retain(UInt(handle), kind: nil).isFailure)
        HandleTable.unpin(handle, from: "test")
        #expect(probe.finalized == 1)

        // Revived by a reference taken while pinned (retainKnown).
        let other = registered(Probe())
        guard case .pinned = HandleTable.pin(UInt(other.handle), kind: .data) else {
            Issue.record("live handle refused")
            return
        }
        other.releaseRef()
        other.retainRef()
        HandleTable.unpin(other.handle, from: "test")
        #expect(other.finalized == 0)
        #expect(HandleTable.shared.retainCount(other.handle) == 1)
        other.releaseRef()
        #expect(other.finalized == 1)
    }

    /// A hot word is read through a handle with no pin: only while the
    /// handle is live and of the asked kind, and an object whose handle
    /// died cannot write into the slot's next owner.
    @Test func aHotWordBelongsToOneLiveHandle() {
        let source = makeSource {}
        let handle = UInt(source.handle)
        #expect(HandleTable.peek(handle, kind: .source) == 0)
        source.signal()
        #expect(HandleTable.peek(handle, kind: .source) == Source.signalledBit)
        #expect(HandleTable.peek(handle, kind: .runLoop) == nil)
        #expect(HandleTable.peek(0, kind: .source) == nil)
        source.releaseRef()
        #expect(HandleTable.peek(handle, kind: .source) == nil)
        #expect(!source.isSignalled)
        // The next source probably reuses the slot; the old object's
        // writes are refused either way.
        let next = makeSource {}
        #expect(!source.hot.compareExchange(expected: 0, desired: Source.signalledBit).exchanged)
        source.hot.store(Source.signalledBit)
        #expect(!source.claimPerform())
        #expect(HandleTable.peek(UInt(next.handle), kind: .source) == 0)
        #expect(!next.isSignalled)
        // The C fast paths (no tag or range test, one XOR): only the live
        // owner's exact handle, kind and value.
        let h = UInt(next.handle)
        let both = Source.signalledBit | Source.wokenBit
        next.signalAndWakeUp()  // in no loop: marked pending and woken
        #expect(HandleTable.hotWordIs(h, kind: .source, both))
        #expect(HandleTable.hotWordHas(h, kind: .source, Source.signalledBit))
        #expect(!HandleTable.hotWordIs(h, kind: .source, Source.signalledBit))
        #expect(!HandleTable.hotWordIs(h, kind: .runLoop, both))
        #expect(!HandleTable.hotWordIs(h | 1 << 26, kind: .source, both))  // same slot, forged index bits
        #expect(!HandleTable.hotWordIs(h ^ 1 << 32, kind: .source, both))  // another generation
        #expect(!HandleTable.hotWordIs(h ^ 1 << 56, kind: .source, both))  // another tag
        #expect(!HandleTable.hotWordHas(h ^ 1 << 32, kind: .source, Source.signalledBit))
        #expect(!HandleTable.hotWordIs(0, kind: .source, both))
        #expect(!HandleTable.hotWordHas(0, kind: .source, 0))
        #expect(next.claimPerform())
        #expect(HandleTable.peek(h, kind: .source) == 0)
        next.releaseRef()
        #expect(!HandleTable.hotWordHas(h, kind: .source, 0))  // released: 0 is no key's
    }

    @Test func finalizeRunsOnceWhenTheLastReferenceGoes() {
        let released = Atomic<Int>(0)
        let source = makeSource(release: { released.add(1, ordering: .relaxed) }) {}
        source.retainRef()
        source.releaseRef()
        #expect(released.load(ordering: .relaxed) == 0)
        source.releaseRef()
        #expect(released.load(ordering: .relaxed) == 1)
    }
}

@Suite struct FastPathLayoutTests {
    /// The opt-in inline fast paths (include/runloop/fastpath.h, layout
    /// RL_FAST_PATH_LAYOUT = `fastPathLayout`, which test_rl_fastpath
    /// checks from C) find an object's hot word at directory entry
    /// (handle >> 12) & 0x3FFF, word 0x2000 + (handle & 0xFFF) of that
    /// page, holding `kind << 24 | value` XOR the handle: the table's own
    /// layout, for objects in several pages.
    @Test func theHeadersLayoutIsTheTables() {
        let directory = rlInternalHotWordDirectory(fastPathLayout)!
        #expect(rlInternalHotWordDirectory(fastPathLayout) == directory)
        #expect(rlInternalHotWordDirectory(fastPathLayout + 1) != directory)
        let sources = (0..<5000).map { _ in makeSource {} }
        var mismatches = 0
        for source in sources {
            let h = source.handle
            let page = directory.load(fromByteOffset: Int((h >> 12) & 0x3FFF) * 8, as: UnsafeRawPointer?.self)
            let word = page.map { $0 + 0x10000 + Int(h & 0xFFF) * 8 }
            if word != UnsafeRawPointer(source.hot.pointer) { mismatches += 1 }
            source.signal()
            if let word, word.load(as: UInt64.self) ^ h != UInt64(HandleKind.source.rawValue) << 24 | UInt64(Source.signalledBit) {
                mismatches += 1
            }
        }
        #expect(mismatches == 0)
        for source in sources { source.invalidate(); source.releaseRef() }
    }
}
