/*
 * runloop/socket.h — sockets on a run loop (CF's CFSocket).
 *
 * Included by <runloop/runloop.h> (and includes it): CFSocket.h with the RL
 * prefix, for IPv4, IPv6 and Unix-domain sockets.  Read Apple's
 * documentation of a CFSocket function to learn its RL twin; this header
 * records what is specific to runloop.  The rules of runloop.h apply:
 * handles are checked on every call (NULL, stale and wrong-type handles are
 * reported through the error channel and the call returns 0 / NULL / -1 /
 * kRLSocketError); Create/Copy results are released with RLRelease(); Get
 * results are borrowed.
 *
 * An RLSocket wraps a native socket (a file descriptor).  Its run loop
 * source (RLSocketCreateRunLoopSource) watches the descriptor through the
 * loop's own wait set (the machinery of RLFileDescriptor: no extra thread;
 * an accepting socket's through a private epoll set in it, see
 * RLSocketCreateRunLoopSource) and calls the socket's callout on the loop's thread,
 * with no library lock held, for the callback types that are enabled:
 *
 *   kRLSocketReadCallBack     the socket is readable (or at end of file, or
 *                             has a connection to accept); the callout reads.
 *                             data and address are NULL.
 *   kRLSocketAcceptCallBack   a listening socket: the library accept()s one
 *                             connection per callout; data points to the
 *                             new RLSocketNativeHandle, which the callout
 *                             owns (wrap it, or close it); address is the
 *                             peer's address.  Out of descriptors (accept
 *                             fails with EMFILE or ENFILE, or ENOBUFS or
 *                             ENOMEM), the connection stays pending and
 *                             accepting pauses for 100 ms at a time
 *                             instead of reporting the still-readable
 *                             listener on every pass; the shortage is
 *                             reported once (kRLErrorResources, through
 *                             the error channel) until a connection is
 *                             accepted again, and the waiting connection
 *                             is accepted within 100 ms of a descriptor
 *                             being free.
 *   kRLSocketDataCallBack     the library reads what is available (up to
 *                             32 KiB for a stream, 64 KiB for a datagram)
 *                             into an RLData passed as data; address is the
 *                             sender's (or the peer's) address.  At end of
 *                             file, or when the read fails (a peer reset:
 *                             ECONNRESET), data has length 0 and the socket
 *                             is invalidated right after the callout.  Only
 *                             a connection ends so (SOCK_STREAM and
 *                             SOCK_SEQPACKET: zero bytes read is the peer's
 *                             close, which an empty SOCK_SEQPACKET record
 *                             cannot be told from; CF on Linux reports such
 *                             a closed socket on every pass instead): on a
 *                             datagram socket (SOCK_DGRAM,
 *                             SOCK_RAW) an empty datagram is data like any
 *                             other (length 0, with the sender's address),
 *                             the socket stays valid and the next datagrams
 *                             are delivered, as in CF.
 *   kRLSocketConnectCallBack  a background connect (RLSocketConnectToAddress
 *                             with a negative timeout) finished: data is
 *                             NULL on success, else a pointer to an int32_t
 *                             errno value.  Once per socket.
 *   kRLSocketWriteCallBack    the socket is writable (after it connected,
 *                             when it has a connect callback).
 *
 * Read, Accept and Data are mutually exclusive (the low two bits of the
 * callback types); Connect and Write may be added to any of them.  The
 * address and data arguments are borrowed: valid during the callout
 * (RLRetain them to keep them).  Within one callout round the order is
 * connect, then read/accept/data, then write; a callout that invalidates
 * the socket stops the round.
 *
 * Callbacks are one-shot, as in CF: a type is disabled just before its
 * callout and enabled again afterwards if the socket's flags say so
 * (kRLSocketAutomaticallyReenable*CallBack; by default read, accept and
 * data are, write is not, connect happens once).  RLSocketEnableCallBacks
 * enables types manually (also from the callout); RLSocketDisableCallBacks
 * disables them until enabled again.  Both act only while the socket's
 * source is in a run loop: when the source is first added to a loop every
 * callback type the socket was created with is enabled (as CF does).  A
 * readable socket whose read type stays enabled is reported on every pass,
 * like a level-triggered poll.
 *
 * Invalidation (RLSocketInvalidate, or the last reference released)
 * invalidates the source, closes the native socket if
 * kRLSocketCloseOnInvalidate is set (the default) and releases the
 * context's info, now or when a callout in flight returns.  Safe from any
 * thread and from inside the callout.  Afterwards RLSocketGetNative
 * returns -1 and everything else does nothing.  Unlike CF, releasing the
 * last reference to a valid socket invalidates it (CF keeps it alive,
 * cached by descriptor, until invalidated); the source holds a reference,
 * so a socket whose source is in a loop keeps working after the creator's
 * RLRelease, as in CF.
 *
 * Descriptor ownership: do not close the native socket yourself while the
 * RLSocket is valid (see "Descriptor ownership" in runloop.h).  If you do,
 * the loop reports it when it meets it, and at invalidation a descriptor
 * that no longer refers to the socket it was created with is not closed
 * again (an error is reported instead): the number may belong to another
 * file by then.
 *
 * Signals: sends use MSG_NOSIGNAL, so writing to a connection the peer
 * closed returns kRLSocketError instead of raising SIGPIPE (CF on Linux
 * raises it).
 */
