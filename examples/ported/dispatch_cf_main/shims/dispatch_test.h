/*
 * dispatch_test.h for the ported dispatch_cf_main (docs/porting.md): what
 * the program uses of libdispatch's test helpers, written for this port
 * (the helpers themselves are not vendored): dispatch_test_start(), and,
 * as libdispatch's generic_unix_port.h does for its tests off Darwin,
 * Darwin's OSAtomicIncrement32 on the compiler's atomics.  Neither is
 * CoreFoundation.
 */
#ifndef PORTED_DISPATCH_TEST_H
#define PORTED_DISPATCH_TEST_H

#include <stdint.h>
#include <dispatch/dispatch.h>
#include "bsdtests.h"

#ifndef __APPLE__
/* Adds 1 and returns the new value. */
static inline int32_t OSAtomicIncrement32(volatile int32_t *value)
{
    return __atomic_add_fetch(value, 1, __ATOMIC_SEQ_CST);
}
#endif

static inline void dispatch_test_start(const char *desc)
{
    test_start(desc);
}

#endif
