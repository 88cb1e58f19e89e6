import Glibc

/// Sources in a hash table of their own, each held by a reference.
///
/// Open addressing with linear probing: a power-of-two number of buckets,
/// at most 3/4 of them used, and removal by backward shift (a removed
/// entry's followers move up, so no tombstones build up).  A bucket is one
/// word, the source's address (0: empty).
///
/// Why not `Set` or `Dictionary`: Swift's hashing runs SipHash over every
/// key; here a key is mixed by one multiplication, and a bucket is one word.
///
/// Two keys (`Key`): a mode's sources by identity, and a loop's sources
/// that compare by context, by context hash (Source.ContextIdentity), where
/// several sources may share a hash: `matching(hash:)` lists them.  A
/// source is in a table at most once either way.  Guarded by the owning
/// loop's lock.
/// Device: see docs/performance.md, "The engine's devices".
package struct SourceTable: ~Copyable {
    package enum Key {
        /// The source itself (its address).
        case identity
        /// Its context hash: only sources with a `contextHash` go in.
        case contextHash
    }

    // Declaration order is layout order: 24 bytes in all.
    /// `1 << bits` buckets; none until the first insert.
    private var buckets: UnsafeMutablePointer<UInt>?
    package private(set) var count = 0
    private let key: Key
    private var log2Buckets: UInt8 = 0
    private var bits: Int { Int(log2Buckets) }

    package init(_ key: Key) { self.key = key }

    deinit {
        guard let buckets else { return }
        for i in 0 ..< 1 << bits where buckets[i] != 0 { Self.unmanaged(buckets[i]).release() }
        free(buckets)
    }

    package var isEmpty: Bool { count == 0 }

    private static func unmanaged(_ bucket: UInt) -> Unmanaged<Source> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: bucket)!)
    }

    private static func address(_ source: Source) -> UInt {
        UInt(bitPattern: Unmanaged.passUnretained(source).toOpaque())
    }

    private func keyValue(_ source: Source) -> UInt {
        switch key {
        case .identity: return Self.address(source)
        case .contextHash: return source.contextHash!
        }
    }

    private func keyValue(bucket: UInt) -> UInt {
        key == .identity ? bucket : Self.unmanaged(bucket)._withUnsafeGuaranteedRef { $0.contextHash! }
    }

    /// The bucket where a key's probe starts: the top `bits` bits of the
    /// key times 2^64/φ (Fibonacci hashing), which depend on every bit of
    /// the key (an address's low bits are always zero).
    private func home(_ keyValue: UInt) -> Int {
        Int(truncatingIfNeeded: (keyValue &* 0x9E37_79B9_7F4A_7C15) >> UInt(64 - bits))
    }

    package func contains(_ source: Source) -> Bool {
        guard let buckets else { return false }
        let target = Self.address(source)
        let mask = (1 << bits) - 1
        var i = home(keyValue(source))
        while buckets[i] != 0 {
            if buckets[i] == target { return true }
            i = (i + 1) & mask
        }
        return false
    }

    /// Adds `source` (the table takes a reference); false if it is there.
    @discardableResult
    package mutating func insert(_ source: Source) -> Bool {
        if (count + 1) * 4 > (bits == 0 ? 0 : 3 << bits) { grow() }
        let buckets = self.buckets!
        let target = Self.address(source)
        let mask = (1 << bits) - 1
        var i = home(keyValue(source))
        while buckets[i] != 0 {
            if buckets[i] == target { return false }
            i = (i + 1) & mask
        }
        _ = Unmanaged.passRetained(source)
        buckets[i] = target
        count += 1
        return true
    }

    /// Removes `source` and drops the table's reference (with the lock
    /// held: not the last one, which the caller's deferred drop keeps);
    /// false if it is not there.
    @discardableResult
    package mutating func remove(_ source: Source) -> Bool {
        guard let buckets else { return false }
        let target = Self.address(source)
        let mask = (1 << bits) - 1
        var hole = home(keyValue(source))
        while buckets[hole] != target {
            if buckets[hole] == 0 { return false }
            hole = (hole + 1) & mask
        }
        // Backward shift: an entry after the hole moves into it unless its
        // probe starts after the hole (cyclically), where it would no
        // longer be found.
        var next = hole
        while true {
            next = (next + 1) & mask
            let bucket = buckets[next]
            if bucket == 0 { break }
            let start = home(keyValue(bucket: bucket))
            let reachable = hole <= next ? (start <= hole || start > next) : (start <= hole && start > next)
            if reachable {
                buckets[hole] = bucket
                hole = next
            }
        }
        buckets[hole] = 0
        count -= 1
        Self.unmanaged(target).release()
        return true
    }

    /// The sources whose context hash is `hash` (a `.contextHash` table).
    package func matching(hash: UInt) -> [Source] {
        guard let buckets, key == .contextHash else { return [] }
        let mask = (1 << bits) - 1
        var found: [Source] = []
        var i = home(hash)
        while buckets[i] != 0 {
            let source = Self.unmanaged(buckets[i]).takeUnretainedValue()
            if source.contextHash == hash { found.append(source) }
            i = (i + 1) & mask
        }
        return found
    }

    /// Every source, in no particular order.
    package var all: [Source] {
        guard let buckets else { return [] }
        var sources: [Source] = []
        sources.reserveCapacity(count)
        for i in 0 ..< 1 << bits where buckets[i] != 0 {
            sources.append(Self.unmanaged(buckets[i]).takeUnretainedValue())
        }
        return sources
    }

    /// Twice the buckets (8 at first), every entry placed again.  Traps
    /// when memory runs out, as a Swift Set does.
    private mutating func grow() {
        let oldBuckets = buckets
        let oldCount = bits == 0 ? 0 : 1 << bits
        log2Buckets = bits == 0 ? 3 : log2Buckets + 1
        guard let fresh = calloc(1 << bits, MemoryLayout<UInt>.stride) else {
            preconditionFailure("SourceTable: out of memory")
        }
        let buckets = fresh.bindMemory(to: UInt.self, capacity: 1 << bits)
        self.buckets = buckets
        guard let oldBuckets else { return }
        let mask = (1 << bits) - 1
        for j in 0 ..< oldCount where oldBuckets[j] != 0 {
            var i = home(keyValue(bucket: oldBuckets[j]))
            while buckets[i] != 0 { i = (i + 1) & mask }
            buckets[i] = oldBuckets[j]
        }
        free(oldBuckets)
    }
}
