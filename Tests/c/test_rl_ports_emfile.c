/*
 * test_rl_ports_emfile — a message port in a process out of descriptors
 * (runloop-only; ports.h "Trust model").
 *
 * A server process (a copy of this program) serves a named port on a
 * thread, lowers RLIMIT_NOFILE and fills every free descriptor, then:
 *   - creating another local port, or a remote, fails with
 *     kRLErrorResources (not kRLErrorInvalidArgument); so do RLThreadCreate,
 *     the first run of a new thread's loop, RLRunLoopTraceStart and
 *     RLSocketCreate;
 *   - the parent connects three remotes (they wait in the backlog: the
 *     server cannot accept them); the server's loop runs 0.5 s.  Accepting
 *     backs off instead of spinning on the ever-readable listener: the
 *     loop makes few passes (fewer than 200; the old code made ~100,000),
 *     and reports kRLErrorResources once;
 *   - the server frees a few descriptors: the pending connections are
 *     accepted (after at most the back-off) and a request is answered.
 */
#include "harness.h"
#include "ports_testkit.h"

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_emfile tests runloop-only functions"
#endif

/* ---- the server process ------------------------------------------------ */

static int g_ctl = -1;
static const char *g_name;
static long g_passes;
static int g_served;

static void count_pass(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) { g_passes++; }

static RLDataRef answer(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    g_served++;
    RLRunLoopStop(RLRunLoopGetCurrent());
    return RLDataCreate(NULL, (const uint8_t *)"served", 6);
}

/* A thread's loop holds no descriptor until its first run (runloop.h):
 * getting it succeeds, and that run reports the shortage and returns
 * kRLRunLoopRunFinished at once. */
static int g_thread_loop_code = -1;
static void *new_thread_loop(void *arg)
{
    pk_last_code = 0;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    if (!rl) { g_thread_loop_code = 100 + pk_last_code; return NULL; }
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10, false);
    g_thread_loop_code = r == kRLRunLoopRunFinished ? pk_last_code : 200 + (int)r;
    return NULL;
}

static char ctl_read(void)
{
    char c = 0;
    while (read(g_ctl, &c, 1) < 0 && errno == EINTR) {}
    return c;
}

static void server_thread(void)
{
    pk_quiet();
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, g_name, answer, &ctx, NULL);
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, port, 0);
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopAddSource(rl, src, kRLRunLoopDefaultMode);
    RLRunLoopObserverRef obs = RLRunLoopObserverCreate(NULL, kRLRunLoopBeforeSources, 1, 0, count_pass, NULL);
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    /* One pass first: a loop makes its wait set at its first run, and this
     * loop must be able to run out of descriptors. */
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, false);

    /* Out of descriptors. */
    struct rlimit lim;
    getrlimit(RLIMIT_NOFILE, &lim);
    lim.rlim_cur = 256;
    setrlimit(RLIMIT_NOFILE, &lim);
    int fillers[256], nfill = 0;
    while (nfill < 256) {
        int fd = dup(g_ctl);
        if (fd < 0) break;
        fillers[nfill++] = fd;
    }
    pk_last_code = 0;
    RLMessagePortRef other = RLMessagePortCreateLocal(NULL, "rl-test-emfile-other", answer, &ctx, NULL);
    int local_code = pk_last_code;
    pk_last_code = 0;
    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, g_name);
    int remote_code = pk_last_code;
    pk_last_code = 0;
    RLThreadRef worker = RLThreadCreate("rl-emfile");
    int thread_code = worker ? 0 : pk_last_code;
    pthread_t th;
    if (pthread_create(&th, NULL, new_thread_loop, NULL) == 0) pthread_join(th, NULL);
    pk_last_code = 0;
    RLBoolean tracing = RLRunLoopTraceStart(rl, "/tmp/rl-test-emfile.json");
    int trace_code = tracing ? 0 : pk_last_code;
    if (tracing) RLRunLoopTraceStop(rl);
    pk_last_code = 0;
    RLSocketRef sock = RLSocketCreate(NULL, PF_UNIX, SOCK_STREAM, 0, 0, NULL, NULL);
    int socket_code = sock ? 0 : pk_last_code;
    if (sock) RLRelease(sock);

    if (write(g_ctl, "E", 1) != 1) _exit(10);
    ctl_read();  /* the parent's remotes wait in the backlog */
    pk_last_code = 0;
    g_passes = 0;
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.5, 0);
    long passes = g_passes;
    int accept_code = pk_last_code;

    for (int i = 0; i < 8 && nfill > 0; i++) close(fillers[--nfill]);
    if (write(g_ctl, "F", 1) != 1) _exit(11);
    for (int i = 0; i < 50 && !g_served; i++) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.1, 0);

    char line[256];
    int n = snprintf(line, sizeof line,
                     "local %s code %d, remote %s code %d, passes %ld, accept code %d, served %d, "
                     "thread %d loop %d trace %d socket %d\n",
                     other ? "created" : "NULL", local_code, remote ? "created" : "NULL", remote_code,
                     passes, accept_code, g_served, thread_code, g_thread_loop_code, trace_code, socket_code);
    if (write(g_ctl, line, (size_t)n) != n) _exit(12);
    while (nfill > 0) close(fillers[--nfill]);
    RLRunLoopRemoveObserver(rl, obs, kRLRunLoopDefaultMode);
    RLRelease(obs);
    RLRelease(src);
    RLMessagePortInvalidate(port);
    RLRelease(port);
}