#ifndef RUNLOOP_SOCKET_H
#define RUNLOOP_SOCKET_H

#include "runloop.h"
#include "ports.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct __RLSocket *RLSocketRef;
typedef int RLSocketNativeHandle;

/* The results of SetAddress, ConnectToAddress and SendData (CFSocketError). */
typedef RLIndex RLSocketError;
enum {
    kRLSocketSuccess = 0,
    kRLSocketError = -1,
    kRLSocketTimeout = -2
};

/* Callback types (CFSocketCallBackType). */
typedef RLOptionFlags RLSocketCallBackType;
enum {
    kRLSocketNoCallBack = 0,
    kRLSocketReadCallBack = 1,
    kRLSocketAcceptCallBack = 2,
    kRLSocketDataCallBack = 3,
    kRLSocketConnectCallBack = 4,
    kRLSocketWriteCallBack = 8
};

/* Socket flags (RLSocketSetSocketFlags).  The default is the socket's read
 * type (read, accept or data: re-enabled automatically) plus
 * kRLSocketCloseOnInvalidate. */
enum {
    kRLSocketAutomaticallyReenableReadCallBack = 1,
    kRLSocketAutomaticallyReenableAcceptCallBack = 2,
    kRLSocketAutomaticallyReenableDataCallBack = 3,
    kRLSocketAutomaticallyReenableWriteCallBack = 8,
    kRLSocketLeaveErrors = 64,       /* do not read (and clear) SO_ERROR before a connect/write callout */
    kRLSocketCloseOnInvalidate = 128
};

/* Called on the loop's thread; see the top of this file for what address
 * and data are for each type.  Both are borrowed. */
typedef void (*RLSocketCallBack)(RLSocketRef s, RLSocketCallBackType type, RLDataRef address, const void *data, void *info);

/* CF's CFSocketContext.  retain(info) at creation, release(info) at
 * invalidation (or when the socket is destroyed while valid). */
typedef struct {
    RLIndex version;
    void *info;
    const void *(*retain)(const void *info);
    void (*release)(const void *info);
    char *(*copyDescription)(const void *info);
} RLSocketContext;

/* CF's CFSocketSignature: how to make a socket and the address to bind or
 * connect it to (an RLData holding a struct sockaddr). */
typedef struct {
    int32_t protocolFamily;
    int32_t socketType;
    int32_t protocol;
    RLDataRef address;
} RLSocketSignature;

RLTypeID RLSocketGetTypeID(void);

/* Makes a new socket with socket(2) and wraps it (caller releases).
 * protocolFamily <= 0 means PF_INET; for PF_INET and PF_INET6 a socketType
 * <= 0 means SOCK_STREAM and a protocol <= 0 means TCP (stream) or UDP
 * (datagram); for PF_UNIX a socketType <= 0 means SOCK_STREAM.  The
 * callout may be NULL (nothing is called, as in CF).  NULL, with an error
 * naming errno, when socket(2) fails (kRLErrorResources when out of
 * descriptors). */
RLSocketRef RLSocketCreate(RLAllocatorRef allocator, int32_t protocolFamily, int32_t socketType, int32_t protocol, RLOptionFlags callBackTypes, RLSocketCallBack callout, const RLSocketContext *context);
/* Wraps an existing socket (caller releases).  As in CF, a descriptor that
 * already has a valid RLSocket gives that socket (one more reference; the
 * callback types, callout and context passed are ignored) — unless the
 * number now names another file (closed behind that socket's back and
 * reused), which gets a new socket.  A negative
 * descriptor, or one that is not open: error, NULL.  Any pollable
 * descriptor works (socketpair ends, pipes); callbacks start enabled once
 * the source is added to a loop. */
RLSocketRef RLSocketCreateWithNative(RLAllocatorRef allocator, RLSocketNativeHandle sock, RLOptionFlags callBackTypes, RLSocketCallBack callout, const RLSocketContext *context);
/* RLSocketCreate with the signature's family, type and protocol, then
 * RLSocketSetAddress (bind and listen) with its address.  NULL if either
 * step fails (the socket is invalidated and released). */
