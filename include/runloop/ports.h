/*
 * runloop/ports.h — data, message ports and keep-alive worker threads.
 *
 * Included by <runloop/runloop.h> (and includes it): CF's CFData (a minimal
 * part), CFMessagePort (which CoreFoundation does not provide on Linux) and
 * a "permanent thread" with its own run loop, all with the RL prefix.  The
 * rules of runloop.h apply: handles are checked on every call (NULL, stale
 * and wrong-type handles are reported on stderr and the call returns 0 /
 * NULL); Create/Copy results are released with RLRelease(); Get results are
 * borrowed.
 */
#ifndef RUNLOOP_PORTS_H
#define RUNLOOP_PORTS_H

#include "runloop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Data (CFData's immutable basics): the payload of message-port requests
 * ------------------------------------------------------------------------- */

typedef struct __RLData *RLDataRef;

RLTypeID RLDataGetTypeID(void);
/* A data object holding a copy of `length` bytes at `bytes` (caller
 * releases).  `bytes` may be NULL only when length is 0.  A negative
 * length or NULL bytes with a positive length: error, NULL.  Immutable;
 * usable from any thread. */
RLDataRef RLDataCreate(RLAllocatorRef allocator, const uint8_t *bytes, RLIndex length);
/* The number of bytes; 0 on error. */
RLIndex RLDataGetLength(RLDataRef data);
/* The bytes (never NULL for a live data object, even when empty), valid
 * until the data object is destroyed.  NULL on error. */
const uint8_t *RLDataGetBytePtr(RLDataRef data);

/* ---------------------------------------------------------------------------
 * Message ports (CFMessagePort)
 *
 * A local port has a name and a callout; a remote port is a connection to
 * the local port of that name, in this process or in another one of the
 * same user.  RLMessagePortSendRequest() on a remote delivers (msgid, data)
 * to the local port's callout, which runs on the thread of a run loop
 * holding the port's source (RLMessagePortCreateRunLoopSource); the data it
 * returns travels back as the reply.  Sent to a local port itself, a request
 * runs its callout at once on the sending thread (see
 * RLMessagePortSendRequest).
 *
 * Transport: a Unix-domain stream socket whose file is in the user's port
 * directory, /tmp/runloop-<uid> (created with mode 0700; the path does not
 * depend on the environment, so every process of the user finds it).  The
 * file of a port is "n.<name>", bytes other than [A-Za-z0-9._-] written
 * %XX, or, when that would not fit a socket address, "h.<hex SHA-256 of the
 * name>".  A name is freed (its file removed) when its port is invalidated
 * or the process exits (exit() or a return from main); the file left by a
 * process that was killed is found stale (nobody listens) and replaced by
 * the next local port of that name.  A name is 1 to 80 bytes, any bytes but
 * NUL, in no particular encoding: names are compared and kept as bytes
 * ("x\xff" and "x\xfe" are two ports; GetName returns the bytes given).
 *
 * Trust model.
 *   - Who can connect: processes of the same uid.  Other users cannot
 *     enter the directory (no search permission), cannot bind a name in it
 *     (no write permission), and both ends check the peer's uid
 *     (SO_PEERCRED) on every connection, so a root process of another
 *     program is refused too.  The one thing another user can do is create
 *     /tmp/runloop-<uid> before the user does: the directory must be a
 *     directory owned by the uid, else RLMessagePortCreateLocal and
 *     RLMessagePortCreateRemote fail with kRLErrorInvalidArgument and a
 *     message naming the squatter's uid (the directory must be removed).
 *     A flood of connections from other users costs the server nothing:
 *     they cannot reach the socket.
 *   - What is checked: every frame's header (magic, kind, length at most
 *     64 MiB); a connection sending anything else is closed (requests it
 *     sent before are still served).  Payloads are opaque bytes handed to
 *     the callout as they came: the callout must validate them.
 *   - A hostile or careless peer of the same user cannot starve the loop
 *     or grow the server without bound: per pass of a loop, a port accepts
 *     at most 16 connections, reads about 1 MiB per connection and 4 MiB
 *     in all, and calls out at most 1024 times, for at most 64 connections
 *     taken in turn (the rest waits for the next pass, after the loop's
 *     timers and other sources).  A connection whose backlog (requests read but not
 *     delivered, plus replies not yet written) reaches 1 MiB is not read
 *     until it drains: a peer that does not read its replies stalls itself
 *     (its sends time out), not the server.  A single frame may still be
 *     up to 64 MiB.  Without a free descriptor the port stops accepting for
 *     100 ms or until one of its connections closes, reporting
 *     kRLErrorResources once (until a connection is accepted again),
 *     instead of spinning.
 *   - What a same-user peer CAN do: anything the user can (it could
 *     ptrace the server): send any request to any port of the user, take a
 *     free name first, hold many connections open (each costs the server
 *     a descriptor, its backlog and the frame being read: up to 64 MiB
 *     while a large frame arrives), send slowly.  Ports authenticate
 *     users, not programs: serve requests from other programs of the user
 *     only if they may ask for what the callout does.
 *   - Ordering: the requests of one connection (one remote) are delivered
 *     one callout at a time, in the order sent, whichever loops hold the
 *     port's source; requests of different remotes may run concurrently
 *     when the source is in several loops, and so may requests sent to the
 *     local port itself (each runs on its sender's thread).
 *
 * Errors of RLMessagePortSendRequest are CF's codes, returned, not
 * reported on stderr; misuse (bad handles, NaN timeouts, data over
 * 64 MiB) is reported and returns kRLMessagePortIsInvalid or
 * kRLMessagePortTransportError.
 * ------------------------------------------------------------------------- */

