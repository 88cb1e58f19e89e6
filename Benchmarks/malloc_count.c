/*
 * malloc_count.c — counts allocations of the whole process (the library
 * under test included) for the memory workload.  Linked into the *_mem
 * benchmark programs only: the program's own malloc/calloc/realloc/
 * memalign family interposes glibc's for every shared library, counts, and
 * forwards to glibc's __libc_* entry points.  heap_in_use is mallinfo2()'s
 * uordblks + hblkhd: bytes in use in the arenas (allocator overhead
 * included) and in blocks glibc served with their own mmap.  Large blocks
 * (from 128 KiB, a threshold glibc raises as such blocks are freed) are
 * mmapped, and uordblks alone never sees them: a table or hash table that
 * grows with the item count would count or not depending on that history.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include "bench.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static atomic_ulong g_calls, g_bytes;

static void count(size_t bytes)
{
    atomic_fetch_add_explicit(&g_calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_bytes, bytes, memory_order_relaxed);
}

void *malloc(size_t n) { count(n); return __libc_malloc(n); }
void *calloc(size_t n, size_t s) { count(n * s); return __libc_calloc(n, s); }
void *realloc(void *p, size_t n) { count(n); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) { count(n); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { count(n); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n)
{
    count(n);
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}

struct malloc_stats malloc_stats_now(void)
{
    struct mallinfo2 mi = mallinfo2();
    struct malloc_stats s = {
        atomic_load(&g_calls), atomic_load(&g_bytes), (unsigned long)(mi.uordblks + mi.hblkhd)
    };
    return s;
}
