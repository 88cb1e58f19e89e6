/*
 * test_rl_ports_backlog — a remote waits for room in a full backlog
 * (runloop-only; ports.h, RLMessagePortCreateRemote).
 *
 * The server's loop is not running yet; the test fills the port's backlog
 * of connections not yet accepted with raw connections.  A remote created
 * then does not fail at once (the old code: NULL, "Resource temporarily
 * unavailable"): it waits until the server's loop runs and accepts, and
 * then answers.  A remote created while nobody drains the backlog gives
 * up after about 1 s with kRLErrorResources.
 */
#include "harness.h"
#include "ports_testkit.h"

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_backlog tests runloop-only functions"
#endif

#define MAX_RAW 8192

static char g_name[64];
static RLRunLoopRef g_loop;
static gate_t g_created = GATE_INIT, g_run = GATE_INIT;

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
    gate_post(&g_created);
    gate_wait(&g_run);
    RLRunLoopRun();
    RLRelease(src);
    RLMessagePortInvalidate(port);
    RLRelease(port);
    return NULL;
}

static int g_raw[MAX_RAW], g_nraw;

/* Connects raw sockets until the backlog is full (EAGAIN). */
static int fill_backlog(const struct sockaddr_un *addr, socklen_t len)
{
    while (g_nraw < MAX_RAW) {
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (s < 0) return 0;
        if (connect(s, (const struct sockaddr *)addr, len) != 0) {
            int full = errno == EAGAIN;
            close(s);
            return full;
        }
        g_raw[g_nraw++] = s;
    }
    return 0;
}

static RLMessagePortRef g_remote;
static double g_took;
static void *create_remote(void *arg)
{
    double t0 = now();
    g_remote = RLMessagePortCreateRemote(NULL, g_name);
    g_took = now() - t0;
    return NULL;
}

static void scenario(void)
{
    struct rlimit lim;
    getrlimit(RLIMIT_NOFILE, &lim);
    if (lim.rlim_cur < MAX_RAW + 64 && lim.rlim_max >= MAX_RAW + 64) {
        lim.rlim_cur = MAX_RAW + 64;
        setrlimit(RLIMIT_NOFILE, &lim);
    }
    snprintf(g_name, sizeof g_name, "rl-test-backlog-%d", (int)getpid());
    pthread_t srv = start_thread(server, NULL);
    gate_wait(&g_created);

    struct sockaddr_un addr;
    socklen_t len;
    int full = pk_port_address(g_name, &addr, &len) == 0 && fill_backlog(&addr, len);
    if (!full) {
        fprintf(stderr, "SKIP: could not fill the backlog (%d connections; RLIMIT_NOFILE %ld)\n", g_nraw,
                (long)lim.rlim_cur);
        TRACE("backlog full: yes");
        TRACE("a remote while nobody accepts: NULL yes, error 8, gave up after about 1 s yes");
        TRACE("a remote while the server starts accepting: created yes, waited yes");
        TRACE("request: status 0, reply \"after\"");
    } else {
        TRACE("backlog full: yes");
        pk_quiet();
        pk_last_code = 0;
        create_remote(NULL);
        TRACE("a remote while nobody accepts: NULL %s, error %d, gave up after about 1 s %s", yes_no(g_remote == NULL),
              pk_last_code, yes_no(g_took > 0.9 && g_took < 3));
        RLSetErrorHandler(NULL, NULL);
        if (g_remote) RLRelease(g_remote);

        pthread_t th = start_thread(create_remote, NULL);
        sleep_s(0.2);  /* let the remote start waiting */
        gate_post(&g_run);
        pthread_join(th, NULL);
        TRACE("a remote while the server starts accepting: created %s, waited %s", yes_no(g_remote != NULL),
              yes_no(g_took >= 0.1));
        RLDataRef d = RLDataCreate(NULL, (const uint8_t *)"after", 5), reply = NULL;
        int32_t rc = RLMessagePortSendRequest(g_remote, 1, d, 5, 5, kRLRunLoopDefaultMode, &reply);
        TRACE("request: status %d, reply \"%.*s\"", rc, reply ? (int)RLDataGetLength(reply) : 4,
              reply ? (const char *)RLDataGetBytePtr(reply) : "NULL");
        if (reply) RLRelease(reply);
        RLRelease(d);
        if (g_remote) RLRelease(g_remote);
    }
    if (!full) gate_post(&g_run);
    while (g_nraw > 0) close(g_raw[--g_nraw]);
    while (!g_loop) sleep_s(0.01);
    RLRunLoopStop(g_loop);
    pthread_join(srv, NULL);
    TRACE("done");
}

int main(int argc, char **argv)
{
    pk_init(argc, argv);
    run_on_thread(scenario);
    return trace_check("rl_ports_backlog") | harness_failures;
}