typedef struct __RLMessagePort *RLMessagePortRef;

enum {
    kRLMessagePortSuccess = 0,
    kRLMessagePortSendTimeout = -1,       /* the request could not be written in time */
    kRLMessagePortReceiveTimeout = -2,    /* no reply within rcvTimeout */
    kRLMessagePortIsInvalid = -3,         /* the port was invalid before the send */
    kRLMessagePortTransportError = -4,    /* the system refused (or misuse) */
    kRLMessagePortBecameInvalidError = -5 /* the local side went away while we waited */
};

/* CF's CFMessagePortContext.  retain(info) is called once when a local port
 * is created; release(info) once when it is invalidated (or destroyed while
 * still valid).  copyDescription is stored and returned by GetContext. */
typedef struct {
    RLIndex version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    char *(*copyDescription)(const void *info);
} RLMessagePortContext;

/* Handles one request on the local port.  `data` is borrowed: valid during
 * the callout (RLRetain it, or copy its bytes, to keep it).  The data
 * returned (NULL for none) is the reply; the library releases it, so
 * return a reference you own (a new RLDataCreate, or RLRetain(data)). */
typedef RLDataRef (*RLMessagePortCallBack)(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info);
/* Called once when the port becomes invalid, on the thread that noticed. */
typedef void (*RLMessagePortInvalidationCallBack)(RLMessagePortRef ms, void *info);

RLTypeID RLMessagePortGetTypeID(void);

/* Creates a local port named `name` (NULL: unnamed, name it later with
 * RLMessagePortSetName).  Caller releases.  *shouldFreeInfo (if not NULL)
 * is set to false when a port was created and to true when none was, in
 * which case the library kept no reference to context->info (free it).
 * Names are unique per user.  If a valid local port of this process has
 * the name, that port is returned (as in CF: with a reference for the
 * caller, who releases it; its callout and context stay; the ones given
 * are not used and *shouldFreeInfo is true).  If a port of another
 * process has it, the call fails with an error and returns NULL; so may a
 * call racing another thread that is creating, renaming to or freeing the
 * same name at that moment.  NULL callout, NULL context or a context
 * version other than 0: error, NULL. */
RLMessagePortRef RLMessagePortCreateLocal(RLAllocatorRef allocator, const char *name, RLMessagePortCallBack callout, RLMessagePortContext *context, RLBoolean *shouldFreeInfo);
/* Connects to the local port named `name`.  Caller releases.  NULL, with
 * no error report, when no such port exists (that is an answer, not a
 * misuse: a client may retry until a server has checked in).  While the
 * port's backlog of connections not yet accepted is full (a burst of
 * connections, or a server whose loop does not run), waits for room up to
 * 1 s, then returns NULL with kRLErrorResources. */
