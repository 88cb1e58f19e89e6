/*
 * test_rl_two_copies — two copies of librunloop in one process:
 * the one the program is linked with, and a second file loaded with
 * dlopen(RTLD_LOCAL), as Python's ctypes loads a wheel's copy beside a
 * system one.  Each copy is a separate engine (its own Swift runtime when
 * the runtime is static, its own loops, handles and threads' loops):
 *
 *   A  both copies run a timer on the main thread, one after the other;
 *   B  both run a loop on a second thread at the same time, each woken by
 *      the other thread through its own copy's perform + wake-up;
 *   C  a handle of one copy given to the other is refused or names nothing
 *      of the other's: no crash, and the other's own objects are intact.
 *
 * Which one wins: the program's calls (and symbol lookups by name, RTLD
 * DEFAULT) go to the copy it is linked with; the dlopen()ed copy is reached
 * only through its handle.  runloop.h, "Linking", says so.
 */
#include "harness.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_two_copies tests runloop-only behaviour"
#endif

/* The second copy's functions. */
static struct {
    RLRunLoopRef (*GetCurrent)(void);
    RLRunLoopTimerRef (*TimerCreate)(RLAllocatorRef, RLAbsoluteTime, RLTimeInterval, RLOptionFlags, RLIndex,
                                     RLRunLoopTimerCallBack, RLRunLoopTimerContext *);
    void (*AddTimer)(RLRunLoopRef, RLRunLoopTimerRef, RLRunLoopMode);
    RLRunLoopRunResult (*RunInMode)(RLRunLoopMode, RLTimeInterval, RLBoolean);
    void (*Release)(RLTypeRef);
    RLAbsoluteTime (*Now)(void);
    void (*Perform)(RLRunLoopRef, RLTypeRef, RLRunLoopPerformCallBack, void *);
    void (*WakeUp)(RLRunLoopRef);
    void (*Stop)(RLRunLoopRef);
    RLIndex (*GetRetainCount)(RLTypeRef);
} b;

static int g_fired[2];
static void on_timer(RLRunLoopTimerRef t, void *info) { g_fired[(intptr_t)info]++; }

/* Copies the file holding RLRunLoopGetCurrent (the linked copy) to a
 * temporary file and loads it: another file, so another copy. */
static void *load_second_copy(char *path, size_t size)
{
    Dl_info info;
    if (!dladdr((void *)RLRunLoopGetCurrent, &info) || !info.dli_fname) return NULL;
    snprintf(path, size, "/tmp/test_rl_two_copies.%d.so", (int)getpid());
    int in = open(info.dli_fname, O_RDONLY), out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
    if (in < 0 || out < 0) return NULL;
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        if (write(out, buf, (size_t)n) != n) return NULL;
    }
    close(in);
    close(out);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) fprintf(stderr, "dlopen: %s\n", dlerror());
    return h;
}

#define LOAD(field, name) CHECK((*(void **)&b.field = dlsym(h, name)) != NULL)

/* B: a loop of each copy on this thread, the main thread waking it. */
static RLRunLoopRef g_loop_a, g_loop_b;
static gate_t g_ready = GATE_INIT;
static int g_performed[2];
static void on_perform(void *info)
{
    g_performed[(intptr_t)info]++;
    /* ends the run of the copy that queued it */
    if ((intptr_t)info == 0) RLRunLoopStop(RLRunLoopGetCurrent());
    else b.Stop(b.GetCurrent());
}
static void *two_loops_thread(void *arg)
{
    (void)arg;
    g_loop_a = RLRunLoopGetCurrent();
    g_loop_b = b.GetCurrent();
    CHECK(g_loop_a != NULL && g_loop_b != NULL);
    RLRunLoopTimerContext ctx = { 0 };
    RLRunLoopTimerRef keep_a = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 60, 0, 0, 0, on_timer, &ctx);
    RLRunLoopTimerRef keep_b = b.TimerCreate(NULL, b.Now() + 60, 0, 0, 0, on_timer, &ctx);
    RLRunLoopAddTimer(g_loop_a, keep_a, MODE("two"));
    b.AddTimer(g_loop_b, keep_b, MODE("two"));
    gate_post(&g_ready);
    /* each run is stopped by the block its own copy queued */
    TRACE("B: copy A run: %d", (int)RLRunLoopRunInMode(MODE("two"), 5.0, 0));
    TRACE("B: copy B run: %d", (int)b.RunInMode(MODE("two"), 5.0, 0));
    RLRunLoopTimerInvalidate(keep_a);
    RLRelease(keep_a);
    b.Release(keep_b);
    return NULL;
}

