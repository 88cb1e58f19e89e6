/*
 * test_rl_stats — loop statistics (runloop-only, include/runloop/insight.h):
 *   - a new loop's counters are all 0;
 *   - a one-shot timer: one pass, one sleep ended by the timer, one timer
 *     fired, counted once in the lateness histogram;
 *   - a run's time limit ends a sleep as a timeout;
 *   - another thread's RLRunLoopStop (a wake-up) ends a sleep as a wake-up;
 *   - a ready descriptor ends a sleep as a descriptor, and its version-1
 *     source is counted as performed;
 *   - three ready descriptors are performed in one pass and counted, each
 *     timed: the longest callout (a descriptor) is the slow one;
 *   - every observer callout, performed block and version-0 perform is counted;
 *   - a repeating 10 ms timer whose callout blocks 35 ms skips at least 3
 *     slots, and the longest callout (a timer) lasted at least 35 ms;
 *   - a caller's smaller struct (older `size`) gets only the fields it has;
 *     a size too small for anything, or NULL, is an error;
 *   - RLRunLoopResetStatistics zeroes every counter;
 *   - a source that re-signals itself keeps a run busy for 50 ms: the loop
 *     gives its CPU away (busyYields) at least 10 times, at most once per
 *     50 µs of busy passes and never on a pass that follows a sleep;
 *     200 one-pass runs that each perform a source, and a source signalled
 *     on every other tick of a 1 ms timer, give way 0 times.
 */
#include "harness.h"

#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_stats tests runloop-only functions"
#endif

static RLRunLoopStatistics stats_of(RLRunLoopRef rl)
{
    RLRunLoopStatistics s;
    memset(&s, 0xEE, sizeof s);
    s.size = sizeof s;
    RLRunLoopGetStatistics(rl, &s);
    return s;
}

static uint64_t histogram_total(const RLRunLoopStatistics *s)
{
    uint64_t n = 0;
    for (int i = 0; i < RL_RUN_LOOP_LATENESS_BUCKETS; i++) n += s->latenessHistogram[i];
    return n;
}

static void quiet_timer(RLRunLoopTimerRef t, void *info) {}
static void perform_nothing(void *info) {}

static void slow_tick(RLRunLoopTimerRef t, void *info)
{
    int *ticks = (int *)info;
    if (++*ticks == 1) {
        struct timespec d = { 0, 35 * 1000000L };
        nanosleep(&d, NULL);
    } else {
        RLRunLoopTimerInvalidate(t);
    }
}

static void fd_ready(RLFileDescriptorRef f, RLOptionFlags types, void *info)
{
    char c;
    if (read(RLFileDescriptorGetNativeDescriptor(f), &c, 1) != 1) TRACE("read failed");
}

/* Re-signals itself until 50 ms after its first perform, then stops. */
struct busy { RLRunLoopSourceRef source; double began; long performs; };

static void busy_perform(void *info)
{
    struct busy *b = (struct busy *)info;
    if (b->performs++ == 0) b->began = now();
    if (now() - b->began < 0.05) RLRunLoopSourceSignal(b->source);
    else RLRunLoopStop(RLRunLoopGetCurrent());
}

/* Signals the source on every other tick (a late timer may fire in the
 * pass that performs the source, which then polls instead of sleeping:
 * the tick in between keeps a pass without a perform between two
 * performs), 20 times, then stops the loop. */
static void signal_tick(RLRunLoopTimerRef t, void *info)
{
    struct busy *b = (struct busy *)info;
    if (++b->performs > 40) RLRunLoopStop(RLRunLoopGetCurrent());
    else if (b->performs % 2) RLRunLoopSourceSignal(b->source);
}

static void count_perform(void *info) { (void)info; }

static RLRunLoopRef g_rl;
static gate_t g_sleeping = GATE_INIT;

static void *waker(void *arg)
{
    gate_wait(&g_sleeping);
    CHECK(wait_until_waiting(g_rl));
    RLRunLoopStop(g_rl);
    return NULL;
}

static void before_waiting(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    gate_post(&g_sleeping);
}

static int burst_port(void *info) { return ((int *)info)[0]; }
static void burst_read(void *info)
{
    char c;
    if (read(((int *)info)[0], &c, 1) != 1) TRACE("read failed");
}
static void burst_slow(void *info)
{
    burst_read(info);
    usleep(20000);
}