RLMessagePortRef RLMessagePortCreateRemote(RLAllocatorRef allocator, const char *name);

RLBoolean RLMessagePortIsRemote(RLMessagePortRef ms);
/* The port's name, or NULL when unnamed.  Borrowed: valid until the port
 * is destroyed (a later SetName does not free it). */
const char *RLMessagePortGetName(RLMessagePortRef ms);
/* Renames a valid local port: the new name is claimed first and the old one
 * freed after.  False if the port is remote or invalid, or the name is
 * taken (by any port, also of this process) or malformed (the port keeps
 * its old name). */
RLBoolean RLMessagePortSetName(RLMessagePortRef ms, const char *newName);
/* Copies the context given to CreateLocal (zeros for a remote port). */
void RLMessagePortGetContext(RLMessagePortRef ms, RLMessagePortContext *context);
/* Makes the port invalid; idempotent; any thread, also from its own
 * callout.  A local port frees its name at once, closes its connections
 * (its remotes become invalid), invalidates its run-loop source, then calls
 * the invalidation callback and releases its info.  A remote port closes
 * its connection, then calls its invalidation callback. */
void RLMessagePortInvalidate(RLMessagePortRef ms);
/* Whether the port is valid.  For a remote port this looks (without
 * blocking) whether the local side has gone: if so, the remote becomes
 * invalid here and its invalidation callback runs on this thread. */
RLBoolean RLMessagePortIsValid(RLMessagePortRef ms);
RLMessagePortInvalidationCallBack RLMessagePortGetInvalidationCallBack(RLMessagePortRef ms);
/* Sets the callback run when the port becomes invalid.  If the port is
 * already invalid, a non-NULL callout is called at once (as in CF). */
void RLMessagePortSetInvalidationCallBack(RLMessagePortRef ms, RLMessagePortInvalidationCallBack callout);

/* Sends (msgid, data) to the local port behind `remote`, or, when `remote`
 * is a local port, to that port itself (see the end).  `data` may be
 * NULL (the callout then gets NULL).  Times are in seconds; negative means
 * 0; NaN is an error.
 *   - sendTimeout bounds the wait to write the request (a receiver that
 *     does not read lets the socket buffer fill), to take the remote's
 *     turn when other threads are sending on it, and to reconnect after a
 *     dropped connection (the port's backlog may be full):
 *     kRLMessagePortSendTimeout.
 *     A request cut short is never delivered in part.
 *   - replyMode NULL: one-way; returns once the request is written.
 *     Otherwise waits up to rcvTimeout for the reply and stores it in
 *     *returnData (caller releases; NULL if the callout returned NULL):
 *     kRLMessagePortReceiveTimeout when it does not come (a late reply is
 *     discarded).  The calling thread blocks in poll(): it does not run its
 *     loop while waiting (unlike CF, which runs it in replyMode), so do not
 *     send to a port served by the calling thread's own loop.
 *   - kRLMessagePortIsInvalid: the remote was, or turned out to be,
 *     invalid before the request was written; kRLMessagePortBecameInvalidError:
 *     the local side went away while we waited for the reply.  Either way
 *     the remote is now invalid and its invalidation callback has run.
 * Thread-safe: concurrent senders on one remote take turns.
 *
 * Sent to a local port (CF: the request reaches its own callout), the
 * callout runs at once, on the calling thread, with no lock held, whether
 * or not the port's source is in a loop; the call returns when it has
 * returned (timeouts do not apply: nothing is written or awaited).  With
 * a replyMode its data is the reply (*returnData, caller releases), else
 * it is released.  `data` reaches the callout as given (the same handle).
 * Darwin's CF queues the request on the port instead, for the loop serving
 * it: the callout runs later there, and with a replyMode the sender runs
 * its own loop in that mode until the reply comes; here no loop runs and
 * the order against the port's other requests is not kept.  Results:
 * kRLMessagePortSuccess; kRLMessagePortIsInvalid if the port was invalid;
 * kRLMessagePortBecameInvalidError if it was invalidated while its callout
 * ran (the callout's data is released) and a reply was asked for.  A
 * callout may send to a local port again, also its own; such sends nest
 * at most 64 deep on one thread: the 65th fails with
 * kRLMessagePortTransportError and a kRLErrorResources report (a callout
 * that always sends to its own port ends there, not in a stack overflow). */
