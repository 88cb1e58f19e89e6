/*
 * test_rl_ports_process — message ports between two processes (runloop-
 * only; trace written from include/runloop/ports.h).  The test starts a
 * copy of itself (fork + exec of /proc/self/exe with an argument) that
 * serves a local port on its main thread (argv[0] names the program when it
 * holds a '/': under valgrind /proc/self/exe is valgrind's tool):
 *   - the name is taken system-wide: this process cannot create a local
 *     port of the child's name (NULL, shouldFreeInfo true, no info retained);
 *   - request/reply across processes, also with 1 MiB each way (the reply
 *     is written in parts as the socket drains);
 *   - a client process that dies in the middle of writing a request does
 *     not disturb the server: the torn request is dropped, the server
 *     keeps serving;
 *   - the server process dies mid-conversation (its callout exits while
 *     a request waits for its reply): the sender gets
 *     kRLMessagePortBecameInvalidError at once (not after its 30 s
 *     timeout), the remote is invalid, its invalidation callback ran once,
 *     and the next send returns kRLMessagePortIsInvalid;
 *   - the dead process's name is free again: a local port of that name can
 *     now be created here (its socket file, left by the dead process, is
 *     replaced), and releasing that port removes the file;
 *   - a process that returns from main with its port still valid leaves
 *     no socket file behind (ports.h: files are in /tmp/runloop-<uid>).
 */
#include "harness.h"

#include <sys/wait.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_process tests runloop-only functions"
#endif

enum { MSG_ECHO = 1, MSG_BIG = 2, MSG_DIE = 99 };
#define BIG (1u << 20)

/* ---- the child: serve a port until told to die ------------------------ */

static RLDataRef child_callout(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    if (msgid == MSG_DIE) _exit(0);
    if (msgid == MSG_BIG) {
        /* reply: the request's bytes, each plus one */
        RLIndex n = RLDataGetLength(data);
        uint8_t *out = (uint8_t *)malloc((size_t)n);
        for (RLIndex i = 0; i < n; i++) out[i] = (uint8_t)(RLDataGetBytePtr(data)[i] + 1);
        RLDataRef reply = RLDataCreate(NULL, out, n);
        free(out);
        return reply;
    }
    char text[128];
    snprintf(text, sizeof text, "child echoes %.*s", data ? (int)RLDataGetLength(data) : 4,
             data ? (const char *)RLDataGetBytePtr(data) : "NULL");
    return RLDataCreate(NULL, (const uint8_t *)text, (RLIndex)strlen(text));
}

static int serve(const char *name, int ready_fd)
{
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, name, child_callout, &ctx, NULL);
    if (!port) return 3;
    RLRunLoopSourceRef src = RLMessagePortCreateRunLoopSource(NULL, port, 0);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), src, kRLRunLoopDefaultMode);
    if (write(ready_fd, "r", 1) != 1) return 4;
    close(ready_fd);
    RLRunLoopRunInMode(kRLRunLoopDefaultMode, 60, 0);
    return 5;  /* not reached: MSG_DIE exits */
}

/* A client that starts a 16 MiB request, gives up after 50 ms, and dies. */
static int torn_client(const char *name)
{
    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, name);
    if (!remote) return 6;
    size_t big = 16u << 20;
    uint8_t *bytes = (uint8_t *)calloc(big, 1);
    RLDataRef d = RLDataCreate(NULL, bytes, (RLIndex)big);
    /* Give up mid-conversation: while still writing 16 MiB (SendTimeout) or,
     * when the server drained it that fast, while waiting for the reply
     * (ReceiveTimeout).  Either way the server sees a torn connection. */
    int32_t rc = RLMessagePortSendRequest(remote, MSG_ECHO, d, 0.05, 0.001, kRLRunLoopDefaultMode, NULL);
    _exit(rc == kRLMessagePortSendTimeout || rc == kRLMessagePortReceiveTimeout ? 0 : 7);
}

/* A process that creates a port and returns from main without releasing it. */
static int leave_port(const char *name)
{
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, name, child_callout, &ctx, NULL);
    return port ? 0 : 8;
}

/* ---- the parent ------------------------------------------------------- */

static const char *g_self = "/proc/self/exe";

