import CRunLoop
import CRunLoopShims
import Foundation
@testable import RunLoopCore
import Synchronization
import TestSupport
import Testing

@Suite struct ModeNameTests {
    @Test func namesAreInternedByValue() {
        let a = ModeName.intern("swift-intern-test")!
        let b = "swift-intern-test".withCString { ModeName.intern($0)! }
        #expect(a == b)
        #expect(a.cString == b.cString)
        #expect(ModeName.intern(a.cString) == a)
        #expect("kCFRunLoopDefaultMode".withCString { ModeName.intern($0) } == .default)
        #expect(ModeName.intern(String(repeating: "x", count: ModeName.maxLength + 1)) == nil)
    }

    @Test func theDefaultAndCommonNamesHaveTheFixedIds() {
        #expect(ModeName.default.id == ModeName.defaultID)
        #expect(ModeName.common.id == ModeName.commonID)
        #expect(ModeName.common.isCommonModes && !ModeName.default.isCommonModes)
    }

    /// The cache in front of the table is keyed by the caller's pointer: a
    /// buffer reused for another name must give the other name.
    @Test func aReusedBufferInternsItsCurrentContents() {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: 2 * ModeName.maxLength)
        defer { buffer.deallocate() }
        func fill(_ text: String) { _ = text.withCString { strcpy(buffer, $0) } }
        fill("swift-cache-a")
        let a = ModeName.intern(UnsafePointer(buffer))
        #expect(a == ModeName.intern("swift-cache-a"))
        #expect(ModeName.intern(UnsafePointer(buffer)) == a)  // the cached answer
        fill("swift-cache-b")
        #expect(ModeName.intern(UnsafePointer(buffer)) == ModeName.intern("swift-cache-b"))
        fill("swift-cache-a")
        #expect(ModeName.intern(UnsafePointer(buffer)) == a)
        fill(String(repeating: "y", count: ModeName.maxLength + 1))
        #expect(ModeName.intern(UnsafePointer(buffer)) == nil)  // over-long, even after a hit
        fill("kCFRunLoopCommonModes")
        #expect(ModeName.intern(UnsafePointer(buffer))?.isCommonModes == true)
    }

    /// A cache hit compares the caller's string to the interned one eight
    /// bytes at a time, reading past a shorter string's NUL only within
    /// the page its first byte is in: strings that end at the last byte
    /// before an unreadable page, and strings that differ from a cached
    /// name in one byte, a missing last byte or one extra byte, all intern
    /// to their own contents.
    @Test func cachedNamesAreComparedByContentsUpToAPageEnd() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let raw = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let raw, raw != MAP_FAILED else { Issue.record("mmap failed"); return }
        defer { munmap(raw, 2 * page) }
        #expect(mprotect(raw + page, page, PROT_NONE) == 0)  // a read past the page faults
        let memory = raw.assumingMemoryBound(to: CChar.self)
        let lengths = [1, 2, 7, 8, 9, 15, 16, 17, 21, 23, 24, 25, 40]
        // `text` written so its NUL is `gap` bytes before the page's end
        // (after garbage in front of it), interned through that pointer.
        func internAt(_ text: String, gap: Int) -> ModeName? {
            let bytes = Array(text.utf8)
            let start = page - gap - bytes.count - 1
            memset(memory, 0x5A, page)
            for (i, b) in bytes.enumerated() { memory[start + i] = CChar(bitPattern: b) }
            memory[start + bytes.count] = 0
            return ModeName.intern(UnsafePointer(memory + start))
        }
        for length in lengths {
            let name = String(repeating: "m", count: length - 1) + "\(length % 10)"
            let interned = try #require(ModeName.intern(name))
            for gap in [0, 1, 3, 8, 100] {
                #expect(internAt(name, gap: gap) == interned)
                #expect(internAt(name, gap: gap) == interned)  // the cached answer
                // Same pointer, other contents: a byte changed, one
                // missing, one more.
                for index in [0, length / 2, length - 1] {
                    var changed = Array(name.utf8)
                    changed[index] = UInt8(ascii: "#")
                    let other = String(decoding: changed, as: UTF8.self)
                    #expect(internAt(other, gap: gap) == ModeName.intern(other))
                    _ = internAt(name, gap: gap)  // cache the name again
                }
                let shorter = String(name.dropLast())
                if !shorter.isEmpty { #expect(internAt(shorter, gap: gap) == ModeName.intern(shorter)) }
                _ = internAt(name, gap: gap)
                #expect(internAt(name + "x", gap: gap) == ModeName.intern(name + "x"))
            }
        }
    }
}

@Suite struct DescriptorMapTests {
    @Test func valuesByNumberGrowAndShrink() {
        var map = DescriptorMap<String>()
        #expect(map.isEmpty && map[0] == nil && map[-1] == nil && map[1 << 20] == nil)
        map[-3] = "ignored"
        #expect(map.isEmpty)
        map[5] = "five"
        map[1000] = "thousand"
        map[5, default: ""] += "!"
        #expect(map.count == 2 && map[5] == "five!" && map[1000] == "thousand" && map[6] == nil)
        #expect(map.keys == [5, 1000])
        map[1000] = nil
        map[1000] = nil  // twice: nothing to remove
        #expect(map.count == 1 && map.keys == [5] && map[1000] == nil)
        map[5] = nil
        #expect(map.isEmpty && map.keys.isEmpty)
    }
}

@Suite struct LoopModesTests {
    /// A loop's modes are found by name once made, names not made are not
    /// found, and they are listed in the order they were made.
    @Test func modesAreFoundByNameAndListedInOrder() {
        onFreshThread {
            let loop = Registry.shared.current()!
            let names = (0..<50).map { ModeName.intern("loop-modes-test-\($0)")! }
            var made: [Mode] = []
            for (i, name) in names.enumerated() {
                let mode = loop.lock.withLock { loop.modeLocked(name) }
                made.append(mode)
                loop.lock.withLock {
                    #expect(made.allSatisfy { loop.existingModeLocked($0.name) === $0 })
                    if i + 1 < names.count { #expect(loop.existingModeLocked(names[i + 1]) == nil) }
                    #expect(loop.modeLocked(name) === mode)
                }
            }
            #expect(Array(loop.allModeNames.suffix(names.count)) == names)
        }
    }
}
