import CRunLoopShims

/// Work queued by perform(in:), run on the loop's thread.
///
/// Plain data, so the loop's queue appends, swaps and empties blocks with
/// no reference counting: the usual block, a C function queued for one
/// mode, is function, argument and mode inline.  A Swift closure or a list
/// of modes goes in an `Extra` box that the block holds one reference to
/// by hand, from `init` until `dispose()`, which whoever takes the block
/// out of the queue calls once (after running it, or when dropping it).
package struct QueuedBlock: BitwiseCopyable {
    private let function: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?
    private let info: UnsafeMutableRawPointer?
    /// The block's mode (its interned C string: four words in all), unless
    /// `extra` holds a list.
    private let modeString: UnsafePointer<CChar>
    private let extra: Unmanaged<Extra>?

    private var mode: ModeName { ModeName(interned: modeString) }

    /// The four words of a block, for BlockInbox's cells: the mode's C
    /// string is 8-byte aligned, so its low bits are free.
    @inline(__always)
    package var words: (function: UInt, info: UInt, extra: UInt, mode: UInt) {
        (unsafeBitCast(function, to: UInt.self), UInt(bitPattern: info),
         UInt(bitPattern: extra?.toOpaque()), UInt(bitPattern: modeString))
    }

    @inline(__always)
    package init(words: (function: UInt, info: UInt, extra: UInt, mode: UInt)) {
        function = unsafeBitCast(words.function, to: (@convention(c) (UnsafeMutableRawPointer?) -> Void)?.self)
        info = UnsafeMutableRawPointer(bitPattern: words.info)
        extra = UnsafeMutableRawPointer(bitPattern: words.extra).map { Unmanaged<Extra>.fromOpaque($0) }
        modeString = UnsafePointer(bitPattern: words.mode)!
    }

    private final class Extra {
        let closure: (() -> Void)?
        let modes: [ModeName]?
        init(closure: (() -> Void)?, modes: [ModeName]?) {
            self.closure = closure
            self.modes = modes
        }
    }

    package init(modes: BlockModes, function: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void,
                 info: UnsafeMutableRawPointer?) {
        self.function = function
        self.info = info
        switch modes {
        case .one(let name):
            modeString = name.cString
            extra = nil
        case .list(let names):
            modeString = ModeName.default.cString
            extra = .passRetained(Extra(closure: nil, modes: names))
        }
    }

    /// A C function queued for one mode (the lock-free path).
    @inline(__always)
    package init(mode: ModeName, function: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void,
                 info: UnsafeMutableRawPointer?) {
        self.function = function
        self.info = info
        modeString = mode.cString
        extra = nil
    }

    /// A C block (RLRunLoopPerformBlock) for `modes`, copied here: run()
    /// invokes the copy and dispose() releases it.  No box for one mode.
    package init(modes: BlockModes, block: UnsafeRawPointer) {
        self.init(modes: modes, function: Self.invokeBlock, info: rl_block_copy(block))
    }

    /// The function of a C block's entry (its info is the copied block).
    private static let invokeBlock: @convention(c) (UnsafeMutableRawPointer?) -> Void = { rl_block_invoke_void($0) }

    package init(modes: BlockModes, closure: @escaping () -> Void) {
        function = nil
        info = nil
        switch modes {
        case .one(let name):
            modeString = name.cString
            extra = .passRetained(Extra(closure: closure, modes: nil))
        case .list(let names):
            modeString = ModeName.default.cString
            extra = .passRetained(Extra(closure: closure, modes: names))
        }
    }

    package var modes: BlockModes {
        if let list = extra?.takeUnretainedValue().modes { return .list(list) }
        return .one(mode)
    }

    /// Whether the block runs in `name`: one of its modes is `name`, or
    /// it is queued for the common modes and `name` is one of `common`.
    @inline(__always)
    package func matches(_ name: ModeName, common: [ModeName]) -> Bool {
        let hit = { (m: ModeName) in m == name || (m.isCommonModes && common.contains(name)) }
        // Equal names share one C string.
        guard let extra else { return modeString == name.cString || hit(mode) }
        return extra._withUnsafeGuaranteedRef { box in box.modes.map { $0.contains(where: hit) } ?? hit(mode) }
    }

    /// Runs the work (the block's reference keeps a closure alive).
    package func run() {
        if let function {
            function(info)
        } else if let extra {
            extra._withUnsafeGuaranteedRef { $0.closure?() }
        }
    }

    /// Drops the block's reference to its box (a C block's, to the copy):
    /// once, after run() or instead of it.  May release captures (user
    /// code for a C block): never with a lock held.
    package func dispose() {
        extra?.release()
        if let info, unsafeBitCast(function, to: UInt.self) == unsafeBitCast(Self.invokeBlock, to: UInt.self) {
            rl_block_release(info)
        }
    }
}

/// The modes a queued block may run in: one name (the usual case, inline)
/// or a list (RLArrayRef / a Swift array of several).
package enum BlockModes {
    case one(ModeName)
    case list([ModeName])

    package init(_ names: [ModeName]) {
        self = names.count == 1 ? .one(names[0]) : .list(names)
    }
}