static pid_t spawn(const char *mode, const char *name, int fd)
{
    char fdtext[16];
    snprintf(fdtext, sizeof fdtext, "%d", fd);
    pid_t pid = fork();
    if (pid == 0) {
        execl(g_self, "test_rl_ports_process", mode, name, fdtext, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int child_status(pid_t pid)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int g_invalidations;
static void on_invalid(RLMessagePortRef ms, void *info) { g_invalidations++; }

static int g_retains;
static const void *count_retain(const void *info) { g_retains++; return info; }
static RLDataRef unused_callout(RLMessagePortRef l, int32_t m, RLDataRef d, void *i) { return NULL; }

static void echo(RLMessagePortRef remote, const char *label, const char *text)
{
    RLDataRef d = RLDataCreate(NULL, (const uint8_t *)text, (RLIndex)strlen(text)), reply = NULL;
    int32_t rc = RLMessagePortSendRequest(remote, MSG_ECHO, d, 5, 10, kRLRunLoopDefaultMode, &reply);
    TRACE("%s: status %d, reply \"%.*s\"", label, rc, reply ? (int)RLDataGetLength(reply) : 4,
          reply ? (const char *)RLDataGetBytePtr(reply) : "NULL");
    RLRelease(d);
    if (reply) RLRelease(reply);
}

static void scenario(void)
{
    char name[64];
    snprintf(name, sizeof name, "rl-test-process-%d", (int)getpid());
    int pipefd[2];
    if (pipe(pipefd) != 0) { perror("pipe"); exit(2); }
    pid_t child = spawn("serve", name, pipefd[1]);
    close(pipefd[1]);
    char c;
    TRACE("child ready: %s", yes_no(read(pipefd[0], &c, 1) == 1));
    close(pipefd[0]);

    RLMessagePortContext ctx = { 0, "info", count_retain, NULL, NULL };
    RLBoolean shouldFree = 0;
    fprintf(stderr, "(an error line about a name in use is expected)\n");
    RLMessagePortRef clash = RLMessagePortCreateLocal(NULL, name, unused_callout, &ctx, &shouldFree);
    TRACE("local port with the child's name: created %s, shouldFreeInfo %s, info retained %d times",
          yes_no(clash != NULL), yes_no(shouldFree), g_retains);

    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, name);
    TRACE("remote to the child: %s", yes_no(remote != NULL));
    RLMessagePortSetInvalidationCallBack(remote, on_invalid);
    echo(remote, "echo", "hello");

    uint8_t *bytes = (uint8_t *)malloc(BIG);
    for (size_t i = 0; i < BIG; i++) bytes[i] = (uint8_t)(i * 7);
    RLDataRef big = RLDataCreate(NULL, bytes, BIG), reply = NULL;
    int32_t rc = RLMessagePortSendRequest(remote, MSG_BIG, big, 5, 10, kRLRunLoopDefaultMode, &reply);
    int same = reply && RLDataGetLength(reply) == (RLIndex)BIG;
    for (size_t i = 0; same && i < BIG; i++) same = RLDataGetBytePtr(reply)[i] == (uint8_t)(i * 7 + 1);
    TRACE("1 MiB each way: status %d, reply checks out %s", rc, yes_no(same));
    RLRelease(big);
    if (reply) RLRelease(reply);
    free(bytes);

    pid_t torn = spawn("torn", name, -1);
    TRACE("client that died mid-request: exit status %d", child_status(torn));
    echo(remote, "echo after the torn request", "still there?");

    RLAbsoluteTime t0 = now();
    rc = RLMessagePortSendRequest(remote, MSG_DIE, NULL, 5, 30, kRLRunLoopDefaultMode, &reply);
    double took = now() - t0;
    TRACE("server died mid-conversation: status %d (BecameInvalidError is %d), reply NULL %s",
          rc, kRLMessagePortBecameInvalidError, yes_no(reply == NULL));
    CHECK(took < 10);
    TRACE("remote valid %s, invalidation callbacks %d", yes_no(RLMessagePortIsValid(remote)), g_invalidations);
    TRACE("next send: status %d (IsInvalid is %d)",
          RLMessagePortSendRequest(remote, MSG_ECHO, NULL, 1, 1, kRLRunLoopDefaultMode, NULL), kRLMessagePortIsInvalid);
    TRACE("child exit status %d", child_status(child));
    RLRelease(remote);

    RLMessagePortRef mine = RLMessagePortCreateLocal(NULL, name, unused_callout, &ctx, &shouldFree);
    TRACE("the dead child's name is free: created %s, shouldFreeInfo %s", yes_no(mine != NULL), yes_no(shouldFree));
    char path[128];
    snprintf(path, sizeof path, "/tmp/runloop-%d/n.%s", (int)getuid(), name);
    int existed = access(path, F_OK) == 0;
    RLRelease(mine);
    TRACE("its socket file existed %s, is removed with it %s", yes_no(existed), yes_no(access(path, F_OK) != 0));

    pid_t leaver = spawn("leave", name, -1);
    TRACE("a process that returned from main with its port valid: exit status %d, socket file left %s",
          child_status(leaver), yes_no(access(path, F_OK) == 0));
    TRACE("done");
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "serve") == 0) return serve(argv[2], atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "torn") == 0) return torn_client(argv[2]);
    if (argc == 4 && strcmp(argv[1], "leave") == 0) return leave_port(argv[2]);
    if (strchr(argv[0], '/')) g_self = argv[0];
    run_on_thread(scenario);
    return trace_check("rl_ports_process") | harness_failures;
}
