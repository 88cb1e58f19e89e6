/*
 * test_rl_describe_reentry — RLCopyDescription calls the contexts'
 * copyDescription with no lock held (runloop-only: CF's CFCopyDescription
 * returns a CFString).  A loop's description copies what it holds under
 * the loop's lock, holds each item, and describes them after releasing it,
 * so a copyDescription may call back into the loop being described:
 *   - ask whether the loop holds its source (RLRunLoopContainsSource, in a
 *     mode and in the common modes);
 *   - add a source to the loop and remove another;
 *   - invalidate the source it describes;
 *   - remove the source it describes when the loop held its last
 *     reference, and remove a later source the loop held last: each is
 *     still described (its info alive), and finalized, its info released
 *     once, when the description is done (the memcheck twin checks the
 *     lifetimes);
 *   - a timer's and an observer's copyDescription do the same kind of call.
 * Each description holds every callback's text.  Described from the loop's
 * own thread and from another thread.  A deadlock ends the program through
 * an alarm with a clear message, not a hang.
 */
#include "harness.h"

#include <signal.h>
#include <unistd.h>

#ifdef RL_TEST_AGAINST_CF
#error "test_rl_describe_reentry tests runloop's RLCopyDescription"
#endif

#define M MODE("described")

static RLRunLoopRef g_rl;
static RLRunLoopSourceRef g_asks, g_common, g_edits, g_added, g_removed, g_self_invalidates,
    g_removes_itself, g_removes_later, g_later;
static RLRunLoopTimerRef g_timer;
static RLRunLoopObserverRef g_observer;
static int g_releases;  /* release(info) calls of the heap infos */

static void on_deadlock(int sig)
{
    static const char text[] = "test_rl_describe_reentry: DEADLOCK: RLCopyDescription did not return "
                               "(a lock held while copyDescription called into the loop)\n";
    (void)sig;
    (void)!write(2, text, sizeof text - 1);
    _exit(1);
}

static char *say(const char *fmt, int value)
{
    char *text = NULL;
    if (asprintf(&text, fmt, value) < 0) return NULL;
    return text;
}

static char *describe_asks(const void *info)
{
    return say("asks: contained = %d", RLRunLoopContainsSource(g_rl, g_asks, M));
}

static char *describe_common(const void *info)
{
    return say("common: contained = %d", RLRunLoopContainsSource(g_rl, g_common, kRLRunLoopCommonModes));
}

static char *describe_edits(const void *info)
{
    RLRunLoopAddSource(g_rl, g_added, M);
    RLRunLoopRemoveSource(g_rl, g_removed, M);
    return say("edits: added and removed (%d)", RLRunLoopContainsSource(g_rl, g_added, M));
}

static char *describe_self_invalidates(const void *info)
{
    RLRunLoopSourceInvalidate(g_self_invalidates);
    return say("invalidates itself: valid = %d", RLRunLoopSourceIsValid(g_self_invalidates));
}

/* A heap info: its text, freed by release. */
static const void *retain_heap(const void *info) { return info; }
static void release_heap(const void *info)
{
    free((void *)info);
    g_releases++;
}

static char *describe_removes_itself(const void *info)
{
    RLRunLoopRemoveSource(g_rl, g_removes_itself, M);
    return say((const char *)info, RLRunLoopContainsSource(g_rl, g_removes_itself, M));
}

static char *describe_removes_later(const void *info)
{
    RLRunLoopRemoveSource(g_rl, g_later, M);
    return say((const char *)info, 0);
}

static char *describe_later(const void *info) { return say((const char *)info, 0); }

static char *describe_timer(const void *info)
{
    return say("timer: contains = %d", RLRunLoopContainsTimer(g_rl, g_timer, M));
}

static char *describe_observer(const void *info)
{
    return say("observer: contains = %d", RLRunLoopContainsObserver(g_rl, g_observer, M));
}

static void perform(void *info) {}
static void timer_fired(RLRunLoopTimerRef t, void *info) {}
static void observed(RLRunLoopObserverRef o, RLRunLoopActivity a, void *info) {}

/* Each source has an info of its own: sources of equal order, perform and
 * info are equal (CF's rule), and a loop holds one of equal sources. */
static RLRunLoopSourceRef source(RLIndex order, char *(*describe)(const void *), char *heap_info)
{
    static char tags[64];
    static int used;
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = &tags[used++ % 64];
    ctx.perform = perform;
    ctx.copyDescription = describe;
    if (heap_info) {
        ctx.info = heap_info;
        ctx.retain = retain_heap;
        ctx.release = release_heap;
    }
    return RLRunLoopSourceCreate(NULL, order, &ctx);
}

/* Fills the loop; the sources the description removes are held by the
 * loop alone. */
