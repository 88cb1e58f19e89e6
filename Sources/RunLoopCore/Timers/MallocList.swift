import Glibc

/// A list of plain values in memory from malloc, for the scratch lists a
/// timer pass keeps from pass to pass (DueTimers).  Growing never traps,
/// as a Swift array's does when memory runs out: `append` fails and
/// `reserve` gives as much as malloc can still serve, and the caller
/// decides what does not fit.  `removeAll` keeps the memory for the next
/// pass, unless a burst grew it past `keptCapacity` entries.
struct MallocList<Element: BitwiseCopyable>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>?
    private(set) var capacity = 0
    private(set) var count = 0
    /// The most entries whose memory `removeAll` keeps.
    let keptCapacity: Int

    init(keptCapacity: Int) { self.keptCapacity = keptCapacity }

    deinit { free(base) }

    /// Whether the list has room for another entry without growing.
    var hasRoom: Bool { count < capacity }

    /// Room for `n` entries, or for as many as memory allows (the request
    /// halves until realloc can give it).
    mutating func reserve(_ n: Int) {
        var want = n
        while want > capacity {
            if grow(to: want) { return }
            want /= 2
        }
    }

    /// Adds an entry, doubling the room if it is full; false, with nothing
    /// added, when memory runs out.
    mutating func append(_ element: Element) -> Bool {
        if count == capacity, !grow(to: capacity == 0 ? 64 : capacity * 2) { return false }
        (base! + count).initialize(to: element)
        count += 1
        return true
    }

    subscript(_ i: Int) -> Element {
        precondition(i < count)
        return base![i]
    }

    mutating func swapAt(_ i: Int, _ j: Int) {
        precondition(i < count && j < count)
        swap(&base![i], &base![j])
    }

    /// Empties the list; keeps its memory unless it holds more than
    /// `keptCapacity` entries.
    mutating func removeAll() {
        count = 0
        if capacity > keptCapacity {
            free(base)
            base = nil
            capacity = 0
        }
    }

    private mutating func grow(to n: Int) -> Bool {
        guard let grown = realloc(base, n * MemoryLayout<Element>.stride) else { return false }
        base = grown.bindMemory(to: Element.self, capacity: n)
        capacity = n
        return true
    }
}
