/*
 * fuzz_api — libFuzzer harness driving runloop's C API from fuzz input.
 *
 * The input is a byte-coded sequence of calls with arbitrary arguments:
 * each op byte picks a function, the following bytes its arguments (slot
 * numbers into a table of 16 handles, raw 8-byte doubles — NaN, ±inf,
 * huge —, mode names from a table or from the input, up to 1100 bytes).
 * Slots keep handles after they were released (stale handles), any slot
 * is passed to any function (wrong-type handles), and op 'forge' puts
 * arbitrary 8 bytes in a slot (forged handles).  Each input runs on a
 * fresh thread (its loop is torn down at the end) with occasional
 * RunInMode(mode, 0, ...).  Any crash or sanitizer report is a bug; error
 * reports through RLGetLastError are the expected outcome of misuse.
 *
 * Build (Tests/stress/sanitizers.sh):
 *   clang -fsanitize=fuzzer,address fuzz_api.c <asan build of librunloop.so>
 * Run: fuzz_api -max_total_time=60 Tests/fuzz/corpus
 */
#include <runloop/runloop.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { SLOTS = 16, MAX_OPS = 512 };

typedef struct {
    const uint8_t *p;
    size_t n;
} input;

static uint8_t u8(input *in)
{
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}
static double f64(input *in)
{
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++) bits = bits << 8 | u8(in);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static const char *const NAMES[] = {"kCFRunLoopDefaultMode", "kCFRunLoopCommonModes", "fuzz.A", "fuzz.B", "", NULL};
static char name_buf[2][1101];
static int name_next;

/* A mode name: one of NAMES, or bytes of the input (length up to 1100). */
static const char *mode(input *in)
{
    uint8_t b = u8(in);
    if (b < 0xF0) return NAMES[b % 6];
    char *buf = name_buf[name_next++ & 1];
    size_t len = (size_t)u8(in) * 5;
    if (len > 1100) len = 1100;
    size_t i = 0;
    for (; i < len && in->n; i++) buf[i] = (char)(u8(in) | 1);
    buf[i] = 0;
    return buf;
}

static void perform(void *info) { (void)info; }
static void timer_cb(RLRunLoopTimerRef t, void *info) { (void)t; (void)info; }
static void observer_cb(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) { (void)o; (void)a; (void)info; }
static void quiet(RLErrorCode c, const char *f, const char *m, void *i) { (void)c; (void)f; (void)m; (void)i; }

/* References the input took (creates, retains), given back at the end so
 * the handle table does not fill up over a long run; releases the input
 * made itself turn some of these into over-releases (reported, harmless). */
static RLTypeRef owned[2 * MAX_OPS];
static int n_owned;
static void own(RLTypeRef h)
{
    if (h && n_owned < 2 * MAX_OPS) owned[n_owned++] = h;
}

