/*
 * CoreFoundation/CoreFoundation.h for programs ported to runloop
 * (docs/porting.md): with <prefix>/include/runloop/compat on the include
 * path, a CF program's `#include <CoreFoundation/CoreFoundation.h>` (or
 * #import) compiles against <runloop/cfcompat.h> without editing the
 * include.  That folder holds nothing else and is on no include path by
 * default, so it never shadows a real CoreFoundation: ask for it with
 * `pkg-config --cflags runloop-cf` or CMake's runloop::cfcompat target
 * (find_package(runloop)), which both bring runloop itself too.
 *
 * Like the real header it brings in the C library headers CF programs rely
 * on without including them themselves (CoreFoundation.h includes these on
 * every platform).
 */
#ifndef RUNLOOP_COMPAT_COREFOUNDATION_H
#define RUNLOOP_COMPAT_COREFOUNDATION_H

#include <sys/types.h>
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <runloop/cfcompat.h>

#endif
