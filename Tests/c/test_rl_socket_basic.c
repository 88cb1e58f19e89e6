/*
 * test_rl_socket_basic — RLSocket (CF's CFSocket) over loopback
 * (runloop-only trace; the CF-compared twins are Tests/conformance/sc_socket_*):
 *   A. TCP echo over IPv4 and IPv6 loopback: a listening socket with an
 *      accept callback (SetAddress binds and listens; the new native handle
 *      arrives as data), the accepted connection wrapped with a data
 *      callback that echoes with SendData, a client with connect + data
 *      callbacks connecting in the background (ConnectToAddress(-1)).
 *      The client closes: the server's data callback gets zero-length data
 *      and its socket is invalid afterwards.
 *   B. A Unix-domain listener at a path, a blocking connect (timeout 1 s),
 *      and a socketpair wrapped with CreateWithNative.
 *   C. Flags and properties: default flags per type, Set/GetSocketFlags,
 *      GetNative (-1 once invalid), GetContext (zeros once invalid, info
 *      released once), CreateWithNative of a wrapped descriptor gives the
 *      same socket, one source per socket, close-on-invalidate on and off;
 *      RLCopyDescription names an RLSocket, its validity and its types.
 *   D. Re-enable: a read callback with automatic re-enable fires on every
 *      pass while readable; without it once, until EnableCallBacks; a
 *      DisableCallBacks'd type stays quiet; the write callback is one-shot
 *      unless kRLSocketAutomaticallyReenableWriteCallBack.
 *   E. Connect failures: a background connect to a closed port gives the
 *      connect callback ECONNREFUSED (and no write callback); a blocking one
 *      returns kRLSocketError; with kRLSocketLeaveErrors the callout sees no
 *      error and SO_ERROR is left to read; a datagram socket sends to an
 *      address.
 *   F. 1 MiB sent with SendData from another thread arrives whole and in
 *      order, in data callouts of at most 32 KiB.
 */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define M "sock.mode"

static RLDataRef data_of(const void *bytes, size_t n) { return RLDataCreate(NULL, bytes, (RLIndex)n); }
static RLDataRef str_data(const char *s) { return data_of(s, strlen(s)); }

static RLDataRef loopback(int family, uint16_t port)
{
    if (family == AF_INET6) {
        struct sockaddr_in6 a;
        memset(&a, 0, sizeof a);
        a.sin6_family = AF_INET6;
        a.sin6_port = htons(port);
        a.sin6_addr = in6addr_loopback;
        return data_of(&a, sizeof a);
    }
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return data_of(&a, sizeof a);
}

static uint16_t port_of(RLDataRef address)
{
    const struct sockaddr *sa = (const struct sockaddr *)RLDataGetBytePtr(address);
    if (sa->sa_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
    return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

static const char *family_name(RLDataRef address)
{
    if (!address || RLDataGetLength(address) < 2) return "none";
    switch (((const struct sockaddr *)RLDataGetBytePtr(address))->sa_family) {
    case AF_INET: return "inet";
    case AF_INET6: return "inet6";
    case AF_UNIX: return "unix";
    default: return "?";
    }
}

/* Adds the socket's source; sources of one pass run by order (listeners
 * 0, clients 1), so the trace is deterministic. */
static void add_ordered(RLSocketRef s, RLIndex order)
{
    RLRunLoopSourceRef src = RLSocketCreateRunLoopSource(NULL, s, order);
    CHECK(src != NULL);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), src, M);
    RLRelease(src);
}

static void add(RLSocketRef s) { add_ordered(s, 0); }

/* ---- A: TCP echo ---------------------------------------------------------- */

static RLSocketRef server_conn;
static int echo_done;

static void server_data(RLSocketRef s, RLSocketCallBackType type, RLDataRef address, const void *data, void *info)
{
    RLDataRef d = (RLDataRef)data;
    RLIndex n = RLDataGetLength(d);
    if (n == 0) {
        TRACE("server: end of stream (from %s), still valid in callout: %s", family_name(address),
              yes_no(RLSocketIsValid(s)));
        return;
    }
    TRACE("server: data \"%.*s\" from %s, echoing", (int)n, (const char *)RLDataGetBytePtr(d), family_name(address));
    CHECK(RLSocketSendData(s, NULL, d, 1.0) == kRLSocketSuccess);
}

