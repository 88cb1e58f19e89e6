/*
 * bsdtests.h for the ported dispatch_cf_main (docs/porting.md): the few
 * checks of libdispatch's test harness that the program calls, written
 * for this port (the harness itself is not vendored).  Each check prints
 * one line, "[PASS] desc" or "[FAIL] desc: ..."; test_stop() exits with
 * status 0 when every check passed, 1 otherwise.
 */
#ifndef PORTED_BSDTESTS_H
#define PORTED_BSDTESTS_H

#include <stdio.h>
#include <stdlib.h>

static int ported_test_failures;

static inline void test_start(const char *desc)
{
    printf("[TEST] %s\n", desc);
    fflush(stdout);
}

static inline void ported_test_report(int ok, const char *desc, long actual, const char *relation, long bound)
{
    if (ok) {
        printf("[PASS] %s\n", desc);
    } else {
        printf("[FAIL] %s: %ld, expected %s %ld\n", desc, actual, relation, bound);
        __atomic_add_fetch(&ported_test_failures, 1, __ATOMIC_SEQ_CST);
    }
    fflush(stdout);
}

static inline void test_long(const char *desc, long actual, long expected)
{
    ported_test_report(actual == expected, desc, actual, "==", expected);
}

static inline void test_long_less_than(const char *desc, long actual, long bound)
{
    ported_test_report(actual < bound, desc, actual, "<", bound);
}

static inline void test_stop(void)
{
    int failures = __atomic_load_n(&ported_test_failures, __ATOMIC_SEQ_CST);
    printf("[%s] %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    fflush(stdout);
    exit(failures ? 1 : 0);
}

#endif