static void run_ops(input *in)
{
    RLTypeRef slot[SLOTS] = {0};
    /* forged[i]: slot i holds arbitrary bits.  Never passed where a mode
     * name may be a C string (PerformFunction's mode): no C API can tell
     * a wild pointer from a string. */
    int forged[SLOTS] = {0};
    n_owned = 0;
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    for (int op = 0; op < MAX_OPS && in->n; op++) {
        uint8_t code = u8(in);
        int ai = u8(in) % SLOTS;
        RLTypeRef a = slot[ai];
        int target = code >> 5 & 1 ? u8(in) % SLOTS : -1;
        switch (code % 26) {
        case 0: {
            RLRunLoopSourceContext c = {0};
            c.perform = u8(in) & 1 ? perform : NULL;
            c.version = u8(in) % 3;
            if (target >= 0) own(slot[target] = (forged[target] = 0, RLRunLoopSourceCreate(NULL, (RLIndex)(int8_t)u8(in), &c)));
            break;
        }
        case 1: {
            double fire = u8(in) & 1 ? RLAbsoluteTimeGetCurrent() - u8(in) : f64(in);
            double interval = u8(in) & 1 ? f64(in) : (double)u8(in);
            if (target >= 0) own(slot[target] = (forged[target] = 0, RLRunLoopTimerCreate(NULL, fire, interval, 0, 0, u8(in) ? timer_cb : NULL, NULL)));
            break;
        }
        case 2:
            if (target >= 0)
                own(slot[target] = (forged[target] = 0, RLRunLoopObserverCreate(NULL, u8(in), u8(in) & 1, (RLIndex)(int8_t)u8(in), observer_cb, NULL)));
            break;
        case 3: RLRelease(a); break;
        case 4: own(RLRetain(a)); break;
        case 5: RLRunLoopAddSource(rl, (RLRunLoopSourceRef)a, mode(in)); break;
        case 6: RLRunLoopAddTimer(rl, (RLRunLoopTimerRef)a, mode(in)); break;
        case 7: RLRunLoopAddObserver(rl, (RLRunLoopObserverRef)a, mode(in)); break;
        case 8: RLRunLoopRemoveSource(rl, (RLRunLoopSourceRef)a, mode(in)); break;
        case 9: RLRunLoopRemoveTimer(rl, (RLRunLoopTimerRef)a, mode(in)); break;
        case 10: RLRunLoopRemoveObserver(rl, (RLRunLoopObserverRef)a, mode(in)); break;
        case 11:
            (void)RLRunLoopContainsSource(rl, (RLRunLoopSourceRef)a, mode(in));
            (void)RLRunLoopContainsTimer(rl, (RLRunLoopTimerRef)a, mode(in));
            (void)RLRunLoopContainsObserver(rl, (RLRunLoopObserverRef)a, mode(in));
            break;
        case 12: RLRunLoopSourceSignal((RLRunLoopSourceRef)a); break;
        case 13:
            RLRunLoopSourceInvalidate((RLRunLoopSourceRef)a);
            RLRunLoopTimerInvalidate((RLRunLoopTimerRef)a);
            RLRunLoopObserverInvalidate((RLRunLoopObserverRef)a);
            break;
        case 14: RLRunLoopTimerSetNextFireDate((RLRunLoopTimerRef)a, f64(in)); break;
        case 15: RLRunLoopTimerSetTolerance((RLRunLoopTimerRef)a, f64(in)); break;
        case 16: RLRunLoopRunInMode(mode(in), 0, u8(in) & 1); break;
        case 17:
            RLRunLoopPerformFunction(rl, u8(in) & 1 && !forged[ai] ? a : (RLTypeRef)mode(in), u8(in) & 1 ? perform : NULL, NULL);
            break;
        case 18: RLRunLoopAddCommonMode(rl, mode(in)); break;
        case 19: {
            (void)RLGetRetainCount(a);
            (void)RLGetTypeID(a);
            free(RLCopyDescription(u8(in) & 1 ? a : rl));
            /* RLEqual reads two non-handles as C strings: no forged bits */
            if (!forged[ai]) (void)RLEqual(a, target >= 0 && !forged[target] ? slot[target] : (RLTypeRef)mode(in));
            (void)RLModeNameCreate(mode(in));
            break;
        }
        case 20: RLRunLoopWakeUp((RLRunLoopRef)a); RLRunLoopStop((RLRunLoopRef)a); break;
        case 21: {   /* a forged handle: arbitrary bits */
            uint64_t bits = 0;
            for (int i = 0; i < 8; i++) bits = bits << 8 | u8(in);
            if (target >= 0) {
                slot[target] = (RLTypeRef)(uintptr_t)bits;
                forged[target] = 1;
            }
            break;
        }
        case 22: {
            const char *m[3] = {mode(in), mode(in), mode(in)};
            if (target >= 0) own(slot[target] = (forged[target] = 0, RLArrayCreateWithModes(m, u8(in) % 4)));
            (void)RLArrayGetValueAtIndex((RLArrayRef)a, (RLIndex)(int8_t)u8(in));
            (void)RLArrayGetCount((RLArrayRef)a);
            break;
        }
        case 23: {
            RLRunLoopMode cur = RLRunLoopCopyCurrentMode(rl);
            if (cur) RLRelease(cur);
            RLArrayRef all = RLRunLoopCopyAllModes(rl);
            RLRelease(all);
            (void)RLRunLoopGetNextTimerFireDate(rl, mode(in));
            break;
        }
        case 24: {
            RLRunLoopSourceContext c;
            memset(&c, 0, sizeof c);
            RLRunLoopSourceGetContext((RLRunLoopSourceRef)a, &c);
            (void)RLRunLoopTimerGetNextFireDate((RLRunLoopTimerRef)a);
            (void)RLRunLoopObserverGetActivities((RLRunLoopObserverRef)a);
            (void)RLRunLoopSourceIsSignalled((RLRunLoopSourceRef)a);
            break;
        }
        default:
            if (target >= 0) {   /* alias: the same handle in two slots */
                slot[target] = a;
                forged[target] = forged[ai];
            }
            break;
        }
    }
    for (int i = 0; i < n_owned; i++) RLRelease(owned[i]);
    RLClearLastError();
}

static void *thread_main(void *arg)
{
    run_ops(arg);
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int once;
    if (!once) {
        once = 1;
        RLSetErrorHandler(quiet, NULL);
    }
    input in = {data, size};
    pthread_t t;
    if (pthread_create(&t, NULL, thread_main, &in) != 0) abort();
    pthread_join(t, NULL);
    return 0;
}