static void server_accept(RLSocketRef s, RLSocketCallBackType type, RLDataRef address, const void *data, void *info)
{
    CHECK(type == kRLSocketAcceptCallBack);
    int fd = *(const RLSocketNativeHandle *)data;
    TRACE("server: accepted a connection from %s", family_name(address));
    server_conn = RLSocketCreateWithNative(NULL, fd, kRLSocketDataCallBack, server_data, NULL);
    add(server_conn);
}

static void client_cb(RLSocketRef s, RLSocketCallBackType type, RLDataRef address, const void *data, void *info)
{
    if (type == kRLSocketConnectCallBack) {
        TRACE("client: connected (%s)", data ? "error" : "no error");
        RLDataRef hello = str_data("hello");
        CHECK(RLSocketSendData(s, NULL, hello, 1.0) == kRLSocketSuccess);
        RLRelease(hello);
    } else if (type == kRLSocketDataCallBack) {
        RLDataRef d = (RLDataRef)data;
        TRACE("client: echo \"%.*s\"", (int)RLDataGetLength(d), (const char *)RLDataGetBytePtr(d));
        echo_done = 1;
        RLRunLoopStop(RLRunLoopGetCurrent());
    }
}

static void echo_over(int family)
{
    TRACE("A: %s", family == AF_INET6 ? "IPv6" : "IPv4");
    RLSocketRef listener = RLSocketCreate(NULL, family, SOCK_STREAM, 0, kRLSocketAcceptCallBack, server_accept, NULL);
    CHECK(listener != NULL);
    int one = 1;
    setsockopt(RLSocketGetNative(listener), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    RLDataRef any = loopback(family, 0);
    TRACE("A: SetAddress: %d", (int)RLSocketSetAddress(listener, any));
    RLRelease(any);
    RLDataRef bound = RLSocketCopyAddress(listener);
    TRACE("A: bound to %s, port assigned: %s", family_name(bound), yes_no(port_of(bound) != 0));
    add(listener);

    RLSocketRef client = RLSocketCreate(NULL, family, SOCK_STREAM, IPPROTO_TCP,
                                        kRLSocketConnectCallBack | kRLSocketDataCallBack, client_cb, NULL);
    TRACE("A: background connect: %d", (int)RLSocketConnectToAddress(client, bound, -1));
    add_ordered(client, 1);
    echo_done = 0;
    RLRunLoopRunResult r = RLRunLoopRunInMode(M, 5.0, 0);
    TRACE("A: run: %s, echoed: %s", result_name(r), yes_no(echo_done));
    RLDataRef peer = RLSocketCopyPeerAddress(client);
    TRACE("A: client's peer is the listener: %s", yes_no(peer && port_of(peer) == port_of(bound)));
    if (peer) RLRelease(peer);

    /* the client goes away: the server hears the end of the stream */
    RLSocketInvalidate(client);
    RLRelease(client);
    r = RLRunLoopRunInMode(M, 2.0, 1);
    TRACE("A: after the client closed: %s, server connection valid: %s", result_name(r),
          yes_no(RLSocketIsValid(server_conn)));
    RLRelease(server_conn);
    server_conn = NULL;
    RLSocketInvalidate(listener);
    RLRelease(listener);
    RLRelease(bound);
}

/* ---- B: Unix domain --------------------------------------------------------- */

static RLSocketRef unix_conn;
static void unix_accept(RLSocketRef s, RLSocketCallBackType type, RLDataRef address, const void *data, void *info)
{
    TRACE("B: accepted, address %s", family_name(address));
    unix_conn = RLSocketCreateWithNative(NULL, *(const int *)data, kRLSocketDataCallBack, server_data, NULL);
    add(unix_conn);
}

static char pair_got[64];
static void pair_data(RLSocketRef s, RLSocketCallBackType type, RLDataRef address, const void *data, void *info)
{
    RLDataRef d = (RLDataRef)data;
    snprintf(pair_got, sizeof pair_got, "%.*s", (int)RLDataGetLength(d), (const char *)RLDataGetBytePtr(d));
    TRACE("B: pair end %s got \"%s\" (address %s)", (const char *)info, pair_got, family_name(address));
    RLRunLoopStop(RLRunLoopGetCurrent());
}

static void unix_domain(void)
{
    char path[108];
    snprintf(path, sizeof path, "/tmp/rl_socket_test.%d", (int)getpid());
    unlink(path);
    struct sockaddr_un sun;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    memcpy(sun.sun_path, path, strlen(path) + 1);
    RLDataRef address = data_of(&sun, sizeof sun);

    RLSocketRef listener = RLSocketCreate(NULL, PF_UNIX, 0, 0, kRLSocketAcceptCallBack, unix_accept, NULL);
    TRACE("B: SetAddress: %d", (int)RLSocketSetAddress(listener, address));
    add(listener);
    RLSocketRef client = RLSocketCreate(NULL, PF_UNIX, SOCK_STREAM, 0, kRLSocketDataCallBack, client_cb, NULL);
    TRACE("B: blocking connect with timeout: %d", (int)RLSocketConnectToAddress(client, address, 1.0));
    int flags = fcntl(RLSocketGetNative(client), F_GETFL);
    TRACE("B: still blocking afterwards: %s", yes_no((flags & O_NONBLOCK) == 0));
    add_ordered(client, 1);
    RLDataRef ping = str_data("ping");
    CHECK(RLSocketSendData(client, NULL, ping, 0) == kRLSocketSuccess);
    RLRelease(ping);
    echo_done = 0;
    RLRunLoopRunResult r = RLRunLoopRunInMode(M, 5.0, 0);
    TRACE("B: run: %s, echoed: %s", result_name(r), yes_no(echo_done));
    RLSocketInvalidate(client);
    RLRelease(client);
    RLSocketInvalidate(unix_conn);
    RLRelease(unix_conn);
    RLSocketInvalidate(listener);
    RLRelease(listener);
    RLRelease(address);
    unlink(path);

    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    RLSocketContext ca = { 0, (void *)"a", NULL, NULL, NULL }, cb = { 0, (void *)"b", NULL, NULL, NULL };
    RLSocketRef a = RLSocketCreateWithNative(NULL, sv[0], kRLSocketDataCallBack, pair_data, &ca);
    RLSocketRef b = RLSocketCreateWithNative(NULL, sv[1], kRLSocketDataCallBack, pair_data, &cb);
    add(a);
    add(b);
    RLDataRef msg = str_data("to b");
    CHECK(RLSocketSendData(a, NULL, msg, 0) == kRLSocketSuccess);
    RLRelease(msg);
    TRACE("B: run: %s", result_name(RLRunLoopRunInMode(M, 5.0, 0)));
    msg = str_data("to a");
    CHECK(RLSocketSendData(b, NULL, msg, 0) == kRLSocketSuccess);
    RLRelease(msg);
    TRACE("B: run: %s", result_name(RLRunLoopRunInMode(M, 5.0, 0)));
    RLSocketInvalidate(a);
    RLSocketInvalidate(b);
    RLRelease(a);
    RLRelease(b);
}

/* ---- C: flags and properties -------------------------------------------------- */

static int releases;
static void count_release(const void *info) { releases++; }
static const void *same(const void *info) { return info; }
static void quiet(RLSocketRef s, RLSocketCallBackType t, RLDataRef a, const void *d, void *i) {}

/* RLCopyDescription names the socket's type, validity and callback types
 * (its address and descriptor number are not traced). */
static void describe_socket(const char *when, RLSocketRef s)
{
    char *d = RLCopyDescription(s);
    TRACE("C: description when %s: RLSocket %s, valid = Yes %s, valid = No %s, callback types = 0x1 %s", when,
          yes_no(d && strncmp(d, "<RLSocket 0x", 12) == 0), yes_no(d && strstr(d, "valid = Yes")),
          yes_no(d && strstr(d, "valid = No")), yes_no(d && strstr(d, "callback types = 0x1")));
    free(d);
}

static void flags_and_properties(void)
{
    static const RLOptionFlags types[] = {
        kRLSocketNoCallBack, kRLSocketReadCallBack, kRLSocketAcceptCallBack, kRLSocketDataCallBack,
        kRLSocketReadCallBack | kRLSocketConnectCallBack | kRLSocketWriteCallBack,
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        RLSocketRef s = RLSocketCreate(NULL, 0, 0, 0, types[i], quiet, NULL);
        TRACE("C: types 0x%lx: flags 0x%lx", (unsigned long)types[i], (unsigned long)RLSocketGetSocketFlags(s));
        RLSocketInvalidate(s);
        RLRelease(s);
    }
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    RLSocketContext ctx = { 0, (void *)"info", same, count_release, NULL };
    releases = 0;
    RLSocketRef s = RLSocketCreateWithNative(NULL, sv[0], kRLSocketReadCallBack, quiet, &ctx);
    RLSocketRef again = RLSocketCreateWithNative(NULL, sv[0], kRLSocketDataCallBack, NULL, NULL);
    TRACE("C: CreateWithNative of a wrapped descriptor gives the same socket: %s", yes_no(s == again));
    RLRelease(again);
    RLSocketSetSocketFlags(s, kRLSocketAutomaticallyReenableReadCallBack);
    TRACE("C: flags after Set: 0x%lx", (unsigned long)RLSocketGetSocketFlags(s));
    TRACE("C: native is the descriptor: %s", yes_no(RLSocketGetNative(s) == sv[0]));
    describe_socket("valid", s);
    RLSocketContext got;
    memset(&got, 0, sizeof got);
    RLSocketGetContext(s, &got);
    TRACE("C: context info \"%s\", release kept: %s", (const char *)got.info, yes_no(got.release == count_release));
    RLRunLoopSourceRef s1 = RLSocketCreateRunLoopSource(NULL, s, 3), s2 = RLSocketCreateRunLoopSource(NULL, s, 3);
    TRACE("C: one source per socket: %s, order %ld", yes_no(s1 == s2), (long)RLRunLoopSourceGetOrder(s1));
    RLSocketInvalidate(s);
    RLSocketGetContext(s, &got);
    errno = 0;
    TRACE("C: invalid: native %d, context info %s, releases %d, source valid %s, descriptor still open %s",
          RLSocketGetNative(s), got.info ? "set" : "NULL", releases, yes_no(RLRunLoopSourceIsValid(s1)),
          yes_no(fcntl(sv[0], F_GETFD) != -1));
    TRACE("C: no source once invalid: %s", yes_no(RLSocketCreateRunLoopSource(NULL, s, 0) == NULL));
    describe_socket("invalid", s);
    RLRelease(s1);
    RLRelease(s2);
    RLRelease(s);
    TRACE("C: releases after the last RLRelease: %d", releases);

    /* close-on-invalidate is the default; releasing a valid socket invalidates it */
    RLSocketRef t = RLSocketCreateWithNative(NULL, sv[1], kRLSocketReadCallBack, quiet, NULL);
    RLRelease(t);
    errno = 0;
    TRACE("C: released while valid: descriptor closed %s", yes_no(fcntl(sv[1], F_GETFD) == -1 && errno == EBADF));
    close(sv[0]);
}

/* ---- D: re-enable ------------------------------------------------------------- */

static int reads, writes;
static void counting(RLSocketRef s, RLSocketCallBackType type, RLDataRef a, const void *d, void *i)
{
    if (type == kRLSocketReadCallBack) reads++;
    if (type == kRLSocketWriteCallBack) writes++;
}

static void passes(int n)
{
    for (int i = 0; i < n; i++) RLRunLoopRunInMode(M, 0.01, 1);
}

static void reenable(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK(write(sv[1], "x", 1) == 1);
    RLSocketRef s = RLSocketCreateWithNative(NULL, sv[0], kRLSocketReadCallBack | kRLSocketWriteCallBack, counting, NULL);
    RLSocketDisableCallBacks(s, kRLSocketReadCallBack);  /* before scheduling: no effect (as in CF) */
    add(s);
    reads = writes = 0;
    passes(5);
    TRACE("D: default flags, readable, 5 passes: %d reads, %d writes", reads, writes);
    RLSocketSetSocketFlags(s, kRLSocketCloseOnInvalidate);
    reads = writes = 0;
    passes(5);
    TRACE("D: no automatic re-enable, 5 passes: %d reads", reads);
    RLSocketEnableCallBacks(s, kRLSocketReadCallBack);
    passes(3);
    TRACE("D: enabled once more, 3 passes: %d reads in all", reads);
    RLSocketSetSocketFlags(s, kRLSocketAutomaticallyReenableReadCallBack | kRLSocketAutomaticallyReenableWriteCallBack |
                              kRLSocketCloseOnInvalidate);
    RLSocketEnableCallBacks(s, kRLSocketReadCallBack | kRLSocketWriteCallBack);
    RLSocketDisableCallBacks(s, kRLSocketReadCallBack);
    reads = writes = 0;
    passes(4);
    TRACE("D: read disabled, write re-enabling, 4 passes: %d reads, %d writes", reads, writes);
    RLSocketDisableCallBacks(s, kRLSocketWriteCallBack);
    RLSocketEnableCallBacks(s, kRLSocketReadCallBack);
    reads = writes = 0;
    passes(4);
    TRACE("D: write disabled, read enabled, 4 passes: %d reads, %d writes", reads, writes);
    RLSocketInvalidate(s);
    RLRelease(s);
    close(sv[1]);
}

/* ---- E: connect failures, datagrams --------------------------------------------- */

static void connect_cb(RLSocketRef s, RLSocketCallBackType type, RLDataRef a, const void *d, void *i)
{
    if (type == kRLSocketConnectCallBack)
        TRACE("E: connect callback: %s", d ? (*(const int32_t *)d == ECONNREFUSED ? "ECONNREFUSED" : "other error") : "no error");
    else
        TRACE("E: callback type %lu", (unsigned long)type);
    RLRunLoopStop(RLRunLoopGetCurrent());
}

static char dgram_got[32];
static void dgram_cb(RLSocketRef s, RLSocketCallBackType type, RLDataRef a, const void *d, void *i)
{
    RLDataRef data = (RLDataRef)d;
    snprintf(dgram_got, sizeof dgram_got, "%.*s", (int)RLDataGetLength(data), (const char *)RLDataGetBytePtr(data));
    TRACE("E: datagram \"%s\" from %s", dgram_got, family_name(a));
    RLRunLoopStop(RLRunLoopGetCurrent());
}

static void failures_and_datagrams(void)
{
    /* a port nobody listens on: bind one, read its number, close it */
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sin;
    CHECK(bind(probe, (struct sockaddr *)&sin, sizeof sin) == 0);
    CHECK(getsockname(probe, (struct sockaddr *)&sin, &len) == 0);
    close(probe);
    RLDataRef closed = data_of(&sin, sizeof sin);

    RLSocketRef c = RLSocketCreate(NULL, PF_INET, SOCK_STREAM, 0,
                                   kRLSocketConnectCallBack | kRLSocketWriteCallBack, connect_cb, NULL);
    TRACE("E: background connect to a closed port: %d", (int)RLSocketConnectToAddress(c, closed, -1));
    add(c);
    TRACE("E: run: %s", result_name(RLRunLoopRunInMode(M, 5.0, 0)));
    RLRunLoopRunInMode(M, 0.05, 1);  /* no write callback follows */
    RLSocketInvalidate(c);
    RLRelease(c);

    /* kRLSocketLeaveErrors: the library does not read SO_ERROR, so the
     * callout sees "no error" (and the write callback follows); the error
     * is still there for the program to read. */
    c = RLSocketCreate(NULL, PF_INET, SOCK_STREAM, 0, kRLSocketConnectCallBack | kRLSocketWriteCallBack,
                       connect_cb, NULL);
    RLSocketSetSocketFlags(c, kRLSocketLeaveErrors | kRLSocketCloseOnInvalidate);
    TRACE("E: leave errors, background connect to a closed port: %d", (int)RLSocketConnectToAddress(c, closed, -1));
    add(c);
    RLRunLoopRunInMode(M, 5.0, 0);
    RLRunLoopRunInMode(M, 0.2, 1);  /* the write callback of the same round already ran */
    int soerr = 0;
    socklen_t soerr_len = sizeof soerr;
    getsockopt(RLSocketGetNative(c), SOL_SOCKET, SO_ERROR, &soerr, &soerr_len);
    TRACE("E: SO_ERROR left for the program: %s", soerr == ECONNREFUSED ? "ECONNREFUSED" : "other");
    RLSocketInvalidate(c);
    RLRelease(c);

    c = RLSocketCreate(NULL, PF_INET, SOCK_STREAM, 0, kRLSocketNoCallBack, NULL, NULL);
    errno = 0;
    RLSocketError e = RLSocketConnectToAddress(c, closed, 0);
    TRACE("E: blocking connect to a closed port: %d, errno ECONNREFUSED: %s", (int)e, yes_no(errno == ECONNREFUSED));
    RLSocketInvalidate(c);
    RLRelease(c);
    RLRelease(closed);

    RLSocketRef rx = RLSocketCreate(NULL, PF_INET, SOCK_DGRAM, 0, kRLSocketDataCallBack, dgram_cb, NULL);
    RLDataRef any = loopback(AF_INET, 0);
    TRACE("E: datagram SetAddress: %d", (int)RLSocketSetAddress(rx, any));
    RLRelease(any);
    RLDataRef where = RLSocketCopyAddress(rx);
    add(rx);
    RLSocketRef tx = RLSocketCreate(NULL, PF_INET, SOCK_DGRAM, IPPROTO_UDP, kRLSocketNoCallBack, NULL, NULL);
    RLDataRef msg = str_data("datagram");
    TRACE("E: SendData to an address: %d", (int)RLSocketSendData(tx, where, msg, 1.0));
    TRACE("E: run: %s", result_name(RLRunLoopRunInMode(M, 5.0, 0)));
    RLRelease(msg);
    RLRelease(where);
    RLSocketInvalidate(tx);
    RLRelease(tx);
    RLSocketInvalidate(rx);
    RLRelease(rx);
}

/* ---- F: a bulk transfer from another thread ------------------------------------ */

enum { BULK = 1 << 20 };
static size_t bulk_got, bulk_chunks, bulk_largest;
static uint32_t bulk_sum;
static void bulk_data(RLSocketRef s, RLSocketCallBackType type, RLDataRef a, const void *d, void *i)
{
    RLDataRef data = (RLDataRef)d;
    size_t n = (size_t)RLDataGetLength(data);
    const uint8_t *p = RLDataGetBytePtr(data);
    for (size_t k = 0; k < n; k++) bulk_sum = bulk_sum * 31 + p[k];
    bulk_got += n;
    bulk_chunks++;
    if (n > bulk_largest) bulk_largest = n;
    if (bulk_got == BULK) RLRunLoopStop(RLRunLoopGetCurrent());
}

static void *bulk_sender(void *arg)
{
    uint8_t *buf = malloc(BULK);
    for (size_t k = 0; k < BULK; k++) buf[k] = (uint8_t)(k * 7 + 3);
    RLDataRef d = data_of(buf, BULK);
    free(buf);
    CHECK(RLSocketSendData((RLSocketRef)arg, NULL, d, 30.0) == kRLSocketSuccess);
    RLRelease(d);
    return NULL;
}

static void bulk_transfer(void)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    RLSocketRef rx = RLSocketCreateWithNative(NULL, sv[0], kRLSocketDataCallBack, bulk_data, NULL);
    RLSocketRef tx = RLSocketCreateWithNative(NULL, sv[1], kRLSocketNoCallBack, NULL, NULL);
    add(rx);
    pthread_t t = start_thread(bulk_sender, tx);
    RLRunLoopRunResult r = RLRunLoopRunInMode(M, 30.0, 0);
    pthread_join(t, NULL);
    uint32_t want = 0;
    for (size_t k = 0; k < BULK; k++) want = want * 31 + (uint8_t)(k * 7 + 3);
    TRACE("F: 1 MiB from another thread: %s, all bytes in order: %s, chunks of at most 32 KiB: %s", result_name(r),
          yes_no(bulk_got == BULK && bulk_sum == want), yes_no(bulk_largest <= 32768 && bulk_chunks >= 32));
    RLSocketInvalidate(rx);
    RLSocketInvalidate(tx);
    RLRelease(rx);
    RLRelease(tx);
}

static void scenario(void)
{
    echo_over(AF_INET);
    echo_over(AF_INET6);
    unix_domain();
    flags_and_properties();
    reenable();
    failures_and_datagrams();
    bulk_transfer();
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_socket_basic") | harness_failures;
}