static void fill(void)
{
    g_asks = source(0, describe_asks, NULL);
    g_common = source(0, describe_common, NULL);
    g_edits = source(1, describe_edits, NULL);
    g_added = source(9, NULL, NULL);
    g_removed = source(9, NULL, NULL);
    g_self_invalidates = source(2, describe_self_invalidates, NULL);
    g_removes_itself = source(3, describe_removes_itself, strdup("removes itself: contained = %d"));
    g_removes_later = source(4, describe_removes_later, strdup("removes a later one%.0d"));
    g_later = source(5, describe_later, strdup("later: described after its removal%.0d"));
    RLRunLoopAddSource(g_rl, g_asks, M);
    RLRunLoopAddSource(g_rl, g_common, kRLRunLoopCommonModes);
    RLRunLoopAddSource(g_rl, g_edits, M);
    RLRunLoopAddSource(g_rl, g_removed, M);
    RLRunLoopAddSource(g_rl, g_self_invalidates, M);
    RLRunLoopAddSource(g_rl, g_removes_itself, M);
    RLRunLoopAddSource(g_rl, g_removes_later, M);
    RLRunLoopAddSource(g_rl, g_later, M);
    RLRelease(g_removes_itself);  /* the loop holds the last references */
    RLRelease(g_later);

    RLRunLoopTimerContext tctx = { 0, NULL, NULL, NULL, describe_timer };
    g_timer = RLRunLoopTimerCreate(NULL, now() + 1000, 0, 0, 0, timer_fired, &tctx);
    RLRunLoopAddTimer(g_rl, g_timer, M);
    RLRunLoopObserverContext octx = { 0, NULL, NULL, NULL, describe_observer };
    g_observer = RLRunLoopObserverCreate(NULL, kRLRunLoopAllActivities, true, 0, observed, &octx);
    RLRunLoopAddObserver(g_rl, g_observer, M);
}

static void empty(void)
{
    RLRunLoopSourceRef mine[] = { g_asks, g_common, g_edits, g_added, g_removed, g_self_invalidates, g_removes_later };
    for (size_t i = 0; i < sizeof mine / sizeof *mine; i++) {
        RLRunLoopSourceInvalidate(mine[i]);
        RLRelease(mine[i]);
    }
    RLRunLoopTimerInvalidate(g_timer);
    RLRelease(g_timer);
    RLRunLoopObserverInvalidate(g_observer);
    RLRelease(g_observer);
}

static int has(const char *text, const char *part)
{
    if (text && strstr(text, part)) return 1;
    fprintf(stderr, "missing from the description: \"%s\"\n", part);
    return 0;
}

static void describe_loop(const char *where)
{
    g_releases = 0;
    char *text = RLCopyDescription(g_rl);
    CHECK(text != NULL);
    if (getenv("RL_TEST_SHOW")) fprintf(stderr, "%s\n", text);
    CHECK(has(text, "asks: contained = 1"));
    CHECK(has(text, "common: contained = 1"));
    CHECK(has(text, "edits: added and removed (1)"));
    CHECK(has(text, "invalidates itself: valid = 0"));
    CHECK(has(text, "removes itself: contained = 0"));
    CHECK(has(text, "removes a later one"));
    CHECK(has(text, "later: described after its removal"));
    CHECK(has(text, "timer: contains = 1"));
    CHECK(has(text, "observer: contains = 1"));
    /* The calls took effect. */
    CHECK(RLRunLoopContainsSource(g_rl, g_added, M));
    CHECK(!RLRunLoopContainsSource(g_rl, g_removed, M));
    CHECK(!RLRunLoopSourceIsValid(g_self_invalidates));
    /* The two sources the loop held last were finalized with the
     * description: each info released once. */
    CHECK(g_releases == 2);
    fprintf(stderr, "%s: description with every callback's text: %s, infos released: %d\n",
          where, yes_no(harness_failures == 0), g_releases);
    free(text);
}

static gate_t g_filled = GATE_INIT, g_described = GATE_INIT;

static void *loop_thread(void *arg)
{
    g_rl = RLRunLoopGetCurrent();
    fill();
    gate_post(&g_filled);
    gate_wait(&g_described);
    empty();
    return NULL;
}

int main(void)
{
    signal(SIGALRM, on_deadlock);
    alarm(getenv("RL_UNDER_VALGRIND") ? 200 : 20);

    /* 1. From the loop's own thread. */
    g_rl = RLRunLoopGetCurrent();
    fill();
    describe_loop("the loop's thread");
    empty();

    /* 2. From another thread (the loop's thread idle). */
    pthread_t thread = start_thread(loop_thread, NULL);
    gate_wait(&g_filled);
    describe_loop("another thread");
    gate_post(&g_described);
    pthread_join(thread, NULL);

    /* 3. One source alone: its copyDescription may call into its loop. */
    g_rl = RLRunLoopGetCurrent();
    g_asks = source(0, describe_asks, NULL);
    RLRunLoopAddSource(g_rl, g_asks, M);
    char *text = RLCopyDescription(g_asks);
    CHECK(has(text, "asks: contained = 1"));
    fprintf(stderr, "one source: described: %s\n", yes_no(text != NULL));
    free(text);
    RLRunLoopSourceInvalidate(g_asks);
    RLRelease(g_asks);
    return harness_failures;
}
