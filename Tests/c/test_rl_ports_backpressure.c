/*
 * test_rl_ports_backpressure — a peer that does not read its replies
 * (runloop-only; ports.h "Trust model": a connection's backlog is bounded).
 *
 * The server (a thread of this process) echoes each request's 64 KiB.  A
 * client process writes up to 96 MiB of requests with raw syscalls and
 * never reads a reply.  The server stops reading that connection once its
 * backlog reaches the limit, so:
 *   - the client's writes stall long before 96 MiB are taken;
 *   - the server's RSS grows by less than 32 MiB (the old code read
 *     everything and queued every reply: +96 MiB and more);
 *   - once the client is gone, the port answers another remote.
 */
#include "harness.h"
#include "ports_testkit.h"

#include <poll.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_backpressure tests runloop-only functions"
#endif

#define PAYLOAD (64 * 1024)
#define TOTAL (96L << 20)

/* ---- the client process ------------------------------------------------ */

static int flood_requests(const char *name, const char *fdtext)
{
    int ctl = atoi(fdtext);
    struct sockaddr_un addr;
    socklen_t len;
    if (pk_port_address(name, &addr, &len) != 0) return 3;
    int s = pk_connect(&addr, len);
    if (s < 0) return 4;
    fcntl(s, F_SETFL, O_NONBLOCK);
    static uint8_t frame[20 + PAYLOAD], payload[PAYLOAD];
    memset(payload, 0xab, sizeof payload);
    long written = 0;
    uint32_t seq = 0;
    int stalled = 0;
    while (written < TOTAL && !stalled) {
        size_t n = pk_frame(frame, 1 /* request */, 7, ++seq, payload, PAYLOAD), off = 0;
        while (off < n) {
            ssize_t w = send(s, frame + off, n - off, MSG_NOSIGNAL);
            if (w > 0) { off += (size_t)w; written += w; continue; }
            if (w < 0 && errno == EINTR) continue;
            if (w < 0 && errno == EAGAIN) {
                struct pollfd p = { s, POLLOUT, 0 };
                if (poll(&p, 1, 1000) == 0) { stalled = 1; break; }
                continue;
            }
            return 5;
        }
    }
    char line[64];
    int k = snprintf(line, sizeof line, "%ld\n", written);
    if (write(ctl, line, (size_t)k) != k) return 6;
    char c;
    if (read(ctl, &c, 1) != 1) return 7;  /* keep the connection until told */
    close(s);
    return 0;
}

/* ---- the server thread -------------------------------------------------- */

static RLRunLoopRef g_loop;
static gate_t g_ready = GATE_INIT;
static char g_name[64];

static RLDataRef echo(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    return data ? (RLDataRef)RLRetain(data) : NULL;
}

static void *server(void *arg)
{
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, g_name, echo, &ctx, NULL);
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, port, 0);
    g_loop = RLRunLoopGetCurrent();
    RLRunLoopAddSource(g_loop, src, kRLRunLoopDefaultMode);
    gate_post(&g_ready);
    RLRunLoopRun();
    RLRelease(src);
    RLMessagePortInvalidate(port);
    RLRelease(port);
    return NULL;
}

static void scenario(void)
{
    snprintf(g_name, sizeof g_name, "rl-test-backpressure-%d", (int)getpid());
    pthread_t th = start_thread(server, NULL);
    gate_wait(&g_ready);
    long rss0 = pk_rss();

    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0) { perror("socketpair"); exit(2); }
    char fdtext[16];
    snprintf(fdtext, sizeof fdtext, "%d", sp[1]);
    pid_t child = pk_spawn("client", g_name, fdtext, NULL);
    close(sp[1]);
    char line[64] = { 0 };
    ssize_t n = read(sp[0], line, sizeof line - 1);
    long written = n > 0 ? atol(line) : -1;
    long grown = pk_rss() - rss0;
    fprintf(stderr, "client wrote %.1f MiB before stalling; server RSS grew %.1f MiB\n",
            written / 1048576.0, grown / 1048576.0);
    TRACE("the client stalled before writing everything: %s", yes_no(written >= 0 && written < TOTAL));
    if (!getenv("RL_UNDER_VALGRIND")) CHECK(grown < (32L << 20));
    if (write(sp[0], "x", 1) != 1) exit(2);
    TRACE("client exit status %d", pk_status(child));
    close(sp[0]);

    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, g_name);
    RLDataRef d = RLDataCreate(NULL, (const uint8_t *)"after", 5), reply = NULL;
    int32_t rc = RLMessagePortSendRequest(remote, 1, d, 5, 5, kRLRunLoopDefaultMode, &reply);
    TRACE("another remote: status %d, reply \"%.*s\"", rc, reply ? (int)RLDataGetLength(reply) : 4,
          reply ? (const char *)RLDataGetBytePtr(reply) : "NULL");
    if (reply) RLRelease(reply);
    RLRelease(d);
    RLRelease(remote);
    RLRunLoopStop(g_loop);
    pthread_join(th, NULL);
    TRACE("done");
}

int main(int argc, char **argv)
{
    pk_init(argc, argv);
    if (argc == 4 && strcmp(argv[1], "client") == 0) return flood_requests(argv[2], argv[3]);
    run_on_thread(scenario);
    return trace_check("rl_ports_backpressure") | harness_failures;
}
