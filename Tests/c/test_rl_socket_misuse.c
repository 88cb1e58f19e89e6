/*
 * test_rl_socket_misuse — RLSocket under bad input (runloop-only trace):
 *   A. NULL, stale and wrong-type handles on every kind of call: the error
 *      channel names the problem, the call returns its neutral value.
 *   B. Bad arguments: negative or closed descriptors, an unknown family,
 *      NULL / empty addresses, NaN timeouts, NULL data, NULL context.
 *   C. An invalidated socket: SendData, SetAddress and ConnectToAddress
 *      return kRLSocketError with an error; Enable/Disable/SetSocketFlags
 *      do nothing; GetNative -1.
 *   D. A callout that invalidates its socket: its info is released once,
 *      after the callout returns, and no further callout runs.
 *   E. A callout that closes its own descriptor (and the number is reused
 *      by a pipe): the loop keeps running, invalidation reports instead of
 *      closing the pipe.
 *   F. A peer reset (SO_LINGER 0): the data callout gets zero-length data,
 *      the socket is invalid afterwards; sending on a connection the peer
 *      reset returns kRLSocketError and raises no SIGPIPE (SIGPIPE is left
 *      at its default action, which would kill the test).
 *   G. Another thread invalidates a socket while its loop sleeps on it:
 *      the run returns (the mode is empty), the descriptor is closed.
 */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#define M "sock.misuse"

static int errors;
static RLErrorCode last_code;
static char last_message[512];
static void handler(RLErrorCode code, const char *function, const char *message, void *info)
{
    errors++;
    last_code = code;
    snprintf(last_message, sizeof last_message, "%s", message);
}

/* "<what>: <code>" for the error (if any) since the last call. */
static void expect(const char *what, RLErrorCode code)
{
    TRACE("%s: error %d", what, errors ? (int)last_code : 0);
    CHECK(errors == (code != kRLErrorNone ? 1 : 0));
    CHECK(code == kRLErrorNone || last_code == code);
    errors = 0;
    last_code = kRLErrorNone;
}

static RLDataRef data_of(const void *bytes, size_t n) { return RLDataCreate(NULL, bytes, (RLIndex)n); }

static void add(RLSocketRef s)
{
    RLRunLoopSourceRef src = RLSocketCreateRunLoopSource(NULL, s, 0);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), src, M);
    RLRelease(src);
}

static void quiet(RLSocketRef s, RLSocketCallBackType t, RLDataRef a, const void *d, void *i) {}
static void noop_timer(RLRunLoopTimerRef t, void *i) {}

/* ---- A, B, C ------------------------------------------------------------------ */

