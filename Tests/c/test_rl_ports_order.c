/*
 * test_rl_ports_order — one connection is served by one callout at a
 * time, in order, even when the port's source is in two loops (runloop-
 * only; ports.h, RLMessagePortCreateRunLoopSource).
 *
 * The port's source is added to the loops of two threads.  One remote
 * sends 20,000 numbered one-way messages.  The callout counts how many
 * callouts are inside it at once (an overlap is one more than one) and
 * checks that each number is the previous plus one.  All messages arrive,
 * none overlaps, none is out of order.
 */
#include "harness.h"
#include "ports_testkit.h"

#include <sched.h>
#include <stdatomic.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_ports_order tests runloop-only functions"
#endif

static atomic_int g_inside, g_overlaps, g_received, g_reorders;
static uint32_t g_last;  /* touched only inside the (serialized) callout */
static RLRunLoopRef g_loops[2];
static gate_t g_ready = GATE_INIT;
static RLRunLoopSourceRef g_src;

static RLDataRef numbered(RLMessagePortRef local, int32_t msgid, RLDataRef data, void *info)
{
    if (atomic_fetch_add(&g_inside, 1) != 0) atomic_fetch_add(&g_overlaps, 1);
    uint32_t n = 0;
    if (data && RLDataGetLength(data) == 4) memcpy(&n, RLDataGetBytePtr(data), 4);
    if (n != g_last + 1) atomic_fetch_add(&g_reorders, 1);
    g_last = n;
    sched_yield();  /* widen the window */
    atomic_fetch_add(&g_received, 1);
    atomic_fetch_sub(&g_inside, 1);
    return NULL;
}

static void *serve(void *arg)
{
    int i = (int)(intptr_t)arg;
    g_loops[i] = RLRunLoopGetCurrent();
    RLRunLoopAddSource(g_loops[i], g_src, kRLRunLoopDefaultMode);
    gate_post(&g_ready);
    RLRunLoopRun();
    return NULL;
}

static void scenario(void)
{
    int total = getenv("RL_UNDER_VALGRIND") ? 2000 : 20000;
    char name[64];
    snprintf(name, sizeof name, "rl-test-order-%d", (int)getpid());
    RLMessagePortContext ctx = { 0, NULL, NULL, NULL, NULL };
    RLMessagePortRef port = RLMessagePortCreateLocal(NULL, name, numbered, &ctx, NULL);
    g_src = RLMessagePortCreateRunLoopSource(NULL, port, 0);
    pthread_t a = start_thread(serve, (void *)0), b = start_thread(serve, (void *)1);
    gate_wait(&g_ready);
    gate_wait(&g_ready);

    RLMessagePortRef remote = RLMessagePortCreateRemote(NULL, name);
    int failures = 0;
    for (uint32_t n = 1; n <= (uint32_t)total; n++) {
        RLDataRef d = RLDataCreate(NULL, (const uint8_t *)&n, 4);
        if (RLMessagePortSendRequest(remote, 1, d, 10, 0, NULL, NULL) != kRLMessagePortSuccess) failures++;
        RLRelease(d);
    }
    RLAbsoluteTime deadline = now() + 20;
    while (atomic_load(&g_received) < total && now() < deadline) sleep_s(0.01);
    TRACE("sent with failures: %d", failures);
    TRACE("all received: %s", yes_no(atomic_load(&g_received) == total));
    fprintf(stderr, "overlaps %d, out of order %d\n", atomic_load(&g_overlaps), atomic_load(&g_reorders));
    TRACE("overlapping callouts: %d", atomic_load(&g_overlaps));
    TRACE("out of order: %d", atomic_load(&g_reorders));

    RLRelease(remote);
    RLRunLoopStop(g_loops[0]);
    RLRunLoopStop(g_loops[1]);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    RLMessagePortInvalidate(port);
    RLRelease(g_src);
    RLRelease(port);
    TRACE("done");
}

int main(int argc, char **argv)
{
    pk_init(argc, argv);
    run_on_thread(scenario);
    return trace_check("rl_ports_order") | harness_failures;
}
