import CRunLoop
@testable import RunLoopCore
import Testing

/// SourceTable against a model (a Set of identities): random inserts and
/// removes, each checked; removal by backward shift must keep every other
/// entry findable, with keys that collide.
@Suite struct SourceTableTests {
    /// A version-0 source whose context hash is its info pointer, `key`.
    private func source(key: Int) -> Source {
        var c = RLRunLoopSourceContext()
        c.info = UnsafeMutableRawPointer(bitPattern: key)
        c.perform = { _ in }
        return Source(order: 0, context: c)
    }

    @Test func identityTableMatchesASet() {
        var generator = SeededGenerator(seed: 7)
        let pool = (1...600).map { source(key: $0) }
        var table = SourceTable(.identity)
        var model = Set<ObjectIdentifier>()
        for step in 0..<20_000 {
            let s = pool[Int.random(in: 0..<pool.count, using: &generator)]
            let id = ObjectIdentifier(s)
            if Bool.random(using: &generator) {
                #expect(table.insert(s) == model.insert(id).inserted)
            } else {
                #expect(table.remove(s) == (model.remove(id) != nil))
            }
            #expect(table.count == model.count)
            if step % 500 == 0 {
                for s in pool { #expect(table.contains(s) == model.contains(ObjectIdentifier(s))) }
                #expect(Set(table.all.map(ObjectIdentifier.init)) == model)
            }
        }
    }

    /// Many sources share each context hash: `matching` lists exactly the
    /// ones present with that hash, and removing one leaves its neighbours
    /// in the same probe run findable.
    @Test func contextHashTableKeepsCollidingSources() {
        var generator = SeededGenerator(seed: 11)
        let pool = (0..<500).map { source(key: 1 + $0 % 40) }
        var table = SourceTable(.contextHash)
        var model = Set<ObjectIdentifier>()
        for _ in 0..<10_000 {
            let s = pool[Int.random(in: 0..<pool.count, using: &generator)]
            if Bool.random(using: &generator) {
                #expect(table.insert(s) == model.insert(ObjectIdentifier(s)).inserted)
            } else {
                #expect(table.remove(s) == (model.remove(ObjectIdentifier(s)) != nil))
            }
        }
        for key in 1...41 {
            let expected = Set(pool.filter { $0.contextHash == UInt(key) && model.contains(ObjectIdentifier($0)) }
                .map(ObjectIdentifier.init))
            let found = table.matching(hash: UInt(key))
            #expect(found.count == expected.count)
            #expect(Set(found.map(ObjectIdentifier.init)) == expected)
        }
        #expect(table.count == model.count)
    }

    /// The table holds a reference to each source, and drops it on removal
    /// and when the table goes.
    @Test func theTableHoldsAReferenceToEachSource() {
        weak var removed: Source?
        weak var kept: Source?
        do {
            var table = SourceTable(.identity)
            do {
                let a = source(key: 1), b = source(key: 2)
                removed = a
                kept = b
                table.insert(a)
                table.insert(b)
            }
            #expect(removed != nil && kept != nil)
            table.remove(removed!)
            #expect(removed == nil && kept != nil)
        }
        #expect(kept == nil)
    }
}

/// A deterministic generator (SplitMix64), so a failure replays.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