static void handles_and_arguments(void)
{
    RLSocketRef s = RLSocketCreate(NULL, PF_INET, SOCK_STREAM, 0, kRLSocketReadCallBack, quiet, NULL);
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, now() + 100, 0, 0, 0, noop_timer, NULL);
    RLDataRef payload = data_of("x", 1);

    TRACE("A: GetNative(NULL) %d", RLSocketGetNative(NULL));
    expect("A: GetNative(NULL)", kRLErrorNullHandle);
    TRACE("A: IsValid(timer) %d", RLSocketIsValid((RLSocketRef)t));
    expect("A: IsValid(timer)", kRLErrorWrongType);
    TRACE("A: SendData(NULL socket) %ld", (long)RLSocketSendData(NULL, NULL, payload, 1));
    expect("A: SendData(NULL socket)", kRLErrorNullHandle);
    TRACE("A: SendData(timer as data) %ld", (long)RLSocketSendData(s, NULL, (RLDataRef)t, 1));
    expect("A: SendData(timer as data)", kRLErrorWrongType);
    TRACE("A: CreateRunLoopSource(NULL) %s", RLSocketCreateRunLoopSource(NULL, NULL, 0) ? "made" : "NULL");
    expect("A: CreateRunLoopSource(NULL)", kRLErrorNullHandle);
    RLSocketEnableCallBacks(NULL, kRLSocketReadCallBack);
    expect("A: EnableCallBacks(NULL)", kRLErrorNullHandle);
    RLSocketSetSocketFlags((RLSocketRef)t, 0);
    expect("A: SetSocketFlags(timer)", kRLErrorWrongType);

    RLSocketRef stale = RLSocketCreate(NULL, PF_INET, SOCK_STREAM, 0, kRLSocketReadCallBack, quiet, NULL);
    RLRelease(stale);
    TRACE("A: GetSocketFlags(stale) 0x%lx", (unsigned long)RLSocketGetSocketFlags(stale));
    expect("A: GetSocketFlags(stale)", kRLErrorStaleHandle);
    RLSocketInvalidate(stale);
    expect("A: Invalidate(stale)", kRLErrorStaleHandle);
    TRACE("A: CopyAddress(stale) %s", RLSocketCopyAddress(stale) ? "data" : "NULL");
    expect("A: CopyAddress(stale)", kRLErrorStaleHandle);

    TRACE("B: CreateWithNative(-1) %s", RLSocketCreateWithNative(NULL, -1, 0, quiet, NULL) ? "socket" : "NULL");
    expect("B: CreateWithNative(-1)", kRLErrorInvalidArgument);
    int closed = dup(0);
    close(closed);
    TRACE("B: CreateWithNative(closed) %s", RLSocketCreateWithNative(NULL, closed, 0, quiet, NULL) ? "socket" : "NULL");
    expect("B: CreateWithNative(closed)", kRLErrorInvalidArgument);
    TRACE("B: Create(family 9999) %s", RLSocketCreate(NULL, 9999, 0, 0, 0, quiet, NULL) ? "socket" : "NULL");
    expect("B: Create(family 9999)", kRLErrorInvalidArgument);
    TRACE("B: SetAddress(NULL) %ld", (long)RLSocketSetAddress(s, NULL));
    expect("B: SetAddress(NULL)", kRLErrorInvalidArgument);
    RLDataRef empty = data_of(NULL, 0);
    TRACE("B: ConnectToAddress(empty) %ld", (long)RLSocketConnectToAddress(s, empty, 1));
    expect("B: ConnectToAddress(empty)", kRLErrorInvalidArgument);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    RLDataRef lo = data_of(&sin, sizeof sin);
    TRACE("B: ConnectToAddress(NaN) %ld", (long)RLSocketConnectToAddress(s, lo, NAN));
    expect("B: ConnectToAddress(NaN)", kRLErrorInvalidArgument);
    TRACE("B: SendData(NULL data) %ld", (long)RLSocketSendData(s, NULL, NULL, 1));
    expect("B: SendData(NULL data)", kRLErrorNullHandle);
    TRACE("B: SendData(NaN) %ld", (long)RLSocketSendData(s, NULL, payload, NAN));
    expect("B: SendData(NaN)", kRLErrorInvalidArgument);
    TRACE("B: SendData(empty data) %ld", (long)RLSocketSendData(s, NULL, empty, 1));
    expect("B: SendData(empty data, as in CF)", kRLErrorNone);
    TRACE("B: SendData(unconnected) %ld", (long)RLSocketSendData(s, NULL, payload, 1));
    expect("B: SendData(unconnected: an answer, not misuse)", kRLErrorNone);
    RLSocketGetContext(s, NULL);
    expect("B: GetContext(NULL)", kRLErrorInvalidArgument);
    RLSocketSignature sig = { PF_INET, SOCK_STREAM, 0, NULL };
    TRACE("B: CreateWithSocketSignature(no address) %s",
          RLSocketCreateWithSocketSignature(NULL, &sig, 0, quiet, NULL) ? "socket" : "NULL");
    expect("B: CreateWithSocketSignature(no address)", kRLErrorInvalidArgument);
    TRACE("B: CreateConnectedToSocketSignature(NULL) %s",
          RLSocketCreateConnectedToSocketSignature(NULL, NULL, 0, quiet, NULL, 1) ? "socket" : "NULL");
    expect("B: CreateConnectedToSocketSignature(NULL)", kRLErrorInvalidArgument);

    RLSocketInvalidate(s);
    TRACE("C: SendData(invalid) %ld", (long)RLSocketSendData(s, NULL, payload, 1));
    expect("C: SendData(invalid)", kRLErrorInvalidArgument);
    TRACE("C: SetAddress(invalid) %ld", (long)RLSocketSetAddress(s, lo));
    expect("C: SetAddress(invalid)", kRLErrorInvalidArgument);
    TRACE("C: ConnectToAddress(invalid) %ld", (long)RLSocketConnectToAddress(s, lo, -1));
    expect("C: ConnectToAddress(invalid)", kRLErrorInvalidArgument);
    RLSocketEnableCallBacks(s, kRLSocketReadCallBack);
    RLSocketDisableCallBacks(s, kRLSocketReadCallBack);
    RLSocketSetSocketFlags(s, 0);
    RLSocketInvalidate(s);
    TRACE("C: GetNative(invalid) %d, address %s, peer %s", RLSocketGetNative(s),
          RLSocketCopyAddress(s) ? "data" : "NULL", RLSocketCopyPeerAddress(s) ? "data" : "NULL");
    expect("C: Enable/Disable/SetSocketFlags/Invalidate/Copy* on an invalid socket", kRLErrorNone);

    RLRelease(s);
    RLRelease(empty);
    RLRelease(lo);
    RLRelease(payload);
    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
}

