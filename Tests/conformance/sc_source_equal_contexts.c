/* CF compares version-0 sources by their context (order, info, perform,
 * and the context's equal() callback when set), not by identity: a mode
 * holds at most one of several equal sources. */
#include "conf.h"

static void perform(void *info) { T("perform %s", (const char *)info); }
static Boolean same_tag(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b) == 0; }
static CFHashCode tag_hash(const void *a) { return (CFHashCode)strlen((const char *)a); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFRunLoopSourceRef a = new_source(0, "same", perform);
    CFRunLoopSourceRef b = new_source(0, "same", perform);
    CFRunLoopSourceRef c = new_source(1, "same", perform);
    CFRunLoopAddSource(rl, a, kCFRunLoopDefaultMode);
    T("A: a added; contains b (same order, info, perform): %s", yesno(CFRunLoopContainsSource(rl, b, kCFRunLoopDefaultMode)));
    T("A: contains c (other order): %s", yesno(CFRunLoopContainsSource(rl, c, kCFRunLoopDefaultMode)));
    CFRunLoopAddSource(rl, b, kCFRunLoopDefaultMode);
    CFRunLoopSourceSignal(b);
    T("A: b added and signalled, run 0 s: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    CFRunLoopRemoveSource(rl, b, kCFRunLoopDefaultMode);
    T("A: b removed; contains a: %s", yesno(CFRunLoopContainsSource(rl, a, kCFRunLoopDefaultMode)));

    char tag1[] = "tag", tag2[] = "tag";
    CFRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.equal = same_tag;
    ctx.hash = tag_hash;
    ctx.perform = perform;
    ctx.info = tag1;
    CFRunLoopSourceRef d = CFRunLoopSourceCreate(NULL, 0, &ctx);
    ctx.info = tag2;
    CFRunLoopSourceRef e = CFRunLoopSourceCreate(NULL, 0, &ctx);
    CFRunLoopAddSource(rl, d, CFSTR("m"));
    T("B: d added; contains e (equal() says equal): %s", yesno(CFRunLoopContainsSource(rl, e, CFSTR("m"))));
    drop_source(a);
    drop_source(b);
    drop_source(c);
    drop_source(d);
    drop_source(e);
}
CONF_MAIN(scenario)