int32_t RLMessagePortSendRequest(RLMessagePortRef remote, int32_t msgid, RLDataRef data, RLTimeInterval sendTimeout, RLTimeInterval rcvTimeout, RLRunLoopMode replyMode, RLDataRef *returnData);

/* The run-loop source through which a local port receives (a version-1
 * source on a descriptor; caller releases).  Asking again returns the same
 * source while it is alive.  Add it to one or more modes of one or more
 * loops: requests are served, one callout at a time per connection, on the
 * thread of whichever loop finds them first.  NULL (with an error) for a
 * remote port; NULL for an invalid one. */
RLRunLoopSourceRef RLMessagePortCreateRunLoopSource(RLAllocatorRef allocator, RLMessagePortRef local, RLIndex order);

/* ---------------------------------------------------------------------------
 * Keep-alive worker threads ("permanent threads")
 *
 * RLThreadCreate starts a thread that runs its own loop in the default mode
 * for as long as the RLThread lives; a source that is never signalled keeps
 * the mode from being empty (CF code's usual "add a port" trick), and a
 * RLRunLoopStop() of that loop from a task only makes it run again.  Hand
 * it work from any thread with RLThreadPerform; stop it with RLThreadStop.
 * ------------------------------------------------------------------------- */

typedef struct __RLThread *RLThreadRef;

RLTypeID RLThreadGetTypeID(void);
/* Starts the thread (named `name`, NULL for none; the system shows its
 * first 15 bytes) and returns once its loop exists.  Caller releases; the
 * last release of a thread not yet stopped stops it as RLThreadStop does,
 * also while other threads are inside RLThreadPerform (see RLRelease):
 * their calls do not keep it alive.  A call whose task was queued before
 * the release waits for it as usual (the stop runs it); a call made after
 * fails with kRLErrorStaleHandle (or, still inside, with
 * kRLErrorInvalidArgument "the thread was stopped"), its task not run.
 * The stop and join run on the releasing thread, or, if a call was still
 * inside the library at that moment, on that call's thread when it leaves
 * (microseconds later: a waiting RLThreadPerform holds no reference).
 * NULL (with an error) if the system refuses a thread or descriptors. */
RLThreadRef RLThreadCreate(const char *name);
/* The worker's loop.  Borrowed: valid as long as the RLThread (also after
 * the thread stopped).  Items may be added to it from any thread. */
RLRunLoopRef RLThreadGetRunLoop(RLThreadRef thread);
/* Queues fn(info) to run on the worker in its common modes, after every
 * task queued before, and wakes the worker.  With waitUntilDone, returns
 * only after fn has returned; called on the worker thread itself, it runs
 * fn at once (inline) instead of queueing it.  The library does not retain
 * or release `info`.  Returns false (with an error) once RLThreadStop has
 * been called, or for a NULL fn. */
RLBoolean RLThreadPerform(RLThreadRef thread, RLRunLoopPerformCallBack fn, void *info, RLBoolean waitUntilDone);
/* Stops the worker: every task queued before this call runs, then the loop
 * stops, the thread exits (its loop is torn down: cancel callbacks of
 * sources still there run on it) and is joined.  Returns after that; from
 * the worker itself (inside a task) it only requests the stop and returns.
 * Idempotent; any thread.  The handle stays valid until released.
 *
 * The stop ends every run of the worker's loop, not only the innermost: a
 * task that runs the loop itself (a "modal" task calling
 * RLRunLoopRunInMode on the worker, in any mode, nested at any depth) sees
 * each of those runs return kRLRunLoopRunStopped after its current pass,
 * and every run it starts later return kRLRunLoopRunStopped after one pass
 * that does not wait (queued tasks still run in such a pass).  Such a task
 * must return once a run returns kRLRunLoopRunStopped (CFRunLoopRun's
 * convention: loop while the result is neither Stopped nor Finished); the
 * stop waits for it, as for any task queued before. */
void RLThreadStop(RLThreadRef thread);

#ifdef __cplusplus
}
#endif

#endif /* RUNLOOP_PORTS_H */
