/*
 * Inline fast paths for the three calls a producer makes in a loop
 * (included by <runloop/runloop.h>; not meant to be included alone).
 *
 *     RLRunLoopSourceSignal(source)           already pending
 *     RLRunLoopWakeUp(rl)                      a wake-up already pending
 *     RLRunLoopSourceSignalAndWakeUp(source)  already pending and woken
 *
 * In those states each call changes nothing, and it is the usual state
 * under load: a thread signalling a busy loop finds the source pending
 * nearly every time.  The library answers it with one load of the object's
 * "hot word" (see docs/design.md, Handles), but the call itself, through
 * the PLT, costs more than the load: CF's idiom, signal + wake-up, is two
 * calls per item where libuv's uv_async_send is one.  So these macros do
 * the same check inline, in the caller, and call the library only when it
 * fails.  Nothing else changes: every other state, and every handle that
 * is not a live object of the right kind (NULL, stale, forged, another
 * kind), goes to the library function, which reports errors as before.
 * A hot word lives in table memory the library never frees, so the check
 * never touches freed memory, whatever the handle.
 *
 * Opt out with `#define RL_NO_INLINE_FAST_PATHS` before including
 * <runloop/runloop.h>.  Taking a function's address, or calling it as
 * `(RLRunLoopWakeUp)(rl)`, bypasses the macro and gives the library
 * function.
 *
 * Layout contract (RL_FAST_PATH_LAYOUT 1): a handle's low 26 bits index
 * the table; the directory (2^14 page pointers, NULL for pages not made)
 * holds a page per 4096 slots, and a slot's hot word is 64-bit word
 * 0x2000 + (index & 0xFFF) of its page.  The word XOR the handle is
 * `kind << 24 | value` while the handle's object is alive.  The library
 * hands out its directory only to callers built for its layout: one
 * built for another gets a directory with no pages, so every call goes to
 * the library (slower, still correct).
 */
#ifndef RUNLOOP_FASTPATH_H
#define RUNLOOP_FASTPATH_H

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

/* Not for the Swift core, which imports this header for its types. */
#if !defined(RL_NO_INLINE_FAST_PATHS) && !defined(__swift__)

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

#define RLRunLoopSourceSignal(source) RLInternalSourceSignalInline(source)
#define RLRunLoopWakeUp(rl) RLInternalWakeUpInline(rl)
#define RLRunLoopSourceSignalAndWakeUp(source) RLInternalSourceSignalAndWakeUpInline(source)

#endif /* !RL_NO_INLINE_FAST_PATHS && !__swift__ */

#endif /* RUNLOOP_FASTPATH_H */
