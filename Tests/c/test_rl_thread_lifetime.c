/*
 * test_rl_thread_lifetime — RLThreadStop with a task running the worker's
 * loop nested, and the last release of an RLThread while other threads are
 * inside RLThreadPerform (runloop-only):
 *   - a "modal" task runs the worker's loop nested 1, 2 and 5 deep (in a
 *     private mode, and in the default mode), each level looping as CF's
 *     CFRunLoopRun does until a run returns Stopped or Finished:
 *     RLThreadStop returns promptly, every nested run returned
 *     kRLRunLoopRunStopped, and the task returned.
 *   - 4 threads call RLThreadPerform (waiting) in a loop while the main
 *     thread makes the last RLRelease: the thread is stopped and its loop
 *     torn down (a source left there is cancelled) within a bound, and
 *     every caller ends with a refused call and a clean error, none hangs.
 * A watchdog thread fails the program instead of letting ctest time out.
 * Before the fix, the modal scenarios never returned from RLThreadStop and
 * the release left the thread running as long as the callers called.
 */
#include "harness.h"

#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_thread_lifetime tests runloop-only functions"
#endif

/* ------------------------------------------------------------------------
 * Watchdog: fails the program if a step takes longer than its bound.
 * ---------------------------------------------------------------------- */

static pthread_mutex_t wd_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cond = PTHREAD_COND_INITIALIZER;
static const char *wd_step;      /* the step watched, NULL when none */
static double wd_deadline;

static void *watchdog(void *arg)
{
    pthread_mutex_lock(&wd_lock);
    for (;;) {
        if (wd_step && now() > wd_deadline) {
            fprintf(stderr, "FAIL: watchdog: \"%s\" did not finish in time\n", wd_step);
            fflush(stderr);
            _exit(1);
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 50 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) { ts.tv_sec++; ts.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&wd_cond, &wd_lock, &ts);
    }
    return NULL;
}

static void watch(const char *step, double seconds)
{
    pthread_mutex_lock(&wd_lock);
    wd_step = step;
    wd_deadline = now() + seconds;
    pthread_mutex_unlock(&wd_lock);
}

static void unwatch(void)
{
    pthread_mutex_lock(&wd_lock);
    wd_step = NULL;
    pthread_mutex_unlock(&wd_lock);
}

/* ------------------------------------------------------------------------
 * Errors: counted by code (the callers' refused calls report them).
 * ---------------------------------------------------------------------- */

static int g_errors[16];

static void count_error(RLErrorCode code, const char *function, const char *message, void *info)
{
    pthread_mutex_lock(&h_lock);
    if (code >= 0 && code < 16) g_errors[code]++;
    pthread_mutex_unlock(&h_lock);
}

/* ------------------------------------------------------------------------
 * Modal tasks
 * ---------------------------------------------------------------------- */

#define MAX_DEPTH 8

static void never_performed(void *info) {}

typedef struct {
    RLThreadRef thread;
    RLRunLoopMode mode;           /* the mode the levels run */
    int depth;                    /* how deep the deepest level runs */
    gate_t reached;               /* posted by the deepest level */
    int results[MAX_DEPTH + 1];   /* the last run result of each level */
    int runs[MAX_DEPTH + 1];      /* runs each level started */
    int returned;                 /* the outermost level returned */
} modal_t;

static modal_t *g_modal;
static int g_level_arg[MAX_DEPTH + 2];

/* One level of the modal task: queues the next level in the mode, then
 * runs the mode until a run returns Stopped or Finished (CFRunLoopRun's
 * loop).  The next level runs inside this level's run. */
static void modal_level(void *info)
{
    modal_t *m = g_modal;
    int level = *(int *)info;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    if (level < m->depth) perform_fn(rl, m->mode, modal_level, &g_level_arg[level + 1]);
    else gate_post(&m->reached);
    RLRunLoopRunResult r;
    do {
        m->runs[level]++;
        r = RLRunLoopRunInMode(m->mode, 1e6, 0);
    } while (r != kRLRunLoopRunStopped && r != kRLRunLoopRunFinished);
    m->results[level] = r;
    if (level == 1) m->returned = 1;
}

static void modal_scenario(RLRunLoopMode mode, int depth)
{
    modal_t m;
    memset(&m, 0, sizeof m);
    m.reached = (gate_t)GATE_INIT;
    m.mode = mode;
    m.depth = depth;
    g_modal = &m;
    m.thread = RLThreadCreate("rl-test-modal");
    CHECK(m.thread != NULL);

    /* a source that is never signalled keeps the private mode from being
     * empty (the default mode has the worker's own) */
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.perform = never_performed;
    RLRunLoopSourceRef keep = RLRunLoopSourceCreate(NULL, 0, &ctx);
    RLRunLoopAddSource(RLThreadGetRunLoop(m.thread), keep, m.mode);

    CHECK(RLThreadPerform(m.thread, modal_level, &g_level_arg[1], 0));
    gate_wait(&m.reached);

    char step[128];
    snprintf(step, sizeof step, "RLThreadStop with a modal task %d deep in %s", depth, mode_name(mode));
    watch(step, 10.0);
    double t0 = now();
    RLThreadStop(m.thread);
    double took = now() - t0;
    unwatch();

    int all_stopped = 1, extra_runs = 0;
    for (int level = 1; level <= depth; level++) {
        if (m.results[level] != kRLRunLoopRunStopped) all_stopped = 0;
        extra_runs += m.runs[level] - 1;
    }
    TRACE("modal %d deep in %s: RLThreadStop returned; every nested run returned Stopped: %s; task returned: %s",
          depth, mode_name(mode), yes_no(all_stopped), yes_no(m.returned));
    CHECK(took < 2.0);
    CHECK(extra_runs == 0);
    if (took >= 2.0) fprintf(stderr, "RLThreadStop took %.3f s\n", took);

    RLRelease(keep);
    RLRelease(m.thread);
}

