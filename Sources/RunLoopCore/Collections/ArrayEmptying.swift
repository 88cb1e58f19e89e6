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
    mutating func removeAllKeepingStorage() { truncate(to: 0) }

    /// Removes the elements from index `newCount` on (none if the array
    /// is no longer), keeping the storage, the same way.
    @inline(__always)
    mutating func truncate(to newCount: Int) {
        guard newCount < count else { return }
        if count - newCount <= 4 {
            while count > newCount { removeLast() }
        } else if newCount == 0 {
            removeAll(keepingCapacity: true)
        } else {
            removeSubrange(newCount...)
        }
    }
}
