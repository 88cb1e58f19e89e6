/*
 * test_rl_ports_flood — a connect/close flood does not starve the loop
 * serving a message port (runloop-only; ports.h "Trust model").
 *
 * The server runs on its own thread: a named local port and a 10 ms
 * repeating timer in one loop.  Two flooder processes connect and close as
 * fast as they can for 1.5 s:
 *   - same user: each connection is accepted, then seen closing;
 *   - another user (as root, a child that drops to uid 65534; skipped with
 *     a message otherwise): refused by the uid check, or unable to connect.
 * Accepting is bounded per pass, so the timer keeps firing during each
 * flood (at least 30 of the ideal 150 fires: a bound, not a rate), and the
 * port answers a request afterwards.
 */
#include "harness.h"
#include "ports_testkit.h"

#include <stdatomic.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_flood tests runloop-only functions"
#endif

#define FLOOD_SECONDS 1.5

/* ---- a flooder process ------------------------------------------------- */

static int flood(const char *name, const char *as_other)
{
    pk_quiet();
    struct sockaddr_un addr;
    socklen_t len;
    if (pk_port_address(name, &addr, &len) != 0) return 3;
    if (atoi(as_other) && pk_become(65534) != 0) return 4;
    double end = now() + FLOOD_SECONDS;
    long n = 0;
    while (now() < end) {
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (s < 0) return 5;
        if (connect(s, (struct sockaddr *)&addr, len) == 0) n++;
        close(s);
    }
    return 0;
}

/* ---- the server thread ------------------------------------------------- */

static atomic_int g_fires;
static RLRunLoopRef g_server_loop;
static gate_t g_server_ready = GATE_INIT;
static char g_name[64];

static void tick(RLRunLoopTimerRef t, void *info) { atomic_fetch_add(&g_fires, 1); }

static RLDataRef echo_callout(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    return data ? (RLDataRef)RLRetain(data) : NULL;
}

static void *server(void *arg)
{
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, g_name, echo_callout, &ctx, NULL);
    CHECK(port != NULL);
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, port, 0);
    g_server_loop = RLRunLoopGetCurrent();
    RLRunLoopAddSource(g_server_loop, src, kRLRunLoopDefaultMode);
    RLRunLoopTimerRef timer = RLRunLoopTimerCreate(NULL, now() + 0.01, 0.01, 0, 0, tick, NULL);
    RLRunLoopAddTimer(g_server_loop, timer, kRLRunLoopDefaultMode);
    gate_post(&g_server_ready);
    RLRunLoopRun();
    RLRunLoopTimerInvalidate(timer);
    RLRelease(timer);
    RLRelease(src);
    RLMessagePortInvalidate(port);
    RLRelease(port);
    return NULL;
}

static void flood_round(const char *label, int as_other)
{
    char other[4];
    snprintf(other, sizeof other, "%d", as_other);
    int before = atomic_load(&g_fires);
    RLAbsoluteTime t0 = now();
    pid_t a = pk_spawn("flood", g_name, other, NULL);
    pid_t b = pk_spawn("flood", g_name, other, NULL);
    int sa = pk_status(a), sb = pk_status(b);
    double took = now() - t0;
    int fires = atomic_load(&g_fires) - before;
    TRACE("%s: flooders exited %d %d", label, sa, sb);
    fprintf(stderr, "%s: the 10 ms timer fired %d times in %.2f s of flood\n", label, fires, took);
    CHECK(fires >= (getenv("RL_UNDER_VALGRIND") ? 5 : 30));

    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, g_name);
    RLDataRef d = RLDataCreate(NULL, (const uint8_t *)"ping", 4), reply = NULL;
    int32_t rc = RLMessagePortSendRequest(remote, 1, d, 5, 5, kRLRunLoopDefaultMode, &reply);
    TRACE("%s: then a request: status %d, reply \"%.*s\"", label, rc, reply ? (int)RLDataGetLength(reply) : 4,
          reply ? (const char *)RLDataGetBytePtr(reply) : "NULL");
    if (reply) RLRelease(reply);
    RLRelease(d);
    RLRelease(remote);
}

static void scenario(void)
{
    snprintf(g_name, sizeof g_name, "rl-test-flood-%d", (int)getpid());
    pthread_t th = start_thread(server, NULL);
    gate_wait(&g_server_ready);

    flood_round("same user", 0);
    if (geteuid() == 0) {
        flood_round("other user", 1);
    } else {
        fprintf(stderr, "SKIP other user: needs root to drop to uid 65534\n");
        TRACE("other user: flooders exited 0 0");
        TRACE("other user: then a request: status 0, reply \"ping\"");
    }
    RLRunLoopStop(g_server_loop);
    pthread_join(th, NULL);
    TRACE("done");
}

int main(int argc, char **argv)
{
    pk_init(argc, argv);
    if (argc == 4 && strcmp(argv[1], "flood") == 0) return flood(argv[2], argv[3]);
    run_on_thread(scenario);
    return trace_check("rl_ports_flood") | harness_failures;
}