static void scenario(void)
{
    RLRunLoopRef rl = g_rl = RLRunLoopGetCurrent();
    RLRunLoopStatistics s = stats_of(rl);
    TRACE("new loop: passes %llu, sleeps %llu, timers %llu, observers %llu, longest %llu",
          (unsigned long long)s.passes, (unsigned long long)s.sleeps, (unsigned long long)s.timersFired,
          (unsigned long long)s.observersCalled, (unsigned long long)s.longestCalloutNanoseconds);

    /* a one-shot timer */
    RLRunLoopTimerRef t = new_timer(now() + 0.02, 0, quiet_timer, NULL);
    RLRunLoopAddTimer(rl, t, MODE("timer"));
    RLRunLoopRunInMode(MODE("timer"), 5.0, false);
    RLRelease(t);
    s = stats_of(rl);
    TRACE("one-shot timer: passes %llu, sleeps %llu, by timer %llu, fired %llu, in histogram %llu",
          (unsigned long long)s.passes, (unsigned long long)s.sleeps, (unsigned long long)s.wakeUpsByTimer,
          (unsigned long long)s.timersFired, (unsigned long long)histogram_total(&s));

    /* queued work and a signalled version-0 source */
    RLRunLoopResetStatistics(rl);
    RLRunLoopSourceRef v0 = new_source(0, NULL, perform_nothing);
    RLRunLoopAddSource(rl, v0, MODE("work"));
    RLRunLoopSourceSignal(v0);
    RLRunLoopPerformFunction(rl, MODE("work"), perform_nothing, NULL);
    RLRunLoopPerformFunction(rl, MODE("work"), perform_nothing, NULL);
    RLRunLoopRunInMode(MODE("work"), 0, false);
    s = stats_of(rl);
    TRACE("work: blocks run %llu, version-0 performed %llu",
          (unsigned long long)s.blocksRun, (unsigned long long)s.version0Performed);
    RLRunLoopSourceInvalidate(v0);
    RLRelease(v0);

    /* a timeout */
    RLRunLoopResetStatistics(rl);
    RLRunLoopSourceRef idle = new_source(0, NULL, perform_nothing);
    RLRunLoopAddSource(rl, idle, MODE("idle"));
    RLRunLoopRunInMode(MODE("idle"), 0.02, false);
    s = stats_of(rl);
    TRACE("time limit: sleeps %llu, by timeout %llu, by timer %llu",
          (unsigned long long)s.sleeps, (unsigned long long)s.wakeUpsByTimeout, (unsigned long long)s.wakeUpsByTimer);

    /* a wake-up from another thread; the observer counts too */
    RLRunLoopResetStatistics(rl);
    RLRunLoopObserverRef o = new_observer(kRLRunLoopBeforeWaiting, true, 0, before_waiting, NULL);
    RLRunLoopAddObserver(rl, o, MODE("idle"));
    pthread_t w = start_thread(waker, NULL);
    RLRunLoopRunInMode(MODE("idle"), 5.0, false);
    pthread_join(w, NULL);
    s = stats_of(rl);
    TRACE("wake-up: by wake-up %llu, observers called %llu",
          (unsigned long long)s.wakeUpsByWakeUp, (unsigned long long)s.observersCalled);
    RLRunLoopRemoveObserver(rl, o, MODE("idle"));
    RLRelease(o);

    /* a ready descriptor */
    RLRunLoopResetStatistics(rl);
    int p[2];
    if (pipe(p) != 0) { TRACE("pipe failed"); return; }
    RLFileDescriptorRef f = RLFileDescriptorCreate(NULL, p[0], true, fd_ready, NULL);
    RLFileDescriptorEnableCallBacks(f, kRLFileDescriptorReadCallBack);
    RLRunLoopSourceRef fs = RLFileDescriptorCreateRunLoopSource(NULL, f, 0);
    RLRunLoopAddSource(rl, fs, MODE("fd"));
    if (write(p[1], "x", 1) != 1) TRACE("write failed");
    RLRunLoopRunResult r = RLRunLoopRunInMode(MODE("fd"), 5.0, true);
    s = stats_of(rl);
    TRACE("descriptor: %s, sleeps %llu, by descriptor %llu, version-1 performed %llu",
          result_name(r), (unsigned long long)s.sleeps, (unsigned long long)s.wakeUpsByDescriptor,
          (unsigned long long)s.version1Performed);
    RLFileDescriptorInvalidate(f);
    RLRelease(fs);
    RLRelease(f);
    close(p[1]);

    /* a burst: three ready descriptors in one pass, each callout timed;
     * the second takes 20 ms, so the longest callout lasts at least that */
    RLRunLoopResetStatistics(rl);
    int burst[3][2];
    RLRunLoopSourceRef bs[3];
    for (int i = 0; i < 3; i++) {
        if (pipe(burst[i]) != 0) { TRACE("pipe failed"); return; }
        RLRunLoopSourceContext1 c = {0};
        c.version = 1;
        c.info = burst[i];
        c.getPort = burst_port;
        c.perform = i == 1 ? burst_slow : burst_read;
        bs[i] = RLRunLoopSourceCreate(NULL, 0, (RLRunLoopSourceContext *)&c);
        RLRunLoopAddSource(rl, bs[i], MODE("burst"));
        if (write(burst[i][1], "x", 1) != 1) TRACE("write failed");
    }
    r = RLRunLoopRunInMode(MODE("burst"), 5.0, true);
    s = stats_of(rl);
    TRACE("burst of 3: %s, passes %llu, version-1 performed %llu, longest kind %s, longest >= 20 ms: %s",
          result_name(r), (unsigned long long)s.passes, (unsigned long long)s.version1Performed,
          RLRunLoopCalloutKindGetName(s.longestCalloutKind), yes_no(s.longestCalloutNanoseconds >= 20000000));
    for (int i = 0; i < 3; i++) {
        RLRunLoopSourceInvalidate(bs[i]);
        RLRelease(bs[i]);
        close(burst[i][0]);
        close(burst[i][1]);
    }

    /* skipped slots, longest callout */
    RLRunLoopResetStatistics(rl);
    int ticks = 0;
    RLRunLoopTimerRef slow = new_timer(now() + 0.01, 0.01, slow_tick, &ticks);
    RLRunLoopAddTimer(rl, slow, MODE("slow"));
    RLRunLoopRunInMode(MODE("slow"), 5.0, false);
    RLRelease(slow);
    s = stats_of(rl);
    TRACE("slow repeating timer: fired %llu, skipped >= 3: %s, longest >= 35 ms: %s, longest kind %s",
          (unsigned long long)s.timersFired, yes_no(s.timerSlotsSkipped >= 3),
          yes_no(s.longestCalloutNanoseconds >= 35000000ULL), RLRunLoopCalloutKindGetName(s.longestCalloutKind));

    /* an older, smaller struct */
    RLRunLoopStatistics small;
    memset(&small, 0xEE, sizeof small);
    small.size = offsetof(RLRunLoopStatistics, sleeps);
    RLRunLoopGetStatistics(rl, &small);
    TRACE("size up to passes: passes written %s, sleeps untouched %s, size kept %s",
          yes_no(small.passes == s.passes), yes_no(small.sleeps == 0xEEEEEEEEEEEEEEEEULL),
          yes_no(small.size == offsetof(RLRunLoopStatistics, sleeps)));
    small.size = 4;
    RLRunLoopGetStatistics(rl, &small);
    TRACE("size 4: untouched %s", yes_no(small.passes == s.passes));
    RLRunLoopGetStatistics(rl, NULL);

    RLRunLoopResetStatistics(rl);
    s = stats_of(rl);
    TRACE("after reset: passes %llu, fired %llu, skipped %llu, in histogram %llu, longest %llu",
          (unsigned long long)s.passes, (unsigned long long)s.timersFired, (unsigned long long)s.timerSlotsSkipped,
          (unsigned long long)histogram_total(&s), (unsigned long long)s.longestCalloutNanoseconds);

    /* sources keeping a run busy */
    RLRunLoopResetStatistics(rl);
    struct busy b = { NULL, 0, 0 };
    RLRunLoopSourceContext bc = { 0 };
    bc.info = &b;
    bc.perform = busy_perform;
    b.source = RLRunLoopSourceCreate(NULL, 0, &bc);
    RLRunLoopAddSource(rl, b.source, MODE("busy"));
    RLRunLoopSourceSignal(b.source);
    double began = now();
    r = RLRunLoopRunInMode(MODE("busy"), 5.0, false);
    double busy_us = (now() - began) * 1e6;
    s = stats_of(rl);
    TRACE("busy 50 ms: %s, gave way >= 10: %s, at most once per 50 us: %s, once per pass at most: %s",
          result_name(r), yes_no(s.busyYields >= 10), yes_no(s.busyYields <= busy_us / 50 + 1),
          yes_no(s.busyYields < s.passes));
    RLRunLoopResetStatistics(rl);
    for (int i = 0; i < 200; i++) {
        RLRunLoopSourceSignal(b.source);
        RLRunLoopRunInMode(MODE("busy"), 0, false);
    }
    s = stats_of(rl);
    TRACE("200 one-pass runs: performed %llu, gave way %llu",
          (unsigned long long)s.version0Performed, (unsigned long long)s.busyYields);
    RLRunLoopSourceInvalidate(b.source);
    RLRelease(b.source);

    RLRunLoopResetStatistics(rl);
    struct busy ticked = { NULL, 0, 0 };
    RLRunLoopSourceContext tc = { 0 };
    tc.perform = count_perform;
    ticked.source = RLRunLoopSourceCreate(NULL, 0, &tc);
    RLRunLoopAddSource(rl, ticked.source, MODE("ticked"));
    RLRunLoopTimerRef tick = new_timer(now() + 0.001, 0.001, signal_tick, &ticked);
    RLRunLoopAddTimer(rl, tick, MODE("ticked"));
    r = RLRunLoopRunInMode(MODE("ticked"), 5.0, false);
    s = stats_of(rl);
    TRACE("a source signalled every other 1 ms tick: %s, performed %llu, gave way %llu",
          result_name(r), (unsigned long long)s.version0Performed, (unsigned long long)s.busyYields);
    RLRunLoopTimerInvalidate(tick);
    RLRelease(tick);
    RLRunLoopSourceInvalidate(ticked.source);
    RLRelease(ticked.source);
    RLRunLoopSourceInvalidate(idle);
    RLRelease(idle);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_stats") | harness_failures;
}
