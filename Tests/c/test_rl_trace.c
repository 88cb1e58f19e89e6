/*
 * test_rl_trace — Chrome trace files (runloop-only, include/runloop/insight.h):
 *   - a trace stopped from another thread while the loop sleeps is closed at
 *     once and is valid JSON (checked with python3 -m json.tool when python3
 *     is installed) holding the loop's steps and callouts;
 *   - a loop whose thread exits while recording closes its file: valid JSON;
 *   - starting twice, a NULL path, or a path that cannot be created is
 *     refused (false, with an error); stopping a loop that is not recording
 *     returns false.
 */
#include "harness.h"

#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_trace tests runloop-only functions"
#endif

static char g_dir[64];
static RLRunLoopRef g_rl;
static gate_t g_asleep = GATE_INIT, g_stopped = GATE_INIT;

static const char *valid_json(const char *path)
{
    if (system("command -v python3 >/dev/null 2>&1") != 0) return "yes";  /* cannot check here */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "python3 -m json.tool '%s' >/dev/null", path);
    return yes_no(system(cmd) == 0);
}

static int contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strstr(buf, needle) != NULL;
}

static int g_fired;
static void tick(RLRunLoopTimerRef t, void *info) { g_fired = 1; }
/* Lets the stopper in once the timer has fired and the loop goes to sleep. */
static void before_waiting(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info)
{
    if (g_fired == 1) {
        g_fired = 2;
        gate_post(&g_asleep);
    }
}

static void *stopper(void *arg)
{
    gate_wait(&g_asleep);
    CHECK(wait_until_waiting(g_rl));
    RLBoolean was = RLRunLoopTraceStop(g_rl);
    TRACE("stopped from another thread while the loop sleeps: %s", yes_no(was));
    gate_post(&g_stopped);
    RLRunLoopStop(g_rl);
    return NULL;
}

static void stop_from_other_thread(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/other.json", g_dir);
    RLRunLoopRef rl = g_rl = RLRunLoopGetCurrent();
    RLRunLoopTimerRef t = new_timer(now(), 0, tick, NULL);
    RLRunLoopAddTimer(rl, t, MODE("traced"));
    RLRunLoopObserverRef o = new_observer(kRLRunLoopBeforeWaiting, true, 0, before_waiting, NULL);
    RLRunLoopAddObserver(rl, o, MODE("traced"));
    RLRunLoopSourceRef keep = new_source(0, NULL, NULL);
    RLRunLoopAddSource(rl, keep, MODE("traced"));
    TRACE("start: %s", yes_no(RLRunLoopTraceStart(rl, path)));
    TRACE("start again: %s", yes_no(RLRunLoopTraceStart(rl, path)));
    pthread_t s = start_thread(stopper, NULL);
    RLRunLoopRunInMode(MODE("traced"), 10.0, false);
    pthread_join(s, NULL);
    gate_wait(&g_stopped);
    TRACE("file is valid JSON: %s; has the timer callout: %s, the observer callout: %s, the Timers step: %s",
          valid_json(path), yes_no(contains(path, "\"name\":\"timer\"")),
          yes_no(contains(path, "\"name\":\"observer\"")), yes_no(contains(path, "\"name\":\"Timers\"")));
    TRACE("stop again: %s", yes_no(RLRunLoopTraceStop(rl)));
    RLRunLoopSourceInvalidate(keep);
    RLRelease(keep);
    RLRelease(o);
    RLRelease(t);
}

static void exits_while_tracing(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/exit.json", g_dir);
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopTimerRef t = new_timer(now(), 0, tick, NULL);
    RLRunLoopAddTimer(rl, t, MODE("traced"));
    RLRelease(t);
    TRACE("thread start: %s", yes_no(RLRunLoopTraceStart(rl, path)));
    RLRunLoopRunInMode(MODE("traced"), 1.0, false);
}

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/rl_trace_XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    run_on_thread(stop_from_other_thread);
    run_on_thread(exits_while_tracing);
    char path[128];
    snprintf(path, sizeof path, "%s/exit.json", g_dir);
    TRACE("after the thread exited, the file is valid JSON: %s; has the timer callout: %s",
          valid_json(path), yes_no(contains(path, "\"name\":\"timer\"")));

    RLRunLoopRef main_rl = RLRunLoopGetCurrent();
    TRACE("NULL path: %s", yes_no(RLRunLoopTraceStart(main_rl, NULL)));
    TRACE("missing folder: %s", yes_no(RLRunLoopTraceStart(main_rl, "/nonexistent/folder/t.json")));
    TRACE("stop without start: %s", yes_no(RLRunLoopTraceStop(main_rl)));

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) TRACE("cleanup failed");
    return trace_check("rl_trace") | harness_failures;
}
