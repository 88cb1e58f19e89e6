/*
 * test_rl_mainqueue — the main thread's loop serves libdispatch's main queue
 * (runloop-only; CF does the same on Darwin):
 *   - a function sent to the main queue from a worker runs on the main
 *     thread while the main loop runs the default mode (a common mode), the
 *     loop woken by the queue's descriptor (no polling: a single sleep);
 *   - while the main loop runs a mode that is not common, the queue waits;
 *     it is drained as soon as a common mode runs again;
 *   - functions queued from the main queue itself run in order;
 *   - a run nested in a function of the queue does not serve the queue (as
 *     CF: libdispatch's drain is not re-entrant), so the default mode with
 *     nothing else in it is empty there (Finished at once, as CF returns);
 *     a function queued from inside runs once the outer one returns.
 * libdispatch is loaded with dlopen() (RL_DISPATCH_LIBRARY, set by
 * cmake/Insight.cmake), the way a program that uses it has it loaded.
 */
#include "harness.h"

#include <dlfcn.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_mainqueue tests runloop-only behaviour"
#endif
#ifndef RL_DISPATCH_LIBRARY
#define RL_DISPATCH_LIBRARY "libdispatch.so"
#endif

typedef void (*async_f_t)(void *queue, void *context, void (*work)(void *));
static async_f_t dispatch_async_f_;
static void *main_queue;
static pthread_t g_main;
static int g_ran, g_on_main;

static void on_main(void *info)
{
    g_ran++;
    if (pthread_equal(pthread_self(), g_main)) g_on_main++;
    TRACE("main queue: %s", (const char *)info);
    if (strcmp((const char *)info, "stop") == 0) RLRunLoopStop(RLRunLoopGetMain());
}

static void *worker(void *arg)
{
    dispatch_async_f_(main_queue, arg, on_main);
    return NULL;
}

static void chained(void *info)
{
    TRACE("main queue: first");
    dispatch_async_f_(main_queue, "second", on_main);
    dispatch_async_f_(main_queue, "stop", on_main);
}

static void keep(void *info) {}

static void nested(void *info)
{
    int before = g_ran;
    dispatch_async_f_(main_queue, "stop", on_main);
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.05, false);
    TRACE("nested run in a queued function: %s; the queue served inside: %s",
          result_name(r), yes_no(g_ran != before));
}

int main(void)
{
    void *lib = dlopen(RL_DISPATCH_LIBRARY, RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        fprintf(stderr, "cannot load %s: %s\n", RL_DISPATCH_LIBRARY, dlerror());
        return 1;
    }
    dispatch_async_f_ = (async_f_t)dlsym(lib, "dispatch_async_f");
    main_queue = dlsym(lib, "_dispatch_main_q");   /* dispatch_get_main_queue() */
    if (!dispatch_async_f_ || !main_queue) return 1;
    g_main = pthread_self();
    RLRunLoopRef rl = RLRunLoopGetCurrent();

    /* 1. from a worker, while the main loop sleeps in the default mode */
    pthread_t w = start_thread(worker, "stop");
    RLRunLoopStatistics s = { .size = sizeof s };
    RLRunLoopResetStatistics(rl);
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10.0, false);
    pthread_join(w, NULL);
    RLRunLoopGetStatistics(rl, &s);
    TRACE("default mode run: %s; ran on the main thread: %s; woken by a descriptor: %s",
          result_name(r), yes_no(g_ran == 1 && g_on_main == 1), yes_no(s.wakeUpsByDescriptor >= 1));

    /* 2. a private mode does not serve the queue */
    RLRunLoopSourceRef src = new_source(0, NULL, keep);
    RLRunLoopAddSource(rl, src, MODE("private"));
    w = start_thread(worker, "stop");
    pthread_join(w, NULL);
    r = RLRunLoopRunInMode(MODE("private"), 0.05, false);
    TRACE("private mode run: %s; queue served: %s", result_name(r), yes_no(g_ran == 2));
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10.0, false);
    TRACE("default mode again: %s; queue served: %s", result_name(r), yes_no(g_ran == 2));

    /* 3. work queued from the queue itself */
    dispatch_async_f_(main_queue, NULL, chained);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10.0, false);
    TRACE("chained: %s", result_name(r));

    /* 4. a run nested in a function of the queue */
    dispatch_async_f_(main_queue, NULL, nested);
    r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 10.0, false);
    TRACE("after the nested run: %s", result_name(r));

    RLRunLoopSourceInvalidate(src);
    RLRelease(src);
    return trace_check("rl_mainqueue") | harness_failures;
}
