/* The public header on its own: strict C99 (gcc -Wall -Wextra -Wpedantic
 * -Werror) and C++11 must accept it (ctests abi_header_c99, abi_header_cxx). */
#include <runloop/runloop.h>
#include <runloop/runloop.h> /* include guard */

int rl_header_only_check(void);
int rl_header_only_check(void) { return kRLRunLoopRunFinished; }
