import Glibc

/// A timer due in this pass, with the pass's reference to it and the
/// token of the schedule it was due by (see Loop.fireDueTimers).
package struct DueTimer: BitwiseCopyable {
    package let timer: Unmanaged<Timer>
    package let token: DueToken
}

/// The timers a pass fires, kept by the loop from pass to pass (a
/// MallocList: a burst makes room for every due timer at once, and when
/// memory runs out the list stays as large as malloc can still make it;
/// the timers that do not fit stay due for the next pass).  The loop's
/// thread only: its state is declared @exclusivity(unchecked)
/// (docs/design.md, "Exclusivity checks").
final class DueTimers {
    /// The most entries whose memory the lists keep between passes (1.5
    /// MB of timers): a burst of more gives its memory back when it is
    /// done, so a loop that once fired a million timers at once does not
    /// keep 24 MB.
    static let keptCapacity = 1 << 16

    @exclusivity(unchecked) private var list = MallocList<DueTimer>(keptCapacity: keptCapacity)
    /// Where the due entries are in the heap: the scratch of
    /// `ModeTimers.collectDue`, kept with the list.
    @exclusivity(unchecked) var positions = MallocList<Int32>(keptCapacity: keptCapacity)

    init() {}

    var capacity: Int { list.capacity }
    var count: Int { list.count }
    /// Whether the list has room for another timer.
    var hasRoom: Bool { list.hasRoom }

    /// Room for `n` timers, or for as many as memory allows.
    func reserve(_ n: Int) { list.reserve(n) }

    /// Adds a timer; the list must have room (then it cannot fail).
    func append(_ due: DueTimer) { precondition(list.append(due), "DueTimers.append with no room") }

    subscript(_ i: Int) -> DueTimer { list[i] }

    /// Puts the list in firing order: by deadline, FIFO among equal ones
    /// (the heap's order), in place (MallocList.sort: no allocation).
    func sortByDeadline() { list.sort { $0.token.precedes($1.token) } }

    /// Empties both lists; each keeps its memory unless it holds more
    /// than `keptCapacity` entries.
    func removeAll() {
        positions.removeAll()
        list.removeAll()
    }
}

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

    /// Sorts the entries in place by `precedes`, a strict weak order (not
    /// stable: entries neither precedes may trade places; DueTimers' have
    /// distinct keys): an introsort, so nothing is allocated (Swift's
    /// sort takes a buffer of half the list, and traps when memory runs
    /// out) and the worst case stays n log n.  Quicksort with a median of
    /// three, insertion sort below 16 entries, and heapsort for a range
    /// once quicksort has split `depthLimit` times on the way to it (2 log2
    /// n by default: only an adversarial order gets there).
    mutating func sort(depthLimit: Int? = nil, by precedes: (Element, Element) -> Bool) {
        guard count > 1, let base else { return }
        Self.introsort(base, count, depth: depthLimit ?? 2 * (Int.bitWidth - count.leadingZeroBitCount), precedes)
    }

    private static func introsort(_ a: UnsafeMutablePointer<Element>, _ n: Int, depth: Int,
                                  _ precedes: (Element, Element) -> Bool) {
        var (first, n, depth) = (a, n, depth)
        while n > 16 {
            if depth == 0 {
                heapsort(first, n, precedes)
                return
            }
            depth -= 1
            let p = partition(first, n, precedes)
            // The smaller side by recursion, the larger by the loop: the
            // stack stays log2 n frames deep.
            if p < n - 1 - p {
                introsort(first, p, depth: depth, precedes)
                (first, n) = (first + p + 1, n - 1 - p)
            } else {
                introsort(first + p + 1, n - 1 - p, depth: depth, precedes)
                n = p
            }
        }
        insertionSort(first, n, precedes)
    }

    /// Puts the median of the first, middle and last entries at its place
    /// `p`, those that precede it before and the others after; returns `p`.
    private static func partition(_ a: UnsafeMutablePointer<Element>, _ n: Int,
                                  _ precedes: (Element, Element) -> Bool) -> Int {
        let mid = n / 2
        if precedes(a[mid], a[0]) { swap(&a[mid], &a[0]) }
        if precedes(a[n - 1], a[mid]) {
            swap(&a[mid], &a[n - 1])
            if precedes(a[mid], a[0]) { swap(&a[mid], &a[0]) }
        }
        swap(&a[0], &a[mid])  // the median, as the pivot, at the front
        let pivot = a[0]
        // Entries before i do not follow the pivot, entries after j do not
        // precede it; equal ones stop both scans, so they split evenly.
        var i = 1
        var j = n - 1
        while true {
            while i <= j && precedes(a[i], pivot) { i += 1 }
            while i <= j && precedes(pivot, a[j]) { j -= 1 }
            if i >= j { break }
            swap(&a[i], &a[j])
            i += 1
            j -= 1
        }
        swap(&a[0], &a[j])
        return j
    }

    private static func insertionSort(_ a: UnsafeMutablePointer<Element>, _ n: Int,
                                      _ precedes: (Element, Element) -> Bool) {
        guard n > 1 else { return }
        for i in 1 ..< n {
            let moving = a[i]
            var hole = i
            while hole > 0 && precedes(moving, a[hole - 1]) {
                a[hole] = a[hole - 1]
                hole -= 1
            }
            a[hole] = moving
        }
    }

    /// A max-heap by `precedes`, then the largest to the end, repeatedly.
    private static func heapsort(_ a: UnsafeMutablePointer<Element>, _ n: Int,
                                 _ precedes: (Element, Element) -> Bool) {
        for start in stride(from: n / 2 - 1, through: 0, by: -1) { siftDown(a, start, n, precedes) }
        for end in stride(from: n - 1, to: 0, by: -1) {
            swap(&a[0], &a[end])
            siftDown(a, 0, end, precedes)
        }
    }

    private static func siftDown(_ a: UnsafeMutablePointer<Element>, _ start: Int, _ end: Int,
                                 _ precedes: (Element, Element) -> Bool) {
        var parent = start
        while true {
            var child = 2 * parent + 1
            guard child < end else { return }
            if child + 1 < end && precedes(a[child], a[child + 1]) { child += 1 }
            guard precedes(a[parent], a[child]) else { return }
            swap(&a[parent], &a[child])
            parent = child
        }
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
