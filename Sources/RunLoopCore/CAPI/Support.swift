import CRunLoop
import CRunLoopShims
import Glibc

// The C boundary: each entry point converts handles and arguments, makes
// one call into the core, and maps the result.  Misuse is reported with
// `reportError` and the call returns a neutral value.

/// Pins the object behind a C handle for the duration of `body`.  The pin
/// keeps the object alive, so `body` gets it with no Swift retain/release.
@inline(__always)
func borrow<T: Object, R>(_ raw: UnsafeRawPointer?, as kind: HandleKind, _ function: StaticString,
                           orElse fallback: R, _ body: (T) -> R) -> R {
    let handle = UInt(bitPattern: raw)
    switch HandleTable.pin(handle, kind: kind) {
    case .pinned(let object):
        defer { HandleTable.unpin(UInt64(handle), from: function) }
        return Unmanaged<T>.fromOpaque(object)._withUnsafeGuaranteedRef(body)
    case .failed(let failure):
        borrowFailed(failure, function)
        return fallback
    }
}

/// Out of line: the error path stays out of every entry point's frame.
@inline(never)
func borrowFailed(_ failure: HandleTable.LookupError, _ function: StaticString) {
    reportError(function, failure.code)
}

@inline(__always)
func borrow<T: Object, R>(_ raw: OpaquePointer?, as kind: HandleKind, _ function: StaticString,
                           orElse fallback: R, _ body: (T) -> R) -> R {
    borrow(UnsafeRawPointer(raw), as: kind, function, orElse: fallback, body)
}

extension HandleTable.LookupError {
    var code: ErrorCode {
        switch self {
        case .null: return .nullHandle
        case .stale: return .staleHandle
        case .wrongType: return .wrongType
        case .forked: return .forked
        }
    }
}

/// Gives a new object its handle (the caller's reference) and returns it
/// as a C pointer; nil, with a `resources` error, when the table is full
/// or memory for a new page of it ran out.
func publish(_ object: Object, _ function: StaticString) -> OpaquePointer? {
    guard HandleTable.shared.register(object) else {
        reportError(function, .resources, "no handle: the handle table is full or out of memory, "
                    + "or this copy of the library found no free handle tag (runloop.h, \"Linking\")")
        return nil
    }
    return object.opaque
}


/// A mode-name argument: NULL and over-long names are errors.
@inline(__always)
func modeArgument(_ name: UnsafePointer<CChar>?, _ function: StaticString) -> ModeName? {
    guard let name else {
        reportError(function, .invalidArgument, "NULL mode name")
        return nil
    }
    guard let mode = ModeName.intern(name) else {
        reportError(function, .invalidArgument, "mode name longer than \(ModeName.maxLength) bytes")
        return nil
    }
    return mode
}

/// The mode argument of Perform*: a mode name or an RLArrayRef of names.
@inline(__always)
func modeListArgument(_ raw: UnsafeRawPointer?, _ function: StaticString) -> BlockModes? {
    guard let raw else {
        reportError(function, .invalidArgument, "NULL mode")
        return nil
    }
    if HandleTable.isHandle(UInt(bitPattern: raw)) {
        return borrow(raw, as: .array, function, orElse: nil) { (array: ModeArray) in BlockModes(array.names) }
    }
    return modeArgument(raw.assumingMemoryBound(to: CChar.self), function).map { .one($0) }
}

/// The item/loop pairing shared by the Add/Remove/Contains entry points.
func withLoopAndItem<T: Object, R>(_ rl: RLRunLoopRef?, _ item: OpaquePointer?, as kind: HandleKind,
                                    _ mode: RLRunLoopMode?, _ function: StaticString, orElse fallback: R,
                                    _ body: (Loop, T, ModeName) -> R) -> R {
    borrow(rl, as: .runLoop, function, orElse: fallback) { (loop: Loop) in
        borrow(item, as: kind, function, orElse: fallback) { (object: T) in
            guard let name = modeArgument(mode, function) else { return fallback }
            return body(loop, object, name)
        }
    }
}

func reportAddFailure(_ failure: AddFailure, _ function: StaticString) {
    switch failure {
    case .wrongLoop: reportError(function, .wrongLoop)
    case .invalidItem: break  // CF ignores adding an invalidated item
    case .loopGone: reportError(function, .loopGone)
    case .full: reportError(function, .resources, "the mode holds the most timers it can (2^26)")
    case .outOfMemory: reportError(function, .resources, "out of memory")
    }
}

/// A finite number, or an error.
func finiteArgument(_ value: Double, _ what: String, _ function: StaticString) -> Bool {
    if value.isNaN {
        reportError(function, .invalidArgument, "\(what) is NaN")
        return false
    }
    return true
}

/// Copies a Swift string into a malloc()ed C string the caller frees.
func mallocCString(_ string: String) -> UnsafeMutablePointer<CChar>? {
    string.withCString { strdup($0) }
}

@inline(__always) func cBool(_ value: Bool) -> RLBoolean { value ? 1 : 0 }

/// A C block copied to the heap, released when this box goes.
///
/// The block entry points take their block as a raw pointer (the C ABI of
/// a block parameter is a pointer to the block literal): Swift on Linux
/// copies a `@convention(block)` argument it may escape and never releases
/// the copy, so blocks are copied, invoked and released here by hand,
/// through the Clang Block ABI helpers in CRunLoopShims.
final class CopiedBlock: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer

    init(_ block: UnsafeRawPointer) {
        pointer = rl_block_copy(block)
    }

    deinit { rl_block_release(pointer) }
}
