import Glibc

/// The top byte of a copy's handles, which no other copy of the library in
/// the process holds.
///
/// A process may hold several copies of the library, each a separate engine
/// with its own handle table: the one a program is linked with, and others
/// loaded with dlopen(RTLD_LOCAL) from files of their own (as Python's
/// ctypes loads a wheel's).  Their tables look alike — every copy's first
/// object is slot 0, generation 1 — so the tag is all that tells one copy's
/// handle from another's, and a handle given to the wrong copy is refused
/// only if the two tags differ.  That must hold for every pair, not with a
/// high probability.  (Before, a copy that found its own symbol through
/// dlsym(RTLD_DEFAULT) took 0xA5, and every copy loaded with RTLD_LOCAL
/// finds itself that way when no copy is loaded globally, as with ctypes;
/// the others drew a tag from their load address, two in 126 colliding.
/// The copy given the other's handle then acted on its own object of the
/// same slot.)
///
/// So tags are claimed, and the registry is the process's address space:
/// tag `t` is held by whichever copy maps the page at
/// `claimBase + (t - 0x80) * pageSize`.  Every copy reaches the address
/// space the same way whatever RTLD_LOCAL hides (a symbol, a global or a
/// TLS key of one copy is invisible to the others), and the kernel decides
/// each mapping atomically: mmap with MAP_FIXED_NOREPLACE maps the page
/// only if nothing is mapped there.  A kernel before 4.17 (or valgrind)
/// takes the address as a hint instead and maps elsewhere when it is taken;
/// either way the claim holds only if the page landed at that address, and
/// a page that landed elsewhere is given back.  A claim is never given back
/// (the copy's handles live as long as the process), so no two copies ever
/// hold one tag.  A fork child inherits the claims with the copies that
/// made them; exec drops both.  A page something else mapped first costs
/// only its tag.  The claim costs nothing after the table is made: the
/// tag is read with the handle mask as before (HandleTable.slot).
///
/// 127 tags (0x80...0xFE: top bytes no user-space pointer has, so a handle
/// is never mistaken for a mode name) serve 127 copies.  A copy that finds
/// them all taken has no tag: it gives out no handle (every Create fails
/// with kRLErrorResources), so none of its handles can name another copy's
/// object either.
enum HandleTag {
    /// The tag values: top bytes 0x80...0xFE (HandleTable.isHandle).
    static let range: ClosedRange<UInt64> = 0x80...0xFE

    /// Where the claim pages start: 0x7F00_0000, below 2 GiB, where every
    /// tool that rearranges a process's address space leaves the program
    /// room.  AddressSanitizer reserves its shadow from 0x7FFF_8000 up to
    /// 0x1000_7FFF_7FFF (a mapping anywhere there fails with EEXIST, so a
    /// copy under ASan would find every tag taken); ThreadSanitizer,
    /// MemorySanitizer and valgrind accept the low 2 GiB.  Linux places a
    /// program's own mappings far above (PIE programs and libraries near
    /// 0x5555_0000_0000 and 0x7F00_0000_0000); a non-PIE program's brk heap
    /// or MAP_32BIT mappings reach it only after about a gigabyte, and then
    /// go around the page (brk fails over to mmap).  Page-aligned for any
    /// page size up to 64 KiB, and `range.count` such pages (8 MiB) end
    /// below ASan's shadow.
    private static let claimBase = 0x7F00_0000

    /// Claims the lowest free tag for this copy; nil when none is free.
    /// Called once, when the copy's handle table is made.
    static func claim() -> UInt64? {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        for tag in range {
            let want = UnsafeMutableRawPointer(bitPattern: claimBase + Int(tag - range.lowerBound) * pageSize)
            let got = mmap(want, pageSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
                           -1, 0)
            if got == want { return tag }
            if let got, got != MAP_FAILED { munmap(got, pageSize) }  // a hint not taken: the page is someone's
        }
        return nil
    }
}
