/*
 * runloop driven the way another language's FFI drives it: the library is
 * dlopen()ed, every function is found with dlsym() and called with
 * ffi_call(), and every callback is an ffi_closure.  Nothing here links
 * against librunloop or calls it directly; the header is used for its
 * constants and context-struct layouts only.
 *
 *   test_ffi /path/to/librunloop.so.0
 *
 * One run in a private mode holds a queued function (Perform), a signalled
 * source, a due one-shot timer and an observer of every activity; the
 * closures record what ran and the exact trace is checked.  Then a
 * repeating timer stops the run (Stop), an observer wakes the loop as it
 * goes to sleep (WakeUp), and IsWaiting/Contains/Invalidate are checked.
 */
#include <runloop/runloop.h>

#include <dlfcn.h>
#include <ffi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODE "ffi.test.mode"

static void *library;
static int failures;
static char trace[1024];

static void record(const char *what)
{
    if (trace[0]) strncat(trace, " ", sizeof trace - strlen(trace) - 1);
    strncat(trace, what, sizeof trace - strlen(trace) - 1);
}

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) failures++;
}

/* ---- calls: call(name, return type, &result, n, type1, &value1, ...) ---- */

typedef union {
    ffi_arg word;       /* integral results are widened to ffi_arg */
    void *pointer;
    double number;
} Result;

static Result call(const char *name, ffi_type *rtype, int n, ...)
{
    void *fn = dlsym(library, name);
    if (!fn) {
        fprintf(stderr, "dlsym(%s): %s\n", name, dlerror());
        exit(1);
    }
    ffi_type *types[8];
    void *values[8];
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        types[i] = va_arg(ap, ffi_type *);
        values[i] = va_arg(ap, void *);
    }
    va_end(ap);
    ffi_cif cif;
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, (unsigned)n, rtype, types) != FFI_OK) {
        fprintf(stderr, "ffi_prep_cif(%s) failed\n", name);
        exit(1);
    }
    Result result;
    memset(&result, 0, sizeof result);
    ffi_call(&cif, FFI_FN(fn), &result, values);
    return result;
}

#define P(v) &ffi_type_pointer, (void *)&(v)
#define D(v) &ffi_type_double, (void *)&(v)
#define L(v) &ffi_type_slong, (void *)&(v)
#define UL(v) &ffi_type_ulong, (void *)&(v)
#define B(v) &ffi_type_uint8, (void *)&(v)      /* RLBoolean */

/* ---- closures: a C function pointer made at run time ------------------- */

typedef struct {
    ffi_closure *closure;
    void *code;
    ffi_cif cif;
    ffi_type *args[4];
} Closure;

static void *make_closure(Closure *c, void (*handler)(ffi_cif *, void *, void **, void *),
                          void *user, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) c->args[i] = va_arg(ap, ffi_type *);
    va_end(ap);
    c->closure = ffi_closure_alloc(sizeof(ffi_closure), &c->code);
    if (!c->closure
        || ffi_prep_cif(&c->cif, FFI_DEFAULT_ABI, (unsigned)n, &ffi_type_void, c->args) != FFI_OK
        || ffi_prep_closure_loc(c->closure, &c->cif, handler, user, c->code) != FFI_OK) {
        fprintf(stderr, "cannot make an ffi closure\n");
        exit(1);
    }
    return c->code;
}

/* ---- handlers (args[i] points at the i-th argument) -------------------- */

static const char *activity_name(unsigned long a)
{
    switch (a) {
    case kRLRunLoopEntry: return "Entry";
    case kRLRunLoopBeforeTimers: return "BeforeTimers";
    case kRLRunLoopBeforeSources: return "BeforeSources";
    case kRLRunLoopBeforeWaiting: return "BeforeWaiting";
    case kRLRunLoopAfterWaiting: return "AfterWaiting";
    case kRLRunLoopExit: return "Exit";
    default: return "?";
    }
}

static int stop_after_waking;
static int observer_info_ok = 1;

static void on_observer(ffi_cif *cif, void *ret, void **args, void *user)
{
    (void)cif, (void)ret;
    unsigned long activity = *(unsigned long *)args[1];
    if (*(void **)args[2] != user) observer_info_ok = 0;
    record(activity_name(activity));
    if (stop_after_waking) {
        /* Wake the loop just before it sleeps (so the sleep returns at
         * once), stop it once it has woken. */
        void *rl = call("RLRunLoopGetCurrent", &ffi_type_pointer, 0).pointer;
        if (activity == kRLRunLoopBeforeWaiting) call("RLRunLoopWakeUp", &ffi_type_void, 1, P(rl));
        if (activity == kRLRunLoopAfterWaiting) call("RLRunLoopStop", &ffi_type_void, 1, P(rl));
    }
}

