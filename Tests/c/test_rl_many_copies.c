/*
 * test_rl_many_copies — many copies of librunloop in one process, each
 * loaded with dlopen(RTLD_LOCAL) from a file of its own (as several Python
 * wheels, each with its own copy, load theirs through ctypes), beside the
 * copy the program is linked with.  Each copy makes a timer; then every
 * copy's timer handle is given to every other copy's calls.
 *
 * Every such foreign handle must be refused, every time, with
 * kRLErrorStaleHandle ("a released handle, or not a runloop handle"), and
 * no copy's own timer may be touched.  Before the fix a copy derived its
 * handle tag (the top byte) from its load address, in 126 values: with 64
 * copies some two nearly always shared a tag (the birthday bound), and
 * since each copy makes its timer as its first object, one copy's handle
 * then named the other copy's timer: RLRunLoopTimerIsValid said yes, and
 * RLRunLoopTimerInvalidate invalidated the *receiving* copy's own timer.
 * Now each copy claims a tag no other copy in the process holds (see
 * HandleTable.claimTag), so the refusal is deterministic.
 *
 * Then, with every tag taken, one more copy makes no object
 * (kRLErrorResources) and refuses every other copy's handle.
 *
 * Under valgrind (RL_UNDER_VALGRIND=1) 8 copies are loaded instead of 64:
 * each copy is a 10 MB library with the Swift runtime inside.
 */
#include "harness.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_many_copies tests runloop-only behaviour"
#endif

enum { kMaxCopies = 66 };  /* the linked copy + 64 loaded ones + one with no tag */

/* One copy's functions, its path (for the loaded ones) and its timer. */
typedef struct {
    void *dl;
    char path[128];
    RLRunLoopTimerRef (*TimerCreate)(RLAllocatorRef, RLAbsoluteTime, RLTimeInterval, RLOptionFlags, RLIndex,
                                     RLRunLoopTimerCallBack, RLRunLoopTimerContext *);
    RLBoolean (*TimerIsValid)(RLRunLoopTimerRef);
    void (*TimerInvalidate)(RLRunLoopTimerRef);
    RLAbsoluteTime (*TimerGetNextFireDate)(RLRunLoopTimerRef);
    RLIndex (*GetRetainCount)(RLTypeRef);
    RLTypeID (*GetTypeID)(RLTypeRef);
    void (*Release)(RLTypeRef);
    RLErrorCode (*GetLastError)(void);
    void (*ClearLastError)(void);
    void (*SetErrorHandler)(RLErrorHandler, void *);
    RLAbsoluteTime (*Now)(void);
    RLRunLoopTimerRef timer;
} copy_t;

static copy_t g_copies[kMaxCopies];
static int g_errors[kMaxCopies];

static void on_timer(RLRunLoopTimerRef t, void *info) { (void)t; (void)info; }
static void on_error(RLErrorCode code, const char *function, const char *message, void *info)
{
    (void)code; (void)function; (void)message;
    g_errors[(intptr_t)info]++;
}

/* Copies the file holding RLRunLoopGetCurrent (the linked copy) to a file
 * of its own: dlopen() loads a file it has not loaded yet as a new copy
 * (a link to the same file would be the same copy). */
static int copy_library(const char *from, const char *to)
{
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0700);
    if (in < 0 || out < 0) return -1;
    static char buf[1 << 16];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        if (write(out, buf, (size_t)n) != n) return -1;
    }
    close(in);
    close(out);
    return 0;
}

#define LOAD(c, field, name) CHECK((*(void **)&(c)->field = dlsym((c)->dl, name)) != NULL)

static int load_copy(copy_t *c, const char *from, int i)
{
    snprintf(c->path, sizeof c->path, "/tmp/test_rl_many_copies.%d.%d.so", (int)getpid(), i);
    if (copy_library(from, c->path) != 0) return -1;
    c->dl = dlopen(c->path, RTLD_NOW | RTLD_LOCAL);
    unlink(c->path);  /* the mapping keeps the file */
    if (!c->dl) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return -1;
    }
    LOAD(c, TimerCreate, "RLRunLoopTimerCreate");
    LOAD(c, TimerIsValid, "RLRunLoopTimerIsValid");
    LOAD(c, TimerInvalidate, "RLRunLoopTimerInvalidate");
    LOAD(c, TimerGetNextFireDate, "RLRunLoopTimerGetNextFireDate");
    LOAD(c, GetRetainCount, "RLGetRetainCount");
    LOAD(c, GetTypeID, "RLGetTypeID");
    LOAD(c, Release, "RLRelease");
    LOAD(c, GetLastError, "RLGetLastError");
    LOAD(c, ClearLastError, "RLClearLastError");
    LOAD(c, SetErrorHandler, "RLSetErrorHandler");
    LOAD(c, Now, "RLAbsoluteTimeGetCurrent");
    return harness_failures ? -1 : 0;
}

