import CRunLoop
import Glibc

// Mode names made at run time, and CF's CFEqual on what runloop hands out
// (cfcompat.h maps CFStringCreateWithCString, CFStringCreateCopy and
// CFEqual here).

@c(RLModeNameCreate)
public func rlModeNameCreate(_ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    // Interned: the library's own copy, immortal, so a caller may free or
    // overwrite its text, and release the name while a loop runs in it.
    modeArgument(name, "RLModeNameCreate")?.cString
}

@c(RLEqual)
public func rlEqual(_ a: RLTypeRef?, _ b: RLTypeRef?) -> RLBoolean {
    let cFunction: StaticString = "RLEqual"
    guard let a, let b else {
        reportError(cFunction, .nullHandle)
        return 0
    }
    let aIsHandle = HandleTable.isHandle(UInt(bitPattern: a))
    let bIsHandle = HandleTable.isHandle(UInt(bitPattern: b))
    if !aIsHandle && !bIsHandle {  // two mode names: by text
        return cBool(a == b || strcmp(a.assumingMemoryBound(to: CChar.self), b.assumingMemoryBound(to: CChar.self)) == 0)
    }
    guard aIsHandle && bIsHandle else { return 0 }  // a name is never an object
    // Both must be live handles of this copy (a stale one is reported).
    guard let kind = kindOf(a), kindOf(b) == kind else { return 0 }
    if a == b { return 1 }
    guard kind == .source else { return 0 }  // other objects: by identity
    // CF's rule for sources made from equal version-0 contexts (may call
    // the context's equal(); no lock is held).
    return borrow(a, as: .source, cFunction, orElse: 0) { (first: Source) in
        borrow(b, as: .source, cFunction, orElse: 0) { (second: Source) in cBool(first.isEquivalent(to: second)) }
    }
}

/// The kind of a live handle; nil (reported) for a stale or foreign one.
private func kindOf(_ raw: UnsafeRawPointer) -> HandleKind? {
    switch HandleTable.shared.retain(UInt(bitPattern: raw), kind: nil) {
    case .success(let handled):
        HandleTable.shared.release(handled.handle, from: "RLEqual")
        return handled.kind
    case .failure(let failure):
        reportError("RLEqual", failure.code)
        return nil
    }
}
