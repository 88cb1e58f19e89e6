/// Values by descriptor number, kept in an array indexed by the number (as
/// libuv keeps its watchers): finding the sources of a ready descriptor is
/// an index, not a SipHash of the key.  The kernel hands
/// out the lowest free number, so the numbers in use are small and dense,
/// and the array is about as long as the largest of them; it shrinks when
/// its high end empties.  Negative numbers have no value.
/// Device: see docs/performance.md, "The engine's devices".
package struct DescriptorMap<Value> {
    private var values: [Value?] = []
    /// How many numbers have a value.
    package private(set) var count = 0

    package init() {}

    package var isEmpty: Bool { count == 0 }

    package subscript(fd: Int32) -> Value? {
        get { fd >= 0 && Int(fd) < values.count ? values[Int(fd)] : nil }
        set {
            guard fd >= 0 else { return }
            let i = Int(fd)
            if i >= values.count {
                guard newValue != nil else { return }
                values += repeatElement(nil, count: i + 1 - values.count)
            }
            let had = values[i] != nil
            values[i] = newValue
            count += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
            if newValue == nil && i == values.count - 1 { trim() }
        }
    }

    /// The value of `fd`, `defaultValue` if none, for an edit in place
    /// (`map[fd, default: []].append(x)`).
    package subscript(fd: Int32, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[fd] ?? defaultValue() }
        set { self[fd] = newValue }
    }

    /// The numbers that have a value, in increasing order.
    package var keys: [Int32] {
        var keys: [Int32] = []
        keys.reserveCapacity(count)
        for (i, value) in values.enumerated() where value != nil { keys.append(Int32(i)) }
        return keys
    }

    /// Drops the empty high end; gives the memory back once the array is
    /// under a quarter of what it holds room for.
    private mutating func trim() {
        var end = values.count
        while end > 0 && values[end - 1] == nil { end -= 1 }
        if end < values.capacity / 4 {
            values = Array(values[..<end])
        } else {
            values.removeLast(values.count - end)
        }
    }
}