/* ---- D: a callout that invalidates its socket --------------------------------- */

static int d_released, d_callouts, d_released_in_callout;
static void d_release(const void *info) { d_released++; }
static void d_callout(RLSocketRef s, RLSocketCallBackType t, RLDataRef a, const void *d, void *info)
{
    d_callouts++;
    RLSocketInvalidate(s);
    d_released_in_callout = d_released;
    CHECK(strcmp((const char *)info, "info") == 0);  /* still usable */
}

static void invalidate_in_callout(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    RLSocketContext ctx = { 0, (void *)"info", NULL, d_release, NULL };
    RLSocketRef s = RLSocketCreateWithNative(NULL, sv[0], kRLSocketReadCallBack | kRLSocketWriteCallBack,
                                             d_callout, &ctx);
    add(s);
    CHECK(write(sv[1], "x", 1) == 1);
    RLRunLoopRunResult r = RLRunLoopRunInMode(M, 2.0, 1);
    TRACE("D: run %s, callouts %d (the write callout of the round skipped), released during the callout %d, after %d",
          result_name(r), d_callouts, d_released_in_callout, d_released);
    TRACE("D: next run %s", result_name(RLRunLoopRunInMode(M, 0.05, 1)));
    RLRelease(s);
    TRACE("D: released %d after the last RLRelease", d_released);
    close(sv[1]);
}

/* ---- E: a callout that closes its own descriptor -------------------------------- */

static int e_pipe[2] = { -1, -1 }, e_callouts;
static void e_callout(RLSocketRef s, RLSocketCallBackType t, RLDataRef a, const void *d, void *info)
{
    e_callouts++;
    int fd = RLSocketGetNative(s);
    close(fd);
    /* the number is reused at once, by a pipe */
    CHECK(pipe(e_pipe) == 0);
    if (e_pipe[0] != fd) {
        CHECK(dup2(e_pipe[0], fd) == fd);
        close(e_pipe[0]);
        e_pipe[0] = fd;
    }
    TRACE("E: descriptor closed in the callout, its number reused by a pipe");
}

static void close_in_callout(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    RLSocketRef s = RLSocketCreateWithNative(NULL, sv[0], kRLSocketReadCallBack, e_callout, NULL);
    add(s);
    CHECK(write(sv[1], "x", 1) == 1);
    RLRunLoopRunResult r = RLRunLoopRunInMode(M, 2.0, 1);
    TRACE("E: run %s, callouts %d", result_name(r), e_callouts);
    RLRunLoopRunInMode(M, 0.05, 1);
    TRACE("E: later run returned, callouts %d", e_callouts);
    RLSocketRef fresh = RLSocketCreateWithNative(NULL, e_pipe[0], kRLSocketNoCallBack, NULL, NULL);
    TRACE("E: CreateWithNative of the reused number: a new socket %s", yes_no(fresh != NULL && fresh != s));
    RLSocketSetSocketFlags(fresh, 0);  /* the pipe is closed below */
    RLSocketInvalidate(fresh);
    RLRelease(fresh);
    errors = 0;
    RLSocketInvalidate(s);
    TRACE("E: invalidation reported: %s, code %d, names the reuse: %s", yes_no(errors == 1), (int)last_code,
          yes_no(strstr(last_message, "now names another file") != NULL));
    CHECK(errors == 1);
    errors = 0;
    TRACE("E: the pipe stays open: %s", yes_no(fcntl(e_pipe[0], F_GETFD) != -1 && fcntl(e_pipe[1], F_GETFD) != -1));
    RLRelease(s);
    close(e_pipe[0]);
    close(e_pipe[1]);
    close(sv[1]);
    errors = 0;
}

/* ---- F: a peer reset ----------------------------------------------------------- */

