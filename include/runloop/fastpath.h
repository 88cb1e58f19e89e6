/*
 * Opt-in inline fast paths for the three calls a producer makes in a loop.
 *
 *     #include <runloop/runloop.h>
 *     #include <runloop/fastpath.h>    (opt-in; includes runloop.h itself)
 *
 * <runloop/runloop.h> declares functions only and never includes this
 * header.  A program that includes it gets three macros:
 *
 *     RLRunLoopSourceSignal(source)           already pending
 *     RLRunLoopWakeUp(rl)                      a wake-up already pending
 *     RLRunLoopSourceSignalAndWakeUp(source)  already pending and woken
 *
 * In those states each call changes nothing, and it is the usual state
 * under load: a thread signalling a busy loop finds the source pending
 * nearly every time.  The library function answers it first thing, from
 * the object's "hot word" (see docs/design.md, Handles); these macros make
 * the same check inline, in the caller, and call the library only when it
 * fails, which saves the call itself.  Nothing else changes: every other
 * state, and every handle that is not a live object of the right kind
 * (NULL, stale, forged, another kind), goes to the library function, which
 * reports errors as before.  A hot word lives in table memory the library
 * never frees, so the check never touches freed memory, whatever the handle.
 * Taking a function's address, or calling it as `(RLRunLoopWakeUp)(rl)`,
 * bypasses the macro and gives the library function.
 *
 * What opting in costs: the code below reads the library's internal handle
 * table, so a program that includes this header is compiled against that
 * table's layout, RL_FAST_PATH_LAYOUT, not just against the functions.
 * The layout belongs to the library's major version (librunloop.so.MAJOR,
 * version.h) and is versioned on its own: a release that moves the hot
 * words bumps RL_FAST_PATH_LAYOUT.  At run time the program asks the library
 * for its directory with the layout it was built for
 * (RLInternalHotWordDirectory, once per translation unit).  A library with
 * another layout answers with a directory with no pages: every check fails
 * and every call goes to the library function, as if this header had not
 * been included (slower, still correct).  Rebuilding against the new
 * headers brings the fast paths back.
 *
 * Programs that do not include this header (ordinary C callers, FFI
 * bindings such as the Python package, Swift, CF code through cfcompat.h)
 * call the functions and never depend on the layout; for them the library
 * may change it freely.
 *
 * Layout contract (RL_FAST_PATH_LAYOUT 1): a handle's low 26 bits index
 * the table; the directory (2^14 page pointers, NULL for pages not made)
 * holds a page per 4096 slots, and a slot's hot word is 64-bit word
 * 0x2000 + (index & 0xFFF) of its page.  The word XOR the handle is
 * `kind << 24 | value` while the handle's object is alive.
 */
#ifndef RUNLOOP_FASTPATH_H
#define RUNLOOP_FASTPATH_H

#include "runloop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Internal, for the inline code below: the library's hot-word directory
 * if it uses layout `layout` (RL_FAST_PATH_LAYOUT), else a directory with
 * no pages.  Never NULL; the same pointer for the life of the process.
 * Any thread. */
const void *RLInternalHotWordDirectory(uint32_t layout);

#ifdef __cplusplus
}
#endif

/* The layout the inline code below reads (see above). */
#define RL_FAST_PATH_LAYOUT 1u

/* The directory, asked for once per translation unit. */
static inline const uint64_t *const *RLInternalFastPathDirectory(void)
{
    static const void *directory;
    const void *d = __atomic_load_n(&directory, __ATOMIC_ACQUIRE);
    if (d == 0) {
        d = RLInternalHotWordDirectory(RL_FAST_PATH_LAYOUT);
        __atomic_store_n(&directory, d, __ATOMIC_RELEASE);
    }
    return (const uint64_t *const *)d;
}

/* Whether the hot word of the live object `handle` names, XOR the handle
 * and masked, is `expected` (kind << 24 | value).  A sequentially
 * consistent load (on x86 a plain one): the library fences where it
 * publishes work, so a caller that returns because the work is already
 * pending loses no wake-up (docs/design.md, "The wake-up protocol"). */
static inline int RLInternalHotWordMatches(const void *handle, uint64_t mask, uint64_t expected)
{
    uint64_t raw = (uint64_t)(uintptr_t)handle;
    const uint64_t *page = __atomic_load_n(&RLInternalFastPathDirectory()[(raw >> 12) & 0x3FFF], __ATOMIC_ACQUIRE);
    if (page == 0) return 0;
    return ((__atomic_load_n(&page[0x2000 + (raw & 0xFFF)], __ATOMIC_SEQ_CST) ^ raw) & mask) == expected;
}

/* A source (kind 2) with its pending bit (1) set; with its woken bit (2)
 * too; a loop (kind 1) with a wake-up pending (value 1). */
static inline int RLInternalSourceIsPending(RLRunLoopSourceRef source)
{
    return RLInternalHotWordMatches(source, ~(uint64_t)0xFFFFFF | 1u, (uint64_t)2 << 24 | 1u);
}
static inline int RLInternalSourceIsPendingAndWoken(RLRunLoopSourceRef source)
{
    return RLInternalHotWordMatches(source, ~(uint64_t)0, (uint64_t)2 << 24 | 3u);
}
static inline int RLInternalLoopHasWakeUpPending(RLRunLoopRef rl)
{
    return RLInternalHotWordMatches(rl, ~(uint64_t)0, (uint64_t)1 << 24 | 1u);
}

static inline void RLInternalSourceSignalInline(RLRunLoopSourceRef source)
{
    if (!RLInternalSourceIsPending(source)) (RLRunLoopSourceSignal)(source);
}
static inline void RLInternalWakeUpInline(RLRunLoopRef rl)
{
    if (!RLInternalLoopHasWakeUpPending(rl)) (RLRunLoopWakeUp)(rl);
}
static inline void RLInternalSourceSignalAndWakeUpInline(RLRunLoopSourceRef source)
{
    if (!RLInternalSourceIsPendingAndWoken(source)) (RLRunLoopSourceSignalAndWakeUp)(source);
}

/* The three calls of <runloop/runloop.h>, checked inline first (see above). */
#define RLRunLoopSourceSignal(source) RLInternalSourceSignalInline(source)
#define RLRunLoopWakeUp(rl) RLInternalWakeUpInline(rl)
#define RLRunLoopSourceSignalAndWakeUp(source) RLInternalSourceSignalAndWakeUpInline(source)

#endif /* RUNLOOP_FASTPATH_H */
