/*
 * test_rl_thread_wait — RLThreadPerform with waitUntilDone from several
 * threads at once, and the last release of a running RLThread (runloop-only;
 * trace written from include/runloop/ports.h):
 *   - 4 threads each hand the worker 2,000 tasks and wait for each: every
 *     wait returns after its own task ran (never before), all on the worker;
 *   - tasks of one sender run in that sender's order;
 *   - releasing an RLThread that was never stopped stops and joins it: the
 *     source left in its loop is cancelled on the worker before RLRelease
 *     returns.
 */
#include "harness.h"

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_thread_wait tests runloop-only functions"
#endif

#define SENDERS 4
#define EACH 2000

static RLThreadRef g_thread;
static pthread_t g_worker_id;
static int g_total;              /* tasks only */
static int g_last[SENDERS];      /* tasks only: last sequence seen per sender */
static int g_disorder, g_wrong_thread;

typedef struct { int sender, seq, done; } task_t;

static void task(void *info)
{
    task_t *t = (task_t *)info;
    if (!pthread_equal(pthread_self(), g_worker_id)) g_wrong_thread++;
    if (t->seq != g_last[t->sender] + 1) g_disorder++;
    g_last[t->sender] = t->seq;
    g_total++;
    t->done = 1;
}

static void *sender(void *arg)
{
    int id = (int)(intptr_t)arg, early = 0, refused = 0;
    for (int i = 1; i <= EACH; i++) {
        task_t t = { id, i, 0 };
        if (!RLThreadPerform(g_thread, task, &t, 1)) refused++;
        if (!t.done) early++;
    }
    return (void *)(intptr_t)(early + refused);
}

static void remember_worker(void *info) { g_worker_id = pthread_self(); }
static void read_total(void *info) { *(int *)info = g_total; }

static void cancel_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode)
{
    TRACE("source cancelled on the worker: %s", yes_no(pthread_equal(pthread_self(), g_worker_id)));
}
static void perform_cb(void *info) {}

static void scenario(void)
{
    g_thread = RLThreadCreate("rl-test-wait");
    RLThreadPerform(g_thread, remember_worker, NULL, 1);

    pthread_t th[SENDERS];
    for (int i = 0; i < SENDERS; i++) th[i] = start_thread(sender, (void *)(intptr_t)i);
    int bad = 0;
    for (int i = 0; i < SENDERS; i++) {
        void *r;
        pthread_join(th[i], &r);
        bad += (int)(intptr_t)r;
    }
    int total = 0;
    RLThreadPerform(g_thread, read_total, &total, 1);
    TRACE("%d senders x %d waited tasks: %d ran; returned early or refused %d; out of order %d; off the worker %d",
          SENDERS, EACH, total, bad, g_disorder, g_wrong_thread);

    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.perform = perform_cb;
    ctx.cancel = cancel_cb;
    RLRunLoopSourceRef src = RLRunLoopSourceCreate(NULL, 0, &ctx);
    RLRunLoopAddSource(RLThreadGetRunLoop(g_thread), src, MODE("rl-test-mode"));
    RLRelease(src);
    TRACE("releasing the running thread");
    RLRelease(g_thread);
    TRACE("released");
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_thread_wait") | harness_failures;
}