static int f_seen;
static void f_callout(RLSocketRef s, RLSocketCallBackType t, RLDataRef a, const void *d, void *info)
{
    TRACE("F: data of %ld bytes, valid in the callout %s", (long)RLDataGetLength((RLDataRef)d), yes_no(RLSocketIsValid(s)));
    f_seen = 1;
}

static void peer_reset(void)
{
    signal(SIGPIPE, SIG_DFL);
    RLSocketRef listener = RLSocketCreate(NULL, PF_INET, SOCK_STREAM, 0, kRLSocketNoCallBack, NULL, NULL);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    RLDataRef any = data_of(&sin, sizeof sin);
    CHECK(RLSocketSetAddress(listener, any) == kRLSocketSuccess);
    RLRelease(any);
    RLDataRef where = RLSocketCopyAddress(listener);

    /* 1: the peer resets, our data callout hears it */
    int c = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(connect(c, (const struct sockaddr *)RLDataGetBytePtr(where), (socklen_t)RLDataGetLength(where)) == 0);
    int conn = accept(RLSocketGetNative(listener), NULL, NULL);
    RLSocketRef s = RLSocketCreateWithNative(NULL, conn, kRLSocketDataCallBack, f_callout, NULL);
    add(s);
    struct linger lg = { 1, 0 };
    CHECK(setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
    close(c);
    RLRunLoopRunResult r = RLRunLoopRunInMode(M, 2.0, 1);
    TRACE("F: run %s, seen %s, valid after %s", result_name(r), yes_no(f_seen), yes_no(RLSocketIsValid(s)));
    RLRelease(s);

    /* 2: we send to a peer that reset: an error, no SIGPIPE */
    c = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(connect(c, (const struct sockaddr *)RLDataGetBytePtr(where), (socklen_t)RLDataGetLength(where)) == 0);
    conn = accept(RLSocketGetNative(listener), NULL, NULL);
    s = RLSocketCreateWithNative(NULL, conn, kRLSocketNoCallBack, NULL, NULL);
    CHECK(setsockopt(c, SOL_SOCKET, SO_LINGER, &lg, sizeof lg) == 0);
    close(c);
    RLDataRef payload = data_of("data", 4);
    RLSocketError e = kRLSocketSuccess;
    for (int i = 0; i < 200 && e == kRLSocketSuccess; i++) {
        e = RLSocketSendData(s, NULL, payload, 1.0);
        if (e == kRLSocketSuccess) sleep_s(0.005);
    }
    TRACE("F: SendData to a reset peer: %ld (no SIGPIPE: we are still here)", (long)e);
    expect("F: SendData to a reset peer (an answer, not misuse)", kRLErrorNone);
    RLRelease(payload);
    RLSocketInvalidate(s);
    RLRelease(s);
    RLSocketInvalidate(listener);
    RLRelease(listener);
    RLRelease(where);
}

/* ---- G: invalidated from another thread while the loop sleeps ------------------- */

static gate_t g_sleeping = GATE_INIT;
static void g_observer(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) { gate_post(&g_sleeping); }
static void *g_invalidator(void *arg)
{
    gate_wait(&g_sleeping);
    RLSocketInvalidate((RLSocketRef)arg);
    return NULL;
}

static void invalidate_from_other_thread(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    RLSocketRef s = RLSocketCreateWithNative(NULL, sv[0], kRLSocketDataCallBack, quiet, NULL);
    add(s);
    RLRunLoopObserverRef o = RLRunLoopObserverCreate(NULL, kRLRunLoopBeforeWaiting, 0, 0, g_observer, NULL);
    RLRunLoopAddObserver(RLRunLoopGetCurrent(), o, M);
    pthread_t t = start_thread(g_invalidator, s);
    RLRunLoopRunResult r = RLRunLoopRunInMode(M, 5.0, 0);
    pthread_join(t, NULL);
    errno = 0;
    int closed = fcntl(sv[0], F_GETFD) == -1 && errno == EBADF;
    TRACE("G: run %s, valid %s, descriptor closed %s", result_name(r), yes_no(RLSocketIsValid(s)), yes_no(closed));
    RLRunLoopObserverInvalidate(o);
    RLRelease(o);
    RLRelease(s);
    close(sv[1]);
}

static void scenario(void)
{
    RLSetErrorHandler(handler, NULL);
    handles_and_arguments();
    invalidate_in_callout();
    close_in_callout();
    peer_reset();
    invalidate_from_other_thread();
    RLSetErrorHandler(NULL, NULL);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_socket_misuse") | harness_failures;
}