RLSocketRef RLSocketCreateWithSocketSignature(RLAllocatorRef allocator, const RLSocketSignature *signature, RLOptionFlags callBackTypes, RLSocketCallBack callout, const RLSocketContext *context);
/* RLSocketCreate with the signature's family, type and protocol, then
 * RLSocketConnectToAddress with its address and `timeout`.  NULL if either
 * step fails. */
RLSocketRef RLSocketCreateConnectedToSocketSignature(RLAllocatorRef allocator, const RLSocketSignature *signature, RLOptionFlags callBackTypes, RLSocketCallBack callout, const RLSocketContext *context, RLTimeInterval timeout);

/* Binds the socket to `address` (an RLData holding a struct sockaddr) and
 * listens (backlog 256; a socket that cannot listen, such as a datagram
 * socket, is just bound).  Returns kRLSocketSuccess, or kRLSocketError
 * when bind fails (errno is left as bind(2) set it: an answer, not
 * reported) or the socket is invalid (reported).  NULL or empty address:
 * error. */
RLSocketError RLSocketSetAddress(RLSocketRef s, RLDataRef address);
/* Connects to `address`.  timeout > 0: waits at most that long
 * (kRLSocketTimeout when it runs out); timeout == 0: waits as long as
 * connect(2) does; timeout < 0: starts the connection and returns
 * kRLSocketSuccess at once, and the connect callback (if the socket has
 * one and its source is in a loop) reports the outcome.  The socket's
 * blocking mode is as before afterwards.  kRLSocketError when the
 * connection fails (errno says why; not reported) or the socket is invalid
 * (reported); NaN timeout or a NULL or empty address: error. */
RLSocketError RLSocketConnectToAddress(RLSocketRef s, RLDataRef address, RLTimeInterval timeout);
/* Sends all of `data` (to `address` when not NULL and not empty: sendto,
 * for datagram sockets), waiting for room at most `timeout` seconds
 * (<= 0: as long as needed).  kRLSocketSuccess when every byte was
 * handed to the kernel, kRLSocketTimeout when time ran out,
 * kRLSocketError when the send failed (a reset or closed connection:
 * never SIGPIPE), the socket is invalid, or data is empty (as in CF).
 * Blocks the calling thread; any thread. */
RLSocketError RLSocketSendData(RLSocketRef s, RLDataRef address, RLDataRef data, RLTimeInterval timeout);

/* Invalidates the socket (see the top of this file).  Idempotent; any
 * thread, also from the socket's own callout. */
void RLSocketInvalidate(RLSocketRef s);
RLBoolean RLSocketIsValid(RLSocketRef s);
/* The socket's local address (getsockname) as an RLData (caller releases),
 * NULL if it has none or the socket is invalid. */
RLDataRef RLSocketCopyAddress(RLSocketRef s);
/* The peer's address (getpeername) as an RLData (caller releases), NULL if
 * not connected or invalid. */
RLDataRef RLSocketCopyPeerAddress(RLSocketRef s);
/* Copies the context given at creation (zeros once invalid, as in CF). */
void RLSocketGetContext(RLSocketRef s, RLSocketContext *context);
/* The native socket; -1 once invalid (and on error). */
RLSocketNativeHandle RLSocketGetNative(RLSocketRef s);

/* The source delivering the callbacks on a loop (caller releases; the same
 * source each time while it lives).  NULL if the socket is invalid.  An
 * accepting socket's source watches a private epoll set holding the
 * listener and the timer of its back-off (two descriptors, made with its
 * first source and closed with the socket): NULL with kRLErrorResources
 * when the system refuses them. */
RLRunLoopSourceRef RLSocketCreateRunLoopSource(RLAllocatorRef allocator, RLSocketRef s, RLIndex order);

RLOptionFlags RLSocketGetSocketFlags(RLSocketRef s);
/* Replaces the flags (kRLSocketAutomaticallyReenable*, kRLSocketLeaveErrors,
 * kRLSocketCloseOnInvalidate).  Takes effect at the next callout round and
 * at invalidation.  Any thread. */
void RLSocketSetSocketFlags(RLSocketRef s, RLOptionFlags flags);
/* Disables the given callback types (only those the socket was created
 * with) until enabled again.  Any thread; no effect before the source is
 * in a loop. */
void RLSocketDisableCallBacks(RLSocketRef s, RLOptionFlags callBackTypes);
/* Enables the given callback types (only those the socket was created
 * with; connect only while not yet connected).  Any thread, also from the
 * callout; no effect before the source is in a loop. */
void RLSocketEnableCallBacks(RLSocketRef s, RLOptionFlags callBackTypes);

#ifdef __cplusplus
}
#endif

#endif /* RUNLOOP_SOCKET_H */
