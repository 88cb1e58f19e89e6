/*
 * test_rl_mode_names.c — RLModeNameCreate and RLEqual (cfcompat.h's
 * CFStringCreateWithCString / CFStringCreateCopy / CFEqual): interning,
 * the life of a made name, CF's equality on handles, and bad input
 * (NULL, too long, stale handles).  Runloop-only: checks, no trace.
 */
#include "harness.h"

static void quiet(RLErrorCode code, const char *function, const char *message, void *info)
{
    (void)code; (void)function; (void)message; (void)info;
}

static RLBoolean same_text(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b) == 0; }
static RLHashCode text_hash(const void *a) { return (RLHashCode)strlen((const char *)a); }
static void perform(void *info) { (void)info; }
static void on_timer(RLRunLoopTimerRef t, void *info) { (void)t; (void)info; }

static RLRunLoopSourceRef source_with(const char *info, RLBoolean (*equal)(const void *, const void *))
{
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.info = (void *)info;
    ctx.perform = perform;
    ctx.equal = equal;
    ctx.hash = equal ? text_hash : NULL;
    return RLRunLoopSourceCreate(NULL, 0, &ctx);
}

static void test_interning(void)
{
    char text[16] = "made-1";
    RLRunLoopMode a = RLModeNameCreate(text);
    CHECK(a != NULL && a != text && strcmp(a, "made-1") == 0);
    strcpy(text, "changed");
    CHECK(strcmp(a, "made-1") == 0);  /* the library's own copy */
    RLRunLoopMode b = RLModeNameCreate("made-1");
    CHECK(b == a);                     /* interned: one pointer per text */
    CHECK(RLModeNameCreate(a) == a);   /* a copy of a made name */
    CHECK(RLRetain(a) == a);
    RLRelease(a);
    RLRelease(a);
    RLRelease(a);                      /* accepted any number of times */
    CHECK(RLGetLastError() == kRLErrorNone);
    CHECK(strcmp(a, "made-1") == 0);   /* still defined */

    /* the name a loop reports is the same interned pointer */
    RLRunLoopSourceRef s = source_with("x", NULL);
    RLRunLoopAddSource(RLRunLoopGetCurrent(), s, a);
    RLArrayRef modes = RLRunLoopCopyAllModes(RLRunLoopGetCurrent());
    int found = 0;
    for (RLIndex i = 0; i < RLArrayGetCount(modes); i++)
        if (RLArrayGetValueAtIndex(modes, i) == (const void *)a) found = 1;
    CHECK(found);
    RLRelease(modes);
    RLRunLoopSourceInvalidate(s);
    RLRelease(s);

    /* "" is a name like any other; 1024 bytes is the limit */
    CHECK(RLModeNameCreate("") != NULL && *RLModeNameCreate("") == '\0');
    char longest[1026];
    memset(longest, 'n', 1025);
    longest[1024] = '\0';
    CHECK(RLModeNameCreate(longest) != NULL);
    longest[1024] = 'n';
    longest[1025] = '\0';
    RLClearLastError();
    CHECK(RLModeNameCreate(longest) == NULL);
    CHECK(RLGetLastError() == kRLErrorInvalidArgument);
    RLClearLastError();
    CHECK(RLModeNameCreate(NULL) == NULL);
    CHECK(RLGetLastError() == kRLErrorInvalidArgument);
}

static void test_equal(void)
{
    char buf[8] = "m";
    RLClearLastError();
    CHECK(RLEqual("m", buf));                       /* any two C strings, by text */
    CHECK(RLEqual(RLModeNameCreate("m"), "m"));
    CHECK(!RLEqual("m", "n"));
    CHECK(!RLEqual("", "m"));
    CHECK(RLEqual(kRLRunLoopDefaultMode, "kCFRunLoopDefaultMode"));
    CHECK(RLGetLastError() == kRLErrorNone);

    RLRunLoopSourceRef a = source_with("same", same_text);
    RLRunLoopSourceRef b = source_with("same", same_text);
    RLRunLoopSourceRef c = source_with("other", same_text);
    RLRunLoopSourceRef d = source_with("same", NULL);  /* other callbacks */
    CHECK(RLEqual(a, a));
    CHECK(RLEqual(a, b) && RLEqual(b, a));            /* CF's rule for sources */
    CHECK(!RLEqual(a, c));
    CHECK(!RLEqual(a, d));
    RLRunLoopTimerRef t = RLRunLoopTimerCreate(NULL, now() + 100, 0, 0, 0, on_timer, NULL);
    RLRunLoopTimerRef u = RLRunLoopTimerCreate(NULL, now() + 100, 0, 0, 0, on_timer, NULL);
    CHECK(RLEqual(t, t));
    CHECK(!RLEqual(t, u));                            /* other objects: identity */
    CHECK(!RLEqual(t, a));
    CHECK(!RLEqual(t, "m") && !RLEqual("m", t));     /* a name is never an object */
    CHECK(RLGetLastError() == kRLErrorNone);

    CHECK(!RLEqual(NULL, "m"));
    CHECK(RLGetLastError() == kRLErrorNullHandle);
    RLClearLastError();
    CHECK(!RLEqual(NULL, NULL));
    CHECK(RLGetLastError() == kRLErrorNullHandle);

    RLRunLoopTimerInvalidate(u);
    RLRelease(u);                                     /* u is stale now */
    RLClearLastError();
    CHECK(!RLEqual(t, u));
    CHECK(RLGetLastError() == kRLErrorStaleHandle);
    RLClearLastError();
    CHECK(!RLEqual(u, u));
    CHECK(RLGetLastError() == kRLErrorStaleHandle);

    RLRunLoopTimerInvalidate(t);
    RLRelease(t);
    RLRelease(a);
    RLRelease(b);
    RLRelease(c);
    RLRelease(d);
}

int main(void)
{
    RLSetErrorHandler(quiet, NULL);
    test_interning();
    test_equal();
    RLSetErrorHandler(NULL, NULL);
    return harness_failures ? 1 : 0;
}
