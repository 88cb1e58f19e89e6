/*
 * rl_glib — runloop and GLib in one thread, either way round.
 *
 * 1. A runloop driven by a GMainContext: rl_glib_source_new() makes a
 *    GSource that waits on the loop's poll descriptor with the loop's
 *    timeout (RLRunLoopGetPollDescriptor / RLRunLoopGetTimeout) and
 *    dispatches with RLRunLoopRunPending.  Attach it to the context that
 *    runs on the loop's thread: g_source_attach(src, ctx).
 *
 * 2. A GMainContext hosted on a runloop: rl_glib_host_new() prepares the
 *    context before each sleep of the loop (g_main_context_prepare /
 *    query), watches its descriptors through one epoll set of its own (one
 *    version-1 runloop source), turns its timeout into a runloop timer, and
 *    checks and dispatches when any of them fires, so GLib timeouts, idles
 *    and I/O watches fire while RLRunLoopRun runs.  A descriptor GLib
 *    closes before the host hears of it is dropped quietly (and a
 *    registration outliving it is cleared by rebuilding the set).
 *
 * Threads: everything on the loop's thread.  Bad input and misuse:
 *   - the GSource dispatched on another thread than the loop's, or after
 *     the loop's thread exited: RLRunLoopRunPending reports it through
 *     runloop's error channel (kRLErrorWrongThread / kRLErrorLoopGone) and
 *     the source removes itself (nothing is run; the loop's work stays
 *     queued for its own thread);
 *   - re-entering from a callout: a g_main_context_iteration() from a
 *     runloop callout does not dispatch this source again (GLib does not
 *     recurse into a source being dispatched); the work it would have run
 *     is run by the dispatch in progress or the next one.  A GLib callback
 *     of a hosted context may run the runloop (a nested run): the host
 *     then iterates GLib nested, as GLib's own recursion does;
 *   - the poll descriptor closed by mistake: the next prepare moves the
 *     source to the new descriptor (RLRunLoopGetPollDescriptor).
 *   - rl_glib_host_new on a context another thread owns: NULL (it cannot
 *     acquire the context); NULL arguments: NULL.
 */
#ifndef RL_GLIB_H
#define RL_GLIB_H

#include <glib.h>
#include <runloop/runloop.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A GSource running `rl` in `mode` (copied) from the GMainContext it is
 * attached to.  Holds a reference to the loop until the source is
 * finalized.  Caller owns the returned source (g_source_unref after
 * g_source_attach).  NULL if rl or mode is NULL, or if mode is
 * kRLRunLoopCommonModes (not a mode a loop runs in: name one). */
GSource *rl_glib_source_new(RLRunLoopRef rl, RLRunLoopMode mode);

/* A GMainContext hosted on the calling thread's loop `rl`, in `mode` (a
 * mode name or kRLRunLoopCommonModes).  Acquires the context until
 * rl_glib_host_free.  NULL if an argument is NULL, `rl` is not the calling
 * thread's loop, or the context is owned by another thread. */
typedef struct rl_glib_host rl_glib_host;
rl_glib_host *rl_glib_host_new(GMainContext *ctx, RLRunLoopRef rl, RLRunLoopMode mode);
/* Removes the host's sources, timer and observer from the loop and
 * releases the context.  Loop's thread; safe from a callout (a GLib
 * callback of the hosted context included: the memory is freed when the
 * cycle in progress returns). */
void rl_glib_host_free(rl_glib_host *host);

#ifdef __cplusplus
}
#endif
#endif
