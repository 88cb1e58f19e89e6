/* Signalled sources are performed in one pass, lowest order first; a
 * source removed by an earlier perform of the same pass is still performed
 * in that pass (the pass's list is taken before the first perform), and
 * is no longer pending when added back. */
#include "conf.h"

static CFRunLoopSourceRef g_victim;

static void perform(void *info) { T("perform %s", (const char *)info); }
static void remover(void *info)
{
    T("perform %s: removes order-7", (const char *)info);
    CFRunLoopRemoveSource(CFRunLoopGetCurrent(), g_victim, kCFRunLoopDefaultMode);
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFIndex orders[] = { 5, -3, 10, 0, 2 };
    const char *names[] = { "order 5", "order -3", "order 10", "order 0", "order 2" };
    CFRunLoopSourceRef s[5];
    for (int i = 0; i < 5; i++) {
        s[i] = new_source(orders[i], (void *)names[i], perform);
        CFRunLoopAddSource(rl, s[i], kCFRunLoopDefaultMode);
    }
    T("A: signal all five (in creation order)");
    for (int i = 0; i < 5; i++) CFRunLoopSourceSignal(s[i]);
    T("A: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    T("B: order-6 source removes the order-7 one");
    CFRunLoopSourceRef r = new_source(6, "order 6", remover);
    g_victim = new_source(7, "order 7", perform);
    CFRunLoopAddSource(rl, r, kCFRunLoopDefaultMode);
    CFRunLoopAddSource(rl, g_victim, kCFRunLoopDefaultMode);
    CFRunLoopSourceSignal(g_victim);
    CFRunLoopSourceSignal(r);
    T("B: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    T("B: order-7 added back: nothing pending");
    CFRunLoopAddSource(rl, g_victim, kCFRunLoopDefaultMode);
    T("B: %s", run(kCFRunLoopDefaultMode, 0, FALSE));
    for (int i = 0; i < 5; i++) drop_source(s[i]);
    drop_source(r);
    drop_source(g_victim);
}
CONF_MAIN(scenario)
