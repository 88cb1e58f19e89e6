import RunLoopCore

/// Adding, removing and finding sources, timers and observers.  All of
/// these may be called from any thread.
extension Loop {
    private func add(_ item: ModeItem, _ mode: Mode) throws(LoopError) {
        guard let name = mode.interned else { throw .invalidModeName(mode.name) }
        if case .failure(let failure) = engine.add(item, to: name) { throw LoopError(failure) }
    }

    private func remove(_ item: ModeItem, _ mode: Mode) {
        guard let name = mode.interned else { return }
        engine.remove(item, from: name)
    }

    private func contains(_ item: ModeItem, _ mode: Mode) -> Bool {
        guard let name = mode.interned else { return false }
        return engine.contains(item, in: name)
    }

    /// Adds `source` to `mode` (or to every common mode with
    /// ``Mode/common``); adding it again does nothing.  The loop keeps the
    /// source until it is removed, invalidated or the thread exits.
    /// - Throws: ``LoopError/invalidItem`` (invalidated),
    ///   ``LoopError/loopGone``, ``LoopError/invalidModeName(_:)``.
    public func add(_ source: LoopSource, to mode: Mode = .default) throws(LoopError) {
        try add(.source(source.engine), mode)
    }

    /// Adds `timer` to `mode` (or to every common mode); a timer belongs
    /// to one loop at a time but may be in several of its modes.
    /// - Throws: ``LoopError/wrongLoop`` (scheduled on another loop),
    ///   ``LoopError/invalidItem``, ``LoopError/loopGone``,
    ///   ``LoopError/invalidModeName(_:)``.
    public func add(_ timer: LoopTimer, to mode: Mode = .default) throws(LoopError) {
        try add(.timer(timer.engine), mode)
    }

    /// Adds `observer` to `mode` (or to every common mode); an observer
    /// belongs to one loop at a time.
    /// - Throws: as for timers: ``LoopError/wrongLoop``,
    ///   ``LoopError/invalidItem``, ``LoopError/loopGone``,
    ///   ``LoopError/invalidModeName(_:)``.
    public func add(_ observer: LoopObserver, to mode: Mode = .default) throws(LoopError) {
        try add(.observer(observer.engine), mode)
    }

    /// Removes `source` from `mode` (``Mode/common``: from the common
    /// items and every common mode).  Runs its `cancel` callback.
    public func remove(_ source: LoopSource, from mode: Mode = .default) { remove(.source(source.engine), mode) }
    /// Removes `timer` from `mode` (``Mode/common``: from the common items
    /// and every common mode).
    public func remove(_ timer: LoopTimer, from mode: Mode = .default) { remove(.timer(timer.engine), mode) }
    /// Removes `observer` from `mode` (``Mode/common``: from the common
    /// items and every common mode).
    public func remove(_ observer: LoopObserver, from mode: Mode = .default) { remove(.observer(observer.engine), mode) }

    /// Whether `mode` holds `source` (``Mode/common``: whether it is a
    /// common item).
    public func contains(_ source: LoopSource, in mode: Mode = .default) -> Bool { contains(.source(source.engine), mode) }
    /// Whether `mode` holds `timer` (``Mode/common``: whether it is a
    /// common item).
    public func contains(_ timer: LoopTimer, in mode: Mode = .default) -> Bool { contains(.timer(timer.engine), mode) }
    /// Whether `mode` holds `observer` (``Mode/common``: whether it is a
    /// common item).
    public func contains(_ observer: LoopObserver, in mode: Mode = .default) -> Bool {
        contains(.observer(observer.engine), mode)
    }
}
