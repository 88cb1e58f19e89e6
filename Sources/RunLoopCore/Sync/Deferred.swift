/// Work collected under a lock, to run after it is released: user
/// callouts (schedule, cancel) and reference drops (which may call a
/// context's release).
package struct Deferred {
    // The first reference drop is stored inline: most operations defer
    // exactly one, and an array would cost an allocation each time.  Each
    // entry owns a Swift reference, dropped by `run()` (which every user
    // calls exactly once) after the handle reference.
    // The arrays stay nil until needed: an empty array is a reference
    // that making and dropping a Deferred would retain and release.
    private var firstRelease: Unmanaged<Object>?
    private var actions: [() -> Void]?
    private var releases: [Unmanaged<Object>]?

    package mutating func call(_ action: @escaping () -> Void) {
        if actions == nil { actions = [action] } else { actions!.append(action) }
    }
    package mutating func release(_ object: Object) { release(owned: Unmanaged.passRetained(object)) }
    /// The same, taking over a Swift reference the caller owns (a mode's
    /// reference to a removed timer), so none is added and dropped.
    package mutating func release<T: Object>(owned typed: Unmanaged<T>) {
        let object = Unmanaged<Object>.fromOpaque(typed.toOpaque())
        if firstRelease == nil {
            firstRelease = object
        } else if releases == nil {
            releases = [object]
        } else {
            releases!.append(object)
        }
    }

    /// Runs the callouts in order, then drops the references.
    package func run() {
        if let actions { for action in actions { action() } }
        if let first = firstRelease { Self.drop(first) }
        if let releases { for object in releases { Self.drop(object) } }
    }

    @inline(__always)
    private static func drop(_ object: Unmanaged<Object>) {
        object._withUnsafeGuaranteedRef { $0.releaseRef() }
        object.release()
    }
}