int main(void)
{
    char path[256];
    void *h = load_second_copy(path, sizeof path);
    CHECK(h != NULL);
    if (!h) return 1;
    CHECK(dlsym(h, "RLRunLoopGetCurrent") != (void *)RLRunLoopGetCurrent);
    LOAD(GetCurrent, "RLRunLoopGetCurrent");
    LOAD(TimerCreate, "RLRunLoopTimerCreate");
    LOAD(AddTimer, "RLRunLoopAddTimer");
    LOAD(RunInMode, "RLRunLoopRunInMode");
    LOAD(Release, "RLRelease");
    LOAD(Now, "RLAbsoluteTimeGetCurrent");
    LOAD(Perform, "RLRunLoopPerformFunction");
    LOAD(WakeUp, "RLRunLoopWakeUp");
    LOAD(Stop, "RLRunLoopStop");
    LOAD(GetRetainCount, "RLGetRetainCount");
    if (harness_failures) return 1;

    TRACE("A: each copy runs a timer on the main thread");
    RLRunLoopRef a = RLRunLoopGetCurrent(), bl = b.GetCurrent();
    CHECK(a != NULL && bl != NULL);
    RLRunLoopTimerContext ca = { 0 }, cb = { 0 };
    ca.info = (void *)0;
    cb.info = (void *)1;
    RLRunLoopTimerRef ta = RLRunLoopTimerCreate(NULL, RLAbsoluteTimeGetCurrent() + 0.01, 0, 0, 0, on_timer, &ca);
    RLRunLoopTimerRef tb = b.TimerCreate(NULL, b.Now() + 0.01, 0, 0, 0, on_timer, &cb);
    RLRunLoopAddTimer(a, ta, MODE("one"));
    b.AddTimer(bl, tb, MODE("one"));
    TRACE("A: copy A run: %d", (int)RLRunLoopRunInMode(MODE("one"), 1.0, 0));
    TRACE("A: copy B run: %d", (int)b.RunInMode(MODE("one"), 1.0, 0));
    TRACE("A: fired %d %d", g_fired[0], g_fired[1]);

    TRACE("B: a loop of each copy on one thread, woken from the main thread");
    pthread_t t;
    pthread_create(&t, NULL, two_loops_thread, NULL);
    gate_wait(&g_ready);
    RLRunLoopPerformFunction(g_loop_a, MODE("two"), on_perform, (void *)0);
    RLRunLoopWakeUp(g_loop_a);
    b.Perform(g_loop_b, MODE("two"), on_perform, (void *)1);
    b.WakeUp(g_loop_b);
    pthread_join(t, NULL);
    TRACE("B: performed %d %d", g_performed[0], g_performed[1]);

    TRACE("C: handles given to the other copy");
    TRACE("C: tags differ: %d", (int)(((uintptr_t)ta >> 56) != ((uintptr_t)tb >> 56)));
    b.Release(ta);                         /* A's timer to B: refused, B's objects untouched */
    RLRelease(tb);                         /* B's timer to A */
    b.WakeUp(a);
    RLRunLoopWakeUp(bl);
    TRACE("C: own timers intact: %d %d", (int)RLGetRetainCount(ta) >= 1, (int)b.GetRetainCount(tb) >= 1);
    RLRelease(ta);
    b.Release(tb);

    unlink(path);
    return trace_check("rl_two_copies") | harness_failures;
}
