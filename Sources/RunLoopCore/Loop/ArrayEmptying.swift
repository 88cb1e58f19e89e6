extension Array {
    /// Empties the array and keeps its storage for the next pass, as
    /// `removeAll(keepingCapacity: true)` does, but cheaply when it holds
    /// a few elements, the usual size of a pass's lists (one signalled
    /// source, one ready descriptor, one queued block).  removeAll goes
    /// through the generic replaceSubrange, ~80 instructions for plain
    /// values and ~150 for references however few it removes; removeLast
    /// costs ~15 an element.  (sources 1, callgrind: 6% of the pass; see
    /// the commit that added it.)
    @inline(__always)
    mutating func removeAllKeepingStorage() {
        if count <= 4 {
            while !isEmpty { removeLast() }
        } else {
            removeAll(keepingCapacity: true)
        }
    }
}