static void on_timer(ffi_cif *cif, void *ret, void **args, void *user)
{
    (void)cif, (void)ret, (void)args;
    record((const char *)user);
}

static int stopping_ticks;
static void on_stopping_timer(ffi_cif *cif, void *ret, void **args, void *user)
{
    (void)cif, (void)ret, (void)args, (void)user;
    record("tick");
    if (++stopping_ticks == 2) {
        void *rl = call("RLRunLoopGetCurrent", &ffi_type_pointer, 0).pointer;
        call("RLRunLoopStop", &ffi_type_void, 1, P(rl));
    }
}

static void on_info(ffi_cif *cif, void *ret, void **args, void *user)
{
    (void)cif, (void)ret;
    record(*(void **)args[0] == user ? (const char *)user : "WRONG-INFO");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s /path/to/librunloop.so.0\n", argv[0]);
        return 2;
    }
    library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }

    const char *version = call("RLGetVersion", &ffi_type_pointer, 0).pointer;
    check(strcmp(version, RL_VERSION_STRING) == 0, "RLGetVersion is the header's RL_VERSION_STRING");

    void *rl = call("RLRunLoopGetCurrent", &ffi_type_pointer, 0).pointer;
    void *main_rl = call("RLRunLoopGetMain", &ffi_type_pointer, 0).pointer;
    check(rl != NULL && rl == main_rl, "the main thread's current loop is the main loop");
    const char *mode = MODE;
    void *null = NULL;
    long zero = 0;
    unsigned char yes = 1, no = 0;

    /* An observer of every activity. */
    static Closure observer_closure;
    static char observer_tag[] = "observer";
    void *observer_fn = make_closure(&observer_closure, on_observer, observer_tag, 3,
                                     &ffi_type_pointer, &ffi_type_ulong, &ffi_type_pointer);
    RLRunLoopObserverContext octx = { 0, observer_tag, NULL, NULL, NULL };
    void *octx_p = &octx;
    unsigned long all = kRLRunLoopAllActivities;
    void *observer = call("RLRunLoopObserverCreate", &ffi_type_pointer, 6,
                          P(null), UL(all), B(yes), L(zero), P(observer_fn), P(octx_p)).pointer;
    call("RLRunLoopAddObserver", &ffi_type_void, 3, P(rl), P(observer), P(mode));

    /* A one-shot timer due now. */
    static Closure timer_closure;
    static char timer_tag[] = "timer";
    void *timer_fn = make_closure(&timer_closure, on_timer, timer_tag, 2,
                                  &ffi_type_pointer, &ffi_type_pointer);
    double now = call("RLAbsoluteTimeGetCurrent", &ffi_type_double, 0).number;
    double one_shot = 0;
    void *timer = call("RLRunLoopTimerCreate", &ffi_type_pointer, 7, P(null), D(now), D(one_shot),
                       UL(zero), L(zero), P(timer_fn), P(null)).pointer;
    call("RLRunLoopAddTimer", &ffi_type_void, 3, P(rl), P(timer), P(mode));

    /* A signalled source. */
    static Closure source_closure;
    static char source_tag[] = "source";
    RLRunLoopSourceContext sctx;
    memset(&sctx, 0, sizeof sctx);
    sctx.info = source_tag;
    sctx.perform = (void (*)(void *))make_closure(&source_closure, on_info, source_tag, 1, &ffi_type_pointer);
    void *sctx_p = &sctx;
    void *source = call("RLRunLoopSourceCreate", &ffi_type_pointer, 3, P(null), L(zero), P(sctx_p)).pointer;
    call("RLRunLoopAddSource", &ffi_type_void, 3, P(rl), P(source), P(mode));
    call("RLRunLoopSourceSignal", &ffi_type_void, 1, P(source));
    check((unsigned char)call("RLRunLoopSourceIsSignalled", &ffi_type_uint8, 1, P(source)).word == 1,
          "the source is signalled");

    /* A queued function. */
    static Closure perform_closure;
    static char perform_tag[] = "perform";
    void *perform_fn = make_closure(&perform_closure, on_info, perform_tag, 1, &ffi_type_pointer);
    void *perform_info = perform_tag;
    call("RLRunLoopPerformFunction", &ffi_type_void, 4, P(rl), P(mode), P(perform_fn), P(perform_info));

    /* 1. One pass (0 s): queued function, signalled source, due timer. */
    double seconds = 0;
    int32_t result = (int32_t)call("RLRunLoopRunInMode", &ffi_type_sint32, 3, P(mode), D(seconds), B(no)).word;
    printf("trace: %s\n", trace);
    check(strcmp(trace, "Entry BeforeTimers BeforeSources perform source timer Exit") == 0,
          "one pass runs the queued function, the source, then the due timer");
    check(result == kRLRunLoopRunTimedOut, "a zero-second run times out");
    check((unsigned char)call("RLRunLoopTimerIsValid", &ffi_type_uint8, 1, P(timer)).word == 0,
          "the one-shot timer invalidated itself");

    /* 2. A repeating timer stops the run on its second tick. */
    static Closure ticking_closure;
    void *ticking_fn = make_closure(&ticking_closure, on_stopping_timer, NULL, 2,
                                    &ffi_type_pointer, &ffi_type_pointer);
    double interval = 0.001;
    now = call("RLAbsoluteTimeGetCurrent", &ffi_type_double, 0).number;
    void *ticking = call("RLRunLoopTimerCreate", &ffi_type_pointer, 7, P(null), D(now), D(interval),
                         UL(zero), L(zero), P(ticking_fn), P(null)).pointer;
    call("RLRunLoopAddTimer", &ffi_type_void, 3, P(rl), P(ticking), P(mode));
    check((unsigned char)call("RLRunLoopContainsTimer", &ffi_type_uint8, 3, P(rl), P(ticking), P(mode)).word == 1,
          "the loop contains the repeating timer");
    trace[0] = 0;
    seconds = 30;
    result = (int32_t)call("RLRunLoopRunInMode", &ffi_type_sint32, 3, P(mode), D(seconds), B(no)).word;
    printf("trace: %s\n", trace);
    check(strcmp(trace, "Entry BeforeTimers BeforeSources BeforeWaiting AfterWaiting tick "
                        "BeforeTimers BeforeSources BeforeWaiting AfterWaiting tick Exit") == 0,
          "the timer ticks after each wake-up; Stop ends the run");
    check(result == kRLRunLoopRunStopped, "RLRunLoopStop from a callout: Stopped");
    call("RLRunLoopTimerInvalidate", &ffi_type_void, 1, P(ticking));

    /* 3. RLRunLoopWakeUp at BeforeWaiting: the sleep returns at once. */
    check((unsigned char)call("RLRunLoopIsWaiting", &ffi_type_uint8, 1, P(rl)).word == 0,
          "a loop that is not running is not waiting");
    stop_after_waking = 1;
    trace[0] = 0;
    result = (int32_t)call("RLRunLoopRunInMode", &ffi_type_sint32, 3, P(mode), D(seconds), B(no)).word;
    printf("trace: %s\n", trace);
    check(strcmp(trace, "Entry BeforeTimers BeforeSources BeforeWaiting AfterWaiting Exit") == 0
          && result == kRLRunLoopRunStopped, "RLRunLoopWakeUp before the sleep: woken at once, then stopped");
    check(observer_info_ok, "the observer got its context's info every time");

    /* 4. Invalidated items leave the mode; the mode finishes. */
    call("RLRunLoopSourceInvalidate", &ffi_type_void, 1, P(source));
    call("RLRunLoopObserverInvalidate", &ffi_type_void, 1, P(observer));
    check((unsigned char)call("RLRunLoopContainsSource", &ffi_type_uint8, 3, P(rl), P(source), P(mode)).word == 0,
          "an invalidated source is gone from the mode");
    check((unsigned char)call("RLRunLoopContainsObserver", &ffi_type_uint8, 3, P(rl), P(observer), P(mode)).word == 0,
          "an invalidated observer is gone from the mode");
    void *items[] = { observer, timer, source, ticking };
    for (int i = 0; i < 4; i++) call("RLRelease", &ffi_type_void, 1, P(items[i]));
    result = (int32_t)call("RLRunLoopRunInMode", &ffi_type_sint32, 3, P(mode), D(seconds), B(no)).word;
    check(result == kRLRunLoopRunFinished, "an empty mode: Finished");

    ffi_closure_free(observer_closure.closure);
    ffi_closure_free(timer_closure.closure);
    ffi_closure_free(source_closure.closure);
    ffi_closure_free(perform_closure.closure);
    ffi_closure_free(ticking_closure.closure);
    printf("%s\n", failures ? "test_ffi: FAILED" : "test_ffi: OK");
    return failures ? 1 : 0;
}
