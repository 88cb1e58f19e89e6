/*
 * rl_uv — a runloop driven by a libuv loop, on the loop's thread.
 *
 * A uv_poll_t waits on the runloop's poll descriptor, a uv_prepare_t asks
 * for its timeout before each libuv poll (RLRunLoopGetTimeout) and arms a
 * uv_timer_t with it, and either one runs the pending work
 * (RLRunLoopRunPending).  The three handles keep uv_run alive until
 * rl_uv_stop.
 *
 * Threads: rl_uv_start and rl_uv_stop on the runloop's thread, which runs
 * the libuv loop.  Bad input and misuse:
 *   - rl_uv_start with a NULL argument or a runloop that is not the calling
 *     thread's: NULL;
 *   - the libuv loop run on another thread than the runloop's, or after
 *     the runloop's thread exited: RLRunLoopRunPending /
 *     RLRunLoopGetPollDescriptor report kRLErrorWrongThread /
 *     kRLErrorLoopGone and the adapter stops watching (nothing is run; its
 *     handles stay until rl_uv_stop, which is still needed to free it);
 *   - re-entering from a callout: rl_uv_stop from a runloop callout is
 *     safe (the handles are closed by libuv after the callback, the memory
 *     freed in their close callbacks); a libuv callback re-entered while
 *     the adapter runs the loop (a nested uv_run, which libuv forbids
 *     anyway) runs nothing: the run in progress leaves the descriptor
 *     readable if work remains;
 *   - the poll descriptor closed by mistake: the next prepare moves the
 *     uv_poll_t to the loop's new descriptor.
 */
#ifndef RL_UV_H
#define RL_UV_H

#include <runloop/runloop.h>
#include <uv.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rl_uv rl_uv;

/* Starts running `rl` in `mode` (copied) from `uv`.  NULL on bad input: an
 * argument NULL, `rl` not the calling thread's loop, or `mode`
 * kRLRunLoopCommonModes (not a mode a loop runs in: name one). */
rl_uv *rl_uv_start(uv_loop_t *uv, RLRunLoopRef rl, RLRunLoopMode mode);
/* Stops; the adapter is freed once libuv has closed its handles (the next
 * uv_run iteration).  Once per adapter. */
void rl_uv_stop(rl_uv *adapter);
/* How many times the adapter ran the loop (RLRunLoopRunPending). */
unsigned long rl_uv_runs(const rl_uv *adapter);

#ifdef __cplusplus
}
#endif
#endif
