/* Timers due together fire in one pass, and each is checked again when its
 * turn comes: a timer that an earlier callout of the same pass moved to a
 * later date does not fire now, but at that date (once, if it is a one-shot
 * timer; then on its new grid, if it repeats); one moved to another past
 * date still fires in its turn. */
#include "conf.h"

static CFRunLoopTimerRef g_moved, g_repeating, g_past;
static int g_repeating_fires;

static void first_cb(CFRunLoopTimerRef t, void *info)
{
    T("A: first fired: moves the second 50 ms ahead");
    CFRunLoopTimerSetNextFireDate(g_moved, now() + 0.05);
}
static void moved_cb(CFRunLoopTimerRef t, void *info) { T("A: second fired"); }
static void third_cb(CFRunLoopTimerRef t, void *info) { T("A: third fired"); }

static void mover_cb(CFRunLoopTimerRef t, void *info)
{
    T("B: mover fired: moves the repeating timer 50 ms ahead");
    CFRunLoopTimerSetNextFireDate(g_repeating, now() + 0.05);
}
static void repeating_cb(CFRunLoopTimerRef t, void *info)
{
    T("B: repeating timer fired (%d)", ++g_repeating_fires);
}

static void past_mover_cb(CFRunLoopTimerRef t, void *info)
{
    T("C: first fired: moves the second to another past date");
    CFRunLoopTimerSetNextFireDate(g_past, now() - 1.0);
}
static void past_cb(CFRunLoopTimerRef t, void *info) { T("C: second fired"); }
static void last_cb(CFRunLoopTimerRef t, void *info) { T("C: third fired"); }

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    CFStringRef mode = kCFRunLoopDefaultMode;
    CFRunLoopSourceRef keep = keep_mode_alive(mode);

    /* A: three one-shot timers, all due when the run starts. */
    CFRunLoopTimerRef first = new_timer(now() - 0.3, 0, first_cb, NULL);
    g_moved = new_timer(now() - 0.2, 0, moved_cb, NULL);
    CFRunLoopTimerRef third = new_timer(now() - 0.1, 0, third_cb, NULL);
    CFRunLoopAddTimer(rl, first, mode);
    CFRunLoopAddTimer(rl, g_moved, mode);
    CFRunLoopAddTimer(rl, third, mode);
    T("A: run 0 s: %s", run(mode, 0, FALSE));
    T("A: second valid: %s, in mode: %s", yesno(CFRunLoopTimerIsValid(g_moved)),
      yesno(CFRunLoopContainsTimer(rl, g_moved, mode)));
    T("A: run 150 ms: %s", run(mode, 0.15, FALSE));
    T("A: second valid: %s, in mode: %s", yesno(CFRunLoopTimerIsValid(g_moved)),
      yesno(CFRunLoopContainsTimer(rl, g_moved, mode)));

    /* B: a repeating timer (every 10 s) moved before its turn. */
    CFRunLoopTimerRef mover = new_timer(now() - 0.3, 0, mover_cb, NULL);
    g_repeating = new_timer(now() - 0.2, 10.0, repeating_cb, NULL);
    CFRunLoopAddTimer(rl, mover, mode);
    CFRunLoopAddTimer(rl, g_repeating, mode);
    T("B: run 0 s: %s", run(mode, 0, FALSE));
    T("B: repeating fires so far: %d", g_repeating_fires);
    T("B: run 150 ms: %s", run(mode, 0.15, FALSE));
    T("B: repeating fires: %d, next fire date 9-11 s ahead: %s", g_repeating_fires,
      yesno(CFRunLoopTimerGetNextFireDate(g_repeating) - now() > 9.0
            && CFRunLoopTimerGetNextFireDate(g_repeating) - now() < 11.0));
    CFRunLoopTimerInvalidate(g_repeating);

    /* C: moved to another past date: still due, it fires in its turn. */
    CFRunLoopTimerRef past_mover = new_timer(now() - 0.3, 0, past_mover_cb, NULL);
    g_past = new_timer(now() - 0.2, 0, past_cb, NULL);
    CFRunLoopTimerRef last = new_timer(now() - 0.1, 0, last_cb, NULL);
    CFRunLoopAddTimer(rl, past_mover, mode);
    CFRunLoopAddTimer(rl, g_past, mode);
    CFRunLoopAddTimer(rl, last, mode);
    T("C: run 0 s: %s", run(mode, 0, FALSE));
    T("C: second valid: %s", yesno(CFRunLoopTimerIsValid(g_past)));

    CFRelease(first);
    CFRelease(g_moved);
    CFRelease(third);
    CFRelease(mover);
    CFRelease(g_repeating);
    CFRelease(past_mover);
    CFRelease(g_past);
    CFRelease(last);
    drop_source(keep);
}
CONF_MAIN(scenario)