static int serve(const char *name, const char *fd)
{
    g_name = name;
    g_ctl = atoi(fd);
    run_on_thread(server_thread);
    return 0;
}

/* ---- the parent -------------------------------------------------------- */

static void scenario(void)
{
    char name[64], fdtext[16];
    snprintf(name, sizeof name, "rl-test-emfile-%d", (int)getpid());
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0) { perror("socketpair"); exit(2); }
    snprintf(fdtext, sizeof fdtext, "%d", sp[1]);
    pid_t child = pk_spawn("serve", name, fdtext, NULL);
    close(sp[1]);
    char c = 0;
    TRACE("server out of descriptors: %s", yes_no(read(sp[0], &c, 1) == 1 && c == 'E'));

    RLMessagePortRef remotes[3];
    for (int i = 0; i < 3; i++) remotes[i] = RLMessagePortCreateRemote(NULL, name);
    TRACE("three remotes connected (pending): %s", yes_no(remotes[0] && remotes[1] && remotes[2]));
    if (write(sp[0], "C", 1) != 1) exit(2);
    TRACE("server freed descriptors: %s", yes_no(read(sp[0], &c, 1) == 1 && c == 'F'));

    RLDataRef reply = NULL;
    int32_t rc = RLMessagePortSendRequest(remotes[0], 1, NULL, 5, 5, kRLRunLoopDefaultMode, &reply);
    TRACE("request: status %d, reply \"%.*s\"", rc, reply ? (int)RLDataGetLength(reply) : 4,
          reply ? (const char *)RLDataGetBytePtr(reply) : "NULL");
    if (reply) RLRelease(reply);

    char line[256] = { 0 };
    size_t got = 0;
    while (got < sizeof line - 1) {
        ssize_t n = read(sp[0], line + got, sizeof line - 1 - got);
        if (n <= 0) break;
        got += (size_t)n;
        if (memchr(line, '\n', got)) break;
    }
    char local[16] = "", remote[16] = "";
    int local_code = -1, remote_code = -1, accept_code = -1, served = -1, thread_code = -1, loop_code = -1,
        trace_code = -1, socket_code = -1;
    long passes = -1;
    sscanf(line, "local %15s code %d, remote %15s code %d, passes %ld, accept code %d, served %d, "
           "thread %d loop %d trace %d socket %d",
           local, &local_code, remote, &remote_code, &passes, &accept_code, &served, &thread_code, &loop_code,
           &trace_code, &socket_code);
    fprintf(stderr, "server: %s", line);
    TRACE("another local port: %s, error %d (kRLErrorResources is %d)", local, local_code, kRLErrorResources);
    TRACE("a remote: %s, error %d", remote, remote_code);
    TRACE("RLThreadCreate: error %d; a new thread's loop, its first run: error %d; RLRunLoopTraceStart: error %d",
          thread_code, loop_code, trace_code);
    TRACE("RLSocketCreate: error %d", socket_code);
    TRACE("accepting: error %d", accept_code);
    TRACE("requests served: %d", served);
    CHECK(passes > 0 && passes < 200);
    for (int i = 0; i < 3; i++) if (remotes[i]) RLRelease(remotes[i]);
    close(sp[0]);
    TRACE("server exit status %d", pk_status(child));
}

int main(int argc, char **argv)
{
    pk_init(argc, argv);
    if (argc == 4 && strcmp(argv[1], "serve") == 0) return serve(argv[2], argv[3]);
    run_on_thread(scenario);
    return trace_check("rl_ports_emfile") | harness_failures;
}
