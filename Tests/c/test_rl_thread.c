/*
 * test_rl_thread — the keep-alive worker thread (runloop-only; trace
 * written from include/runloop/ports.h):
 *   - RLThreadCreate returns once the worker's loop exists; tasks run on
 *     the worker, whose current loop is RLThreadGetRunLoop;
 *   - 100,000 tasks queued from another thread run in the order queued;
 *   - Perform with wait, called on the worker itself, runs inline; without
 *     wait it queues behind the running task;
 *   - RLRunLoopStop of the worker's loop from a task does not end the
 *     worker: the next task still runs;
 *   - a source added to the worker's loop from another thread is performed
 *     there after Signal + WakeUp;
 *   - RLThreadStop runs every task queued before it, ends and joins the
 *     thread (the loop's teardown cancels a source left there, on the
 *     worker); Perform afterwards is refused; the handle stays valid.
 */
#include "harness.h"

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_thread tests runloop-only functions"
#endif

#define TASKS 100000

static RLThreadRef g_thread;
static pthread_t g_worker_id;
static long g_next;          /* written by tasks only (worker thread) */
static int g_out_of_order;
static int g_wrong_thread;

static void numbered_task(void *info)
{
    long n = (long)(intptr_t)info;
    if (n != g_next) g_out_of_order++;
    g_next = n + 1;
    if (!pthread_equal(pthread_self(), g_worker_id)) g_wrong_thread++;
}

static void who_am_i(void *info)
{
    g_worker_id = pthread_self();
    TRACE("task: current loop is the worker's loop: %s",
          yes_no(RLRunLoopGetCurrent() == RLThreadGetRunLoop(g_thread)));
    TRACE("task: running in %s", mode_name(RLRunLoopCopyCurrentMode(RLRunLoopGetCurrent())));
}

static void report_count(void *info)
{
    TRACE("after %d queued tasks: %ld ran, out of order %d, on another thread %d",
          TASKS, g_next, g_out_of_order, g_wrong_thread);
}

static void inner(void *info) { TRACE("%s", (const char *)info); }

static void outer(void *info)
{
    TRACE("outer: start");
    TRACE("outer: perform+wait on the worker returned %s",
          yes_no(RLThreadPerform(g_thread, inner, "inner (waited for: ran inline)", 1)));
    TRACE("outer: perform without wait returned %s",
          yes_no(RLThreadPerform(g_thread, inner, "inner (queued: runs after outer)", 0)));
    TRACE("outer: end");
}

static void stop_own_loop(void *info)
{
    RLRunLoopStop(RLRunLoopGetCurrent());
    TRACE("task: stopped the worker's loop");
}

static gate_t g_performed = GATE_INIT;
static void perform_cb(void *info)
{
    TRACE("source performed on the worker: %s", yes_no(pthread_equal(pthread_self(), g_worker_id)));
    gate_post(&g_performed);
}
static void cancel_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode)
{
    TRACE("source cancelled in %s, on the worker: %s", mode_name(mode), yes_no(pthread_equal(pthread_self(), g_worker_id)));
}


static long g_late_count;
static void late_task(void *info) { g_late_count++; }

static void scenario(void)
{
    g_thread = RLThreadCreate("rl-test-worker");
    CHECK(g_thread != NULL);
    TRACE("created; type is RLThread: %s", yes_no(RLGetTypeID(g_thread) == RLThreadGetTypeID()));
    TRACE("worker loop is not this thread's: %s", yes_no(RLThreadGetRunLoop(g_thread) != RLRunLoopGetCurrent()));
    RLThreadPerform(g_thread, who_am_i, NULL, 1);

    for (long i = 0; i < TASKS; i++) RLThreadPerform(g_thread, numbered_task, (void *)(intptr_t)i, 0);
    RLThreadPerform(g_thread, report_count, NULL, 1);

    RLThreadPerform(g_thread, outer, NULL, 1);
    RLThreadPerform(g_thread, inner, "task after outer", 1);

    RLThreadPerform(g_thread, stop_own_loop, NULL, 1);
    RLThreadPerform(g_thread, inner, "task after the loop was stopped: still served", 1);

    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.perform = perform_cb;
    ctx.cancel = cancel_cb;
    RLRunLoopSourceRef src = RLRunLoopSourceCreate(NULL, 0, &ctx);
    RLRunLoopAddSource(RLThreadGetRunLoop(g_thread), src, kRLRunLoopDefaultMode);
    RLRunLoopSourceSignal(src);
    RLRunLoopWakeUp(RLThreadGetRunLoop(g_thread));
    gate_wait(&g_performed);
    RLRelease(src);

    for (long i = 0; i < 1000; i++) RLThreadPerform(g_thread, late_task, NULL, 0);
    RLThreadStop(g_thread);
    TRACE("stopped: the 1000 tasks queued before Stop ran: %ld", g_late_count);
    fprintf(stderr, "(an error line about a stopped thread is expected)\n");
    TRACE("perform after stop accepted: %s", yes_no(RLThreadPerform(g_thread, late_task, NULL, 0)));
    TRACE("worker loop still a valid handle: %s", yes_no(RLGetTypeID(RLThreadGetRunLoop(g_thread)) == RLRunLoopGetTypeID()));
    trace_current_mode("worker loop after stop", RLThreadGetRunLoop(g_thread));
    RLThreadStop(g_thread);
    TRACE("second stop: harmless");
    RLRelease(g_thread);
    TRACE("done");
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_thread") | harness_failures;
}
