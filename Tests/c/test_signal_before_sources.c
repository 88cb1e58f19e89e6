/*
 * test_signal_before_sources — a version-0 source signalled before the
 * sources step of a pass is performed in that pass: one pass
 * (RunInMode 0 s, returnAfterSourceHandled) returns HandledSource with the
 * source performed once, for a signal
 *   - from a BeforeSources observer on the loop's thread, and
 *   - from another thread before the pass,
 * of a source in this loop alone and of a source also in another thread's
 * loop (runloop: Loop/PendingSources.swift; its signals once went through
 * the block ring, which only the blocks step collected).  A queued block
 * first, so the loop has taken work before.
 */
#include "harness.h"

static RLRunLoopSourceRef g_signal_in_observer;
static int g_performs;
static gate_t g_other_made = GATE_INIT, g_other_done = GATE_INIT;
static RLRunLoopRef g_other;

static void performed(void *info) { (void)info; g_performs++; }
static void nothing(void *info) { (void)info; }

static void before_sources(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    (void)o; (void)a; (void)info;
    if (g_signal_in_observer) RLRunLoopSourceSignal(g_signal_in_observer);
    g_signal_in_observer = NULL;
}

static void *signal_from_thread(void *src)
{
    RLRunLoopSourceSignal(src);
    return NULL;
}

static void *other_loop_thread(void *arg)
{
    (void)arg;
    g_other = (RLRunLoopRef)RLRetain(RLRunLoopGetCurrent());
    gate_post(&g_other_made);
    gate_wait(&g_other_done);
    return NULL;
}

static void one_pass(const char *label)
{
    g_performs = 0;
    RLRunLoopRunResult r = RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 1);
    TRACE("%s: %s, performed %d", label, result_name(r), g_performs);
    /* nothing left for the next case, whatever this one did */
    for (int i = 0; i < 2; i++) RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0);
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    pthread_t other = start_thread(other_loop_thread, NULL);
    gate_wait(&g_other_made);
    RLRunLoopSourceRef alone = new_source(0, NULL, performed);
    RLRunLoopSourceRef shared = new_source(0, (void *)1, performed);
    RLRunLoopAddSource(rl, alone, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, shared, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(g_other, shared, kRLRunLoopDefaultMode);
    RLRunLoopObserverRef obs = new_observer(kRLRunLoopBeforeSources, 1, 0, before_sources, NULL);
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    perform_fn(rl, kRLRunLoopDefaultMode, nothing, NULL);
    TRACE("block first: %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0)));

    RLRunLoopSourceRef cases[] = { alone, shared };
    const char *names[] = { "source in this loop", "source in two loops" };
    for (int i = 0; i < 2; i++) {
        char label[96];
        g_signal_in_observer = cases[i];
        snprintf(label, sizeof label, "%s, signalled in BeforeSources", names[i]);
        one_pass(label);
        pthread_join(start_thread(signal_from_thread, cases[i]), NULL);
        snprintf(label, sizeof label, "%s, signalled from another thread", names[i]);
        one_pass(label);
    }

    gate_post(&g_other_done);
    pthread_join(other, NULL);
    RLRelease(g_other);
    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
    RLRunLoopSourceInvalidate(alone);
    RLRelease(alone);
    RLRunLoopSourceInvalidate(shared);
    RLRelease(shared);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("signal_before_sources") | harness_failures;
}