static void use_linked_copy(copy_t *c)
{
    c->TimerCreate = RLRunLoopTimerCreate;
    c->TimerIsValid = RLRunLoopTimerIsValid;
    c->TimerInvalidate = RLRunLoopTimerInvalidate;
    c->TimerGetNextFireDate = RLRunLoopTimerGetNextFireDate;
    c->GetRetainCount = RLGetRetainCount;
    c->GetTypeID = RLGetTypeID;
    c->Release = RLRelease;
    c->GetLastError = RLGetLastError;
    c->ClearLastError = RLClearLastError;
    c->SetErrorHandler = RLSetErrorHandler;
    c->Now = RLAbsoluteTimeGetCurrent;
}

/* Whether copy j's call refused copy i's handle with kRLErrorStaleHandle. */
static int refused(copy_t *j) { return j->GetLastError() == kRLErrorStaleHandle; }

int main(void)
{
    const char *vg = getenv("RL_UNDER_VALGRIND");
    int loaded = vg && vg[0] == '1' ? 8 : 64;
    int n = 1 + loaded;

    Dl_info info;
    CHECK(dladdr((void *)RLRunLoopGetCurrent, &info) && info.dli_fname);
    if (harness_failures) return 1;
    use_linked_copy(&g_copies[0]);
    for (int i = 1; i < n; i++) {
        if (load_copy(&g_copies[i], info.dli_fname, i) != 0) return 1;
    }
    TRACE("each copy makes a timer, its first object");
    int distinct_tags = 1;
    for (int i = 0; i < n; i++) {
        copy_t *c = &g_copies[i];
        c->SetErrorHandler(on_error, (void *)(intptr_t)i);
        RLRunLoopTimerContext ctx = { 0 };
        c->timer = c->TimerCreate(NULL, c->Now() + 3600, 0, 0, 0, on_timer, &ctx);
        CHECK(c->timer != NULL);
        for (int k = 0; k < i; k++) {
            if ((uintptr_t)c->timer >> 56 == (uintptr_t)g_copies[k].timer >> 56) distinct_tags = 0;
        }
    }
    TRACE("every copy's handles have a tag of their own: %s", distinct_tags ? "yes" : "no");

    TRACE("every copy's timer handle given to every other copy");
    int accepted = 0, unrefused = 0, calls = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if (i == j) continue;
            copy_t *to = &g_copies[j];
            RLRunLoopTimerRef foreign = g_copies[i].timer;
            to->ClearLastError();
            accepted += to->TimerIsValid(foreign) != 0;
            unrefused += !refused(to);
            to->ClearLastError();
            accepted += to->GetRetainCount(foreign) != 0;
            unrefused += !refused(to);
            to->ClearLastError();
            accepted += to->GetTypeID(foreign) != 0;
            unrefused += !refused(to);
            to->ClearLastError();
            accepted += to->TimerGetNextFireDate(foreign) != 0;
            unrefused += !refused(to);
            to->ClearLastError();
            to->TimerInvalidate(foreign);
            unrefused += !refused(to);
            calls += 5;
        }
    }
    TRACE("foreign handles accepted: %d", accepted);
    TRACE("foreign calls not refused with kRLErrorStaleHandle: %d", unrefused);
    int reported = 0;
    for (int j = 0; j < n; j++) reported += g_errors[j];
    TRACE("every refusal reported to the copy's own error handler: %s", reported == calls ? "yes" : "no");

    int intact = 0;
    for (int i = 0; i < n; i++) {
        copy_t *c = &g_copies[i];
        intact += c->TimerIsValid(c->timer) && c->GetRetainCount(c->timer) == 1;
    }
    TRACE("copies whose own timer is intact: all %s", intact == n ? "yes" : "no");
    if (intact != n) fprintf(stderr, "  %d of %d timers intact\n", intact, n);

    /* With every tag taken (the pages of the free ones mapped here, where
     * the copies map theirs: runloop.h, "Linking"), one more copy has no
     * tag: it makes nothing, and refuses the others' handles too. */
    TRACE("one more copy, after every tag is taken");
    long page = sysconf(_SC_PAGESIZE);
    for (int t = 0; t < 127; t++) {
        void *want = (char *)(uintptr_t)0x7F000000ull + t * page;
        void *got = mmap(want, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
                         -1, 0);
        if (got != MAP_FAILED && got != want) munmap(got, (size_t)page);
    }
    copy_t *last = &g_copies[n];
    if (load_copy(last, info.dli_fname, n) != 0) return 1;
    last->SetErrorHandler(on_error, (void *)(intptr_t)n);
    RLRunLoopTimerContext ctx = { 0 };
    last->ClearLastError();
    RLRunLoopTimerRef none = last->TimerCreate(NULL, last->Now() + 3600, 0, 0, 0, on_timer, &ctx);
    TRACE("its TimerCreate: %s, error %d", none ? "a timer" : "NULL", (int)last->GetLastError());
    int taken = 0;
    for (int i = 0; i < n; i++) {
        last->ClearLastError();
        taken += last->TimerIsValid(g_copies[i].timer) != 0 || !refused(last);
    }
    TRACE("the others' handles it takes: %d", taken);
    last->SetErrorHandler(NULL, NULL);

    for (int i = 0; i < n; i++) {
        copy_t *c = &g_copies[i];
        c->TimerInvalidate(c->timer);
        c->Release(c->timer);
        c->SetErrorHandler(NULL, NULL);
    }
    return trace_check("rl_many_copies") | harness_failures;
}
