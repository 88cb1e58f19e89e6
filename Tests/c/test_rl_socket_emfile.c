/*
 * test_rl_socket_emfile — an accepting RLSocket in a process out of
 * descriptors (runloop-only trace; socket.h "Out of descriptors").
 *
 * The scenario runs in a copy of this program (fork + exec): valgrind
 * emulates RLIMIT_NOFILE in user space (the kernel accepts a connection
 * past the limit and valgrind closes it: the waiting connection is lost),
 * so under memcheck the copy runs natively while this process checks the
 * memory of an accepting socket's ordinary life (its private wait set made,
 * a connection accepted, the socket invalidated).
 *
 * A TCP listener with an accept callback is in a loop; a client connects
 * (the connection waits in the backlog); then RLIMIT_NOFILE is lowered and
 * every free descriptor filled, so accept() fails with EMFILE:
 *   - the loop runs 0.5 s: accepting backs off instead of spinning on the
 *     ever-readable listener.  The loop makes few passes (fewer than 100:
 *     one per 100 ms back-off; the old code made ~90,000 passes and as
 *     many accept attempts), uses little CPU, and kRLErrorResources is
 *     reported once, not once per pass;
 *   - a few descriptors are freed: the waiting connection is accepted
 *     (after at most the back-off), its descriptor handed to the callout;
 *   - a second connection is then accepted at once (the back-off is over).
 * The passes and the CPU time are printed to stderr.
 */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define M "sock.emfile"

static long g_passes;
static int g_accepted;
static int g_resources;
static int g_other_errors;

static void count_pass(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) { g_passes++; }

static void on_error(RLErrorCode code, const char *function, const char *message, void *info)
{
    if (code == kRLErrorResources) g_resources++;
    else g_other_errors++;
    fprintf(stderr, "error %d from %s: %s\n", (int)code, function, message);
}

static void on_accept(RLSocketRef s, RLSocketCallBackType type, RLDataRef address, const void *data, void *info)
{
    CHECK(type == kRLSocketAcceptCallBack);
    close(*(const RLSocketNativeHandle *)data);
    g_accepted++;
    RLRunLoopStop(RLRunLoopGetCurrent());
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int connect_to(const struct sockaddr_in *where)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0 && connect(fd, (const struct sockaddr *)where, sizeof *where) == 0);
    return fd;
}

/* Runs M until `count` connections were accepted or `seconds` went by. */
static void run_until_accepted(int count, double seconds)
{
    double end = now() + seconds;
    while (g_accepted < count && now() < end) RLRunLoopRunInMode(M, 0.1, false);
}

/* Listens on loopback TCP with an accept callback, in M of the current
 * loop; `where` gets the address.  The source is returned (caller
 * releases). */
static RLRunLoopSourceRef listen_on(RLSocketRef *out, struct sockaddr_in *where)
{
    RLSocketRef listener = RLSocketCreate(NULL, PF_INET, SOCK_STREAM, 0, kRLSocketAcceptCallBack, on_accept, NULL);
    CHECK(listener != NULL);
    memset(where, 0, sizeof *where);
    where->sin_family = AF_INET;
    where->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    RLDataRef address = RLDataCreate(NULL, (const uint8_t *)where, sizeof *where);
    CHECK(RLSocketSetAddress(listener, address) == kRLSocketSuccess);
    RLRelease(address);
    socklen_t length = sizeof *where;
    CHECK(getsockname(RLSocketGetNative(listener), (struct sockaddr *)where, &length) == 0);
    RLRunLoopSourceRef src = RLSocketCreateRunLoopSource(NULL, listener, 0);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), src, M);
    *out = listener;
    return src;
}

static void scenario(void)
{
    RLSetErrorHandler(on_error, NULL);
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLSocketRef listener;
    struct sockaddr_in where;
    RLRunLoopSourceRef src = listen_on(&listener, &where);
    RLRunLoopObserverRef obs = RLRunLoopObserverCreate(NULL, kRLRunLoopBeforeSources, 1, 0, count_pass, NULL);
    RLRunLoopAddObserver(rl, obs, M);
    /* One pass first: a loop makes its wait set at its first run. */
    RLRunLoopRunInMode(M, 0, false);

    int first = connect_to(&where);  /* waits in the backlog */
    int second = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(second >= 0);

    /* Out of descriptors. */
    struct rlimit saved, lim;
    getrlimit(RLIMIT_NOFILE, &saved);
    lim = saved;
    lim.rlim_cur = 256;
    CHECK(setrlimit(RLIMIT_NOFILE, &lim) == 0);
    int fillers[256], nfill = 0;
    while (nfill < 256) {
        int fd = dup(first);
        if (fd < 0) break;
        fillers[nfill++] = fd;
    }
    TRACE("out of descriptors: %s", yes_no(nfill < 256 && dup(first) < 0 && errno == EMFILE));

    g_passes = 0;
    g_resources = 0;
    double cpu = thread_cpu_s();
    RLRunLoopRunInMode(M, 0.5, false);
    cpu = thread_cpu_s() - cpu;
    long passes = g_passes;
    fprintf(stderr, "under EMFILE for 0.5 s: %ld passes, %.3f s CPU, %d kRLErrorResources reports\n", passes, cpu,
            g_resources);
    TRACE("under EMFILE: no connection accepted: %s", yes_no(g_accepted == 0));
    TRACE("under EMFILE: the loop backs off (fewer than 100 passes in 0.5 s): %s", yes_no(passes < 100));
    TRACE("under EMFILE: kRLErrorResources reported once: %s", yes_no(g_resources == 1));
    /* A bound: the spin took the whole 0.5 s of CPU. */
    if (!getenv("RL_UNDER_VALGRIND")) CHECK(cpu < 0.1);

    for (int i = 0; i < 8 && nfill > 0; i++) close(fillers[--nfill]);
    double freed = now();
    run_until_accepted(1, 5.0);
    double waited = now() - freed;
    fprintf(stderr, "accepted %.3f s after descriptors were freed\n", waited);
    TRACE("descriptors freed: the waiting connection is accepted: %s", yes_no(g_accepted == 1));
    if (!getenv("RL_UNDER_VALGRIND")) CHECK(waited < 1.0);

    CHECK(connect(second, (const struct sockaddr *)&where, sizeof where) == 0);
    run_until_accepted(2, 5.0);
    TRACE("a second connection is accepted too: %s", yes_no(g_accepted == 2));
    TRACE("errors other than kRLErrorResources: %d", g_other_errors);

    while (nfill > 0) close(fillers[--nfill]);
    setrlimit(RLIMIT_NOFILE, &saved);
    close(first);
    close(second);
    RLRunLoopRemoveObserver(rl, obs, M);
    RLRelease(obs);
    RLRelease(src);
    RLSocketInvalidate(listener);
    RLRelease(listener);
    RLSetErrorHandler(NULL, NULL);
}

/* This process: an accepting socket's ordinary life, for memcheck. */
static void ordinary(void)
{
    RLSocketRef listener;
    struct sockaddr_in where;
    RLRunLoopSourceRef src = listen_on(&listener, &where);
    int client = connect_to(&where);
    run_until_accepted(1, 10.0);
    CHECK(g_accepted == 1);
    close(client);
    RLRelease(src);
    RLSocketInvalidate(listener);
    RLRelease(listener);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "emfile") == 0) {
        run_on_thread(scenario);
        return trace_check("rl_socket_emfile") | harness_failures;
    }
    run_on_thread(ordinary);
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        execl(argv[0], argv[0], "emfile", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return harness_failures;
}
