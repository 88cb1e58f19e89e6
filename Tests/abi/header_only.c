/* The public header on its own: strict C99 (gcc -Wall -Wextra -Wpedantic
 * -Werror) and C++11 must accept it (ctests abi_header_c99, abi_header_cxx),
 * and it declares functions only: the inline fast paths are opt-in.  Then
 * the same for the opt-in <runloop/fastpath.h>, included after it. */
#include <runloop/runloop.h>
#include <runloop/runloop.h> /* include guard */
#if defined(RLRunLoopSourceSignal) || defined(RLRunLoopWakeUp) || defined(RLRunLoopSourceSignalAndWakeUp) || \
    defined(RL_FAST_PATH_LAYOUT)
#error "<runloop/runloop.h> must not include <runloop/fastpath.h> (opt-in)"
#endif
#include <runloop/fastpath.h>
#include <runloop/fastpath.h> /* include guard */
#ifndef RLRunLoopSourceSignalAndWakeUp
#error "<runloop/fastpath.h> defines the inline fast paths"
#endif

int rl_header_only_check(void);
int rl_header_only_check(void) { return kRLRunLoopRunFinished; }
