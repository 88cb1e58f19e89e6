/*
 * test_rl_mainqueue_nofd — the main loop's first run without a free
 * descriptor (runloop-only).  The main loop serves libdispatch's main
 * queue from its first run on; the queue's handle is an eventfd that
 * libdispatch creates on first request and traps (SIGILL) when it cannot.
 * In a copy of this program with libdispatch loaded and every descriptor
 * taken:
 *   - the main thread's first run returns normally, with
 *     kRLErrorResources ("main queue not served") as its last error;
 *   - once descriptors are free again, a later run serves the queue: a
 *     function sent to the main queue runs.
 * libdispatch is loaded with dlopen() (RL_DISPATCH_LIBRARY, set by
 * cmake/Insight.cmake).
 */
#include "harness.h"
#include "ports_testkit.h"

#include <dlfcn.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_mainqueue_nofd tests runloop-only behaviour"
#endif
#ifndef RL_DISPATCH_LIBRARY
#define RL_DISPATCH_LIBRARY "libdispatch.so"
#endif

typedef void (*async_f_t)(void *queue, void *context, void (*work)(void *));
static int g_ran;

static void on_main(void *info)
{
    g_ran++;
    RLRunLoopStop(RLRunLoopGetMain());
}

static void keep(RLRunLoopTimerRef t, void *info) {}

/* The child: exit 0 when everything held, 10+ for what went wrong. */
static int child(void)
{
    void *lib = dlopen(RL_DISPATCH_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        fprintf(stderr, "cannot load %s: %s\n", RL_DISPATCH_LIBRARY, dlerror());
        return 2;
    }
    async_f_t async_f = (async_f_t)dlsym(lib, "dispatch_async_f");
    void *main_queue = dlsym(lib, "_dispatch_main_q");
    if (!async_f || !main_queue) return 3;
    pk_quiet();

    RLRunLoopRef main_loop = RLRunLoopGetMain();
    RLRunLoopTimerRef timer = RLRunLoopTimerCreate(NULL, now() + 1000, 1000, 0, 0, keep, NULL);
    RLRunLoopAddTimer(main_loop, timer, kRLRunLoopDefaultMode);
    /* A loop makes its own descriptors (its wait set) at its first run, or
     * when asked for its poll descriptor: asked here, so that only the
     * main queue's eventfd is left to be refused. */
    if (RLRunLoopGetPollDescriptor(main_loop) < 0) return 4;

    struct rlimit lim;
    getrlimit(RLIMIT_NOFILE, &lim);
    lim.rlim_cur = 64;
    setrlimit(RLIMIT_NOFILE, &lim);
    int fillers[64], nfill = 0;
    while (nfill < 64) {
        int fd = dup(0);
        if (fd < 0) break;
        fillers[nfill++] = fd;
    }
    pk_last_code = 0;
    pk_last_message[0] = 0;
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, 0);
    fprintf(stderr, "first run: result %d, error %d: %s\n", (int)r, pk_last_code, pk_last_message);
    int status = 0;
    if (r != kRLRunLoopRunTimedOut) status = 10;
    else if (pk_last_code != kRLErrorResources) status = 11;
    else if (!strstr(pk_last_message, "main queue")) status = 12;

    while (nfill > 0) close(fillers[--nfill]);
    async_f(main_queue, NULL, on_main);
    for (int i = 0; i < 20 && !g_ran; i++) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.1, 0);
    if (!status && !g_ran) status = 13;
    RLRunLoopTimerInvalidate(timer);
    RLRelease(timer);
    return status;
}

int main(int argc, char **argv)
{
    pk_init(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "child") == 0) return child();
    int status = pk_status(pk_spawn("child", NULL, NULL, NULL));
    TRACE("child exit status %d (0: the run returned with kRLErrorResources, then the queue was served)", status);
    return trace_check("rl_mainqueue_nofd") | harness_failures;
}
