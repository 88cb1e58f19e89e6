/*
 * CoreFoundation/CoreFoundation.h for programs ported to runloop
 * (docs/porting.md): put this folder on the include path (-I) and a CF
 * program's `#include <CoreFoundation/CoreFoundation.h>` (or #import)
 * compiles against <runloop/cfcompat.h> without editing the include.
 *
 * Like the real header it brings in the C library headers CF programs rely
 * on without including them themselves (CoreFoundation.h includes these on
 * every platform).
 */
#ifndef RUNLOOP_PORTED_COREFOUNDATION_H
#define RUNLOOP_PORTED_COREFOUNDATION_H

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
