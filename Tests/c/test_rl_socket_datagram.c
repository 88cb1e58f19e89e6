/*
 * test_rl_socket_datagram — zero bytes on a datagram socket are a message,
 * not the end of a stream (runloop-only trace; the CF-compared twin is
 * Tests/conformance/sc_socket_empty_datagram.c):
 *   A. UDP over IPv4 loopback: an empty datagram reaches the data callout
 *      as zero-length data with the sender's address; the socket stays
 *      valid and the next datagram is delivered.  Repeated: a peer sending
 *      only empty datagrams cannot end the socket.
 *   B. A Unix-domain datagram socketpair: the same; the peer closing its
 *      end ends nothing either (a datagram socket has no stream to end).
 *   C. A SOCK_SEQPACKET socketpair is a connection: a record is delivered,
 *      and when the peer closes, the callout gets zero-length data once and
 *      the socket is invalidated (no callout per pass at the end).
 */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define M "sock.datagram"

static int g_count;
static int g_empty;
static uint16_t g_sender_port;

static uint16_t port_of(RLDataRef address)
{
    if (!address || RLDataGetLength(address) < (RLIndex)sizeof(struct sockaddr_in)) return 0;
    return ntohs(((const struct sockaddr_in *)RLDataGetBytePtr(address))->sin_port);
}

static void on_data(RLSocketRef s, RLSocketCallBackType type, RLDataRef address, const void *data, void *info)
{
    RLDataRef d = (RLDataRef)data;
    RLIndex n = RLDataGetLength(d);
    g_count++;
    if (n == 0) g_empty++;
    /* Only the first few are traced: a repeated callout is a failure the
     * count shows. */
    if (g_count <= 8)
        TRACE("%s: data %d, type %d, length %ld \"%.*s\"%s, valid in the callout: %s", (const char *)info, g_count,
              (int)type, (long)n, (int)n, n ? (const char *)RLDataGetBytePtr(d) : "",
              g_sender_port ? (port_of(address) == g_sender_port ? ", from the sender" : ", from elsewhere") : "",
              yes_no(RLSocketIsValid(s)));
}

/* Runs M a pass at a time until `count` callouts came or 10 s went by. */
static void run_until(int count)
{
    double end = now() + 10.0;
    while (g_count < count && now() < end) RLRunLoopRunInMode(M, 0.5, true);
}

static RLSocketRef wrap(int fd, const char *label)
{
    RLSocketContext ctx = { 0, (void *)label, NULL, NULL, NULL };
    RLSocketRef s = RLSocketCreateWithNative(NULL, fd, kRLSocketDataCallBack, on_data, &ctx);
    CHECK(s != NULL);
    RLRunLoopSourceRef src = RLSocketCreateRunLoopSource(NULL, s, 0);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), src, M);
    RLRelease(src);
    return s;
}

static void drop(RLSocketRef s)
{
    RLSocketInvalidate(s);
    RLRelease(s);
}

/* ---- A: UDP ------------------------------------------------------------- */

static void udp(void)
{
    TRACE("A: UDP");
    int rxfd = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in rxa, txa;
    socklen_t len = sizeof rxa;
    memset(&rxa, 0, sizeof rxa);
    rxa.sin_family = AF_INET;
    rxa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    txa = rxa;
    CHECK(bind(rxfd, (struct sockaddr *)&rxa, sizeof rxa) == 0);
    CHECK(getsockname(rxfd, (struct sockaddr *)&rxa, &len) == 0);
    len = sizeof txa;
    CHECK(bind(tx, (struct sockaddr *)&txa, sizeof txa) == 0);
    CHECK(getsockname(tx, (struct sockaddr *)&txa, &len) == 0);
    g_sender_port = ntohs(txa.sin_port);
    g_count = g_empty = 0;
    RLSocketRef rx = wrap(rxfd, "udp");

    TRACE("empty datagram sent: %s", yes_no(sendto(tx, "", 0, 0, (struct sockaddr *)&rxa, sizeof rxa) == 0));
    run_until(1);
    TRACE("valid after it: %s", yes_no(RLSocketIsValid(rx)));
    TRACE("\"after\" sent: %s", yes_no(sendto(tx, "after", 5, 0, (struct sockaddr *)&rxa, sizeof rxa) == 5));
    run_until(2);
    TRACE("both delivered: %s, valid: %s", yes_no(g_count == 2), yes_no(RLSocketIsValid(rx)));

    /* Ten empty datagrams, then one with bytes: eleven callouts. */
    int sent = 0;
    for (int i = 0; i < 10; i++) sent += sendto(tx, "", 0, 0, (struct sockaddr *)&rxa, sizeof rxa) == 0;
    sent += sendto(tx, "last", 4, 0, (struct sockaddr *)&rxa, sizeof rxa) == 4;
    run_until(13);
    TRACE("11 more sent: %s; delivered %d, empty %d, valid: %s", yes_no(sent == 11), g_count, g_empty,
          yes_no(RLSocketIsValid(rx)));
    close(tx);
    drop(rx);
    g_sender_port = 0;
}

/* ---- B: a Unix-domain datagram socketpair ------------------------------- */

static void unix_datagram(void)
{
    TRACE("B: Unix datagram");
    int sp[2];
    CHECK(socketpair(AF_UNIX, SOCK_DGRAM, 0, sp) == 0);
    g_count = g_empty = 0;
    RLSocketRef rx = wrap(sp[0], "unix dgram");
    TRACE("empty datagram sent: %s", yes_no(send(sp[1], "", 0, 0) == 0));
    run_until(1);
    TRACE("\"x\" sent: %s", yes_no(send(sp[1], "x", 1, 0) == 1));
    run_until(2);
    TRACE("both delivered: %s, valid: %s", yes_no(g_count == 2), yes_no(RLSocketIsValid(rx)));
    close(sp[1]);
    RLRunLoopRunInMode(M, 0.05, false);
    TRACE("peer closed: callouts %d, valid: %s", g_count, yes_no(RLSocketIsValid(rx)));
    drop(rx);
}

/* ---- C: SOCK_SEQPACKET, a connection ------------------------------------ */

static void seqpacket(void)
{
    TRACE("C: Unix seqpacket");
    int sp[2];
    CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp) == 0);
    g_count = g_empty = 0;
    RLSocketRef rx = wrap(sp[0], "seqpacket");
    TRACE("record sent: %s", yes_no(send(sp[1], "rec", 3, 0) == 3));
    run_until(1);
    close(sp[1]);
    run_until(2);
    /* A few more passes: an ended socket left valid would call out in each. */
    for (int i = 0; i < 5; i++) RLRunLoopRunInMode(M, 0.01, false);
    TRACE("peer closed: callouts %d, valid: %s", g_count, yes_no(RLSocketIsValid(rx)));
    CHECK(g_count == 2);
    drop(rx);
}

static void scenario(void)
{
    udp();
    unix_datagram();
    seqpacket();
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_socket_datagram") | harness_failures;
}
