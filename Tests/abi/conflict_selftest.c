/* Self-test of the conflict check's compiler invocation (ctest
 * `abi_conflict_selftest`): the same command must reject a redeclaration
 * whose parameter type differs from the header's.  The test passes only if
 * the compiler output contains "conflicting types". */
#include <runloop/runloop.h>

RLIndex RLArrayGetCount(int array);  /* header: RLArrayRef array */