/* ------------------------------------------------------------------------
 * The last release while callers are inside RLThreadPerform
 * ---------------------------------------------------------------------- */

#define CALLERS 4

static RLThreadRef g_thread;
static volatile int g_cancelled;     /* the worker's loop was torn down */
static volatile int g_give_up;       /* tells callers to end (failure path) */
static int g_calls[CALLERS];         /* accepted calls per caller */
static int g_tasks_run;              /* written on the worker only */

static void counted_task(void *info) { __atomic_add_fetch(&g_tasks_run, 1, __ATOMIC_RELAXED); }

static void *caller(void *arg)
{
    int id = (int)(intptr_t)arg;
    RLThreadRef thread = g_thread;   /* the handle, as the user passed it */
    while (!g_give_up) {
        if (!RLThreadPerform(thread, counted_task, NULL, 1)) break;
        __atomic_add_fetch(&g_calls[id], 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void cancel_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode)
{
    __atomic_store_n(&g_cancelled, 1, __ATOMIC_RELEASE);
}

static int calls_min(void)
{
    int least = -1;
    for (int i = 0; i < CALLERS; i++) {
        int n = __atomic_load_n(&g_calls[i], __ATOMIC_RELAXED);
        if (least < 0 || n < least) least = n;
    }
    return least;
}

static void release_scenario(void)
{
    g_thread = RLThreadCreate("rl-test-release");
    CHECK(g_thread != NULL);
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.perform = never_performed;
    ctx.cancel = cancel_cb;
    RLRunLoopSourceRef source = RLRunLoopSourceCreate(NULL, 0, &ctx);
    RLRunLoopAddSource(RLThreadGetRunLoop(g_thread), source, kRLRunLoopDefaultMode);
    RLRelease(source);   /* the mode holds it */

    pthread_t th[CALLERS];
    for (int i = 0; i < CALLERS; i++) th[i] = start_thread(caller, (void *)(intptr_t)i);
    watch("callers starting", 10.0);
    while (calls_min() < 200) sleep_s(0.001);
    unwatch();

    memset(g_errors, 0, sizeof g_errors);
    RLRelease(g_thread);   /* the last reference */

    /* The release stops the thread; its loop's teardown cancels the source.
     * Bounded: the callers' pins must not keep it alive. */
    double t0 = now();
    while (!__atomic_load_n(&g_cancelled, __ATOMIC_ACQUIRE) && now() - t0 < 3.0) sleep_s(0.001);
    int finalized = __atomic_load_n(&g_cancelled, __ATOMIC_ACQUIRE);
    TRACE("last release while %d threads call RLThreadPerform: thread stopped and its loop torn down: %s",
          CALLERS, yes_no(finalized));
    CHECK(finalized);
    if (!finalized) g_give_up = 1;

    watch("callers ending after the last release", 10.0);
    for (int i = 0; i < CALLERS; i++) pthread_join(th[i], NULL);
    unwatch();
    pthread_mutex_lock(&h_lock);
    int refused = g_errors[kRLErrorStaleHandle] + g_errors[kRLErrorInvalidArgument];
    int other = 0;
    for (int i = 0; i < 16; i++)
        if (i != kRLErrorStaleHandle && i != kRLErrorInvalidArgument) other += g_errors[i];
    pthread_mutex_unlock(&h_lock);
    TRACE("every caller ended with a refused call and an error: %s; other errors: %d",
          yes_no(finalized && refused >= CALLERS), other);
    CHECK(refused >= CALLERS);
    int accepted = 0;
    for (int i = 0; i < CALLERS; i++) accepted += g_calls[i];
    /* every accepted (waited-for) call ran its task */
    CHECK(accepted == __atomic_load_n(&g_tasks_run, __ATOMIC_RELAXED));
}

int main(void)
{
    pthread_t wd = start_thread(watchdog, NULL);
    pthread_detach(wd);
    for (int i = 0; i <= MAX_DEPTH + 1; i++) g_level_arg[i] = i;
    RLSetErrorHandler(count_error, NULL);

    static const int depths[] = { 1, 2, 5 };
    for (int i = 0; i < 3; i++) modal_scenario(MODE("rl.test.modal"), depths[i]);
    for (int i = 0; i < 3; i++) modal_scenario(kRLRunLoopDefaultMode, depths[i]);
    release_scenario();
    return trace_check("rl_thread_lifetime") | harness_failures;
}
