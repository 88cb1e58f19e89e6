/*
 * runloop version (included by <runloop/runloop.h>; may be included alone).
 *
 * Two views of the version, so a program can tell the headers it was
 * compiled with from the library it runs with:
 *   - compile time: RL_VERSION_MAJOR, RL_VERSION_MINOR, RL_VERSION_PATCH,
 *     RL_VERSION_STRING ("MAJOR.MINOR.PATCH") and RL_VERSION, one integer
 *     (MAJOR << 16 | MINOR << 8 | PATCH) for #if comparisons, e.g.
 *         #if RL_VERSION >= RL_MAKE_VERSION(0, 2, 0)
 *   - run time: RLGetVersion(), declared below, returns
 *     the RL_VERSION_STRING the library was built with.
 *
 * Compatibility: the library's SONAME is librunloop.so.MAJOR; within one
 * MAJOR a newer library runs programs built against an older one.  The
 * CMake package (find_package(runloop 0.1)) accepts the same MAJOR only.
 *
 * CMake checks at configure time that these numbers match the project's
 * VERSION in CMakeLists.txt.
 */
#ifndef RUNLOOP_VERSION_H
#define RUNLOOP_VERSION_H

#define RL_VERSION_MAJOR 0
#define RL_VERSION_MINOR 1
#define RL_VERSION_PATCH 0
#define RL_VERSION_STRING "0.1.0"

#define RL_MAKE_VERSION(major, minor, patch) \
    (((major) << 16) | ((minor) << 8) | (patch))
#define RL_VERSION RL_MAKE_VERSION(RL_VERSION_MAJOR, RL_VERSION_MINOR, RL_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library running this program, "MAJOR.MINOR.PATCH"
 * (its RL_VERSION_STRING).  A static string: never free it.  Any thread;
 * never fails. */
const char *RLGetVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* RUNLOOP_VERSION_H */
