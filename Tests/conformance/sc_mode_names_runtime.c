/* Mode names made at run time (CFStringCreateWithCString, CFStringCreateCopy)
 * work wherever a CFSTR does: as run, add, contains, common and perform
 * modes; compared with CFEqual / CFStringCompare; printed with
 * CFStringGetCStringPtr or CFStringGetCString; retained and released.  A
 * name released while the loop runs in it stays defined: the loop keeps
 * its own copy, and the current mode still reads back. */
#include "conf.h"

/* Prints a name as CF code does: the direct pointer if there is one, else a copy. */
static const char *text(CFStringRef s, char *buf, size_t size)
{
    const char *p = CFStringGetCStringPtr(s, kCFStringEncodingUTF8);
    if (p) return p;
    return CFStringGetCString(s, buf, (CFIndex)size, kCFStringEncodingUTF8) ? buf : "(unprintable)";
}

static const char *cmp_name(CFComparisonResult r)
{
    return r == kCFCompareLessThan ? "less" : r == kCFCompareEqualTo ? "equal" : "greater";
}

static CFStringRef g_mode;  /* released inside the timer's callout */

static void fire(CFRunLoopTimerRef t, void *info)
{
    CFStringRef cur = CFRunLoopCopyCurrentMode(CFRunLoopGetCurrent());
    char buf[64];
    T("timer: current mode %s, equal to the made name: %s", text(cur, buf, sizeof buf), yesno(CFEqual(cur, g_mode)));
    CFRelease(cur);
    CFRelease(g_mode);  /* the last reference the scenario holds */
    g_mode = NULL;
    cur = CFRunLoopCopyCurrentMode(CFRunLoopGetCurrent());
    T("timer: after releasing the name: current mode %s", text(cur, buf, sizeof buf));
    CFRelease(cur);
    CFRunLoopStop(CFRunLoopGetCurrent());
}

static void observe(CFRunLoopObserverRef o, CFRunLoopActivity a, void *info)
{
    if (a == kCFRunLoopEntry || a == kCFRunLoopExit) T("observer %s", act(a));
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    char built[32], buf[64];
    snprintf(built, sizeof built, "rt-mode-%d", 7);
    CFStringRef a = CFStringCreateWithCString(kCFAllocatorDefault, built, kCFStringEncodingUTF8);
    memset(built, 'x', sizeof built - 1);  /* the caller's buffer may change */
    built[sizeof built - 1] = '\0';
    CFStringRef b = CFStringCreateCopy(kCFAllocatorDefault, a);
    CFStringRef c = CFStringCreateWithCString(kCFAllocatorDefault, "rt-mode-7", kCFStringEncodingASCII);
    T("made: %s (length %ld)", text(a, buf, sizeof buf), (long)CFStringGetLength(a));
    T("CFEqual(made, copy) %s, (made, same text) %s, (made, CFSTR) %s, (made, other) %s",
      yesno(CFEqual(a, b)), yesno(CFEqual(a, c)), yesno(CFEqual(a, CFSTR("rt-mode-7"))),
      yesno(CFEqual(a, CFSTR("rt-mode-8"))));
    T("compare with rt-mode-8: %s; with rt-mode-10: %s; with RT-MODE-7 (case-insensitive): %s; (literal): %s",
      cmp_name(CFStringCompare(a, CFSTR("rt-mode-8"), 0)), cmp_name(CFStringCompare(a, CFSTR("rt-mode-10"), 0)),
      cmp_name(CFStringCompare(a, CFSTR("RT-MODE-7"), kCFCompareCaseInsensitive)),
      cmp_name(CFStringCompare(a, CFSTR("RT-MODE-7"), 0)));
    char copied[64];
    T("GetCString into a big buffer: %s (%s)", yesno(CFStringGetCString(b, copied, sizeof copied, kCFStringEncodingUTF8)), copied);
    T("GetCString into 4 bytes: %s", yesno(CFStringGetCString(b, copied, 4, kCFStringEncodingUTF8)));
    CFRetain(a);
    CFRelease(a);

    /* empty made mode: Finished */
    T("run the made mode, empty: %s", run(a, 0.5, FALSE));

    /* items added under one name are found under the others */
    CFRunLoopSourceRef s = keep_mode_alive(a);
    T("contains the source under the copy: %s, under CFSTR: %s", yesno(CFRunLoopContainsSource(rl, s, b)),
      yesno(CFRunLoopContainsSource(rl, s, CFSTR("rt-mode-7"))));
    CFRunLoopObserverRef o = new_observer(kCFRunLoopAllActivities, TRUE, 0, observe, NULL);
    CFRunLoopAddObserver(rl, o, c);
    CFRunLoopTimerRef t = new_timer(now() + 0.05, 0, fire, NULL);
    CFRunLoopAddTimer(rl, t, b);
    T_all_modes("modes", rl);

    /* a made name in the common modes, and as a perform mode */
    CFStringRef common = CFStringCreateWithCString(NULL, "rt-common", kCFStringEncodingUTF8);
    CFRunLoopAddCommonMode(rl, common);
    CFRunLoopSourceRef s2 = keep_mode_alive(kCFRunLoopCommonModes);
    T("common item in the made common mode: %s", yesno(CFRunLoopContainsSource(rl, s2, common)));
    CFRelease(common);
    CFRunLoopPerformBlock(rl, b, ^{ T("block performed in the copy's mode"); });

    /* run in a made name released while the loop runs in it */
    g_mode = CFStringCreateWithCString(NULL, "rt-mode-7", kCFStringEncodingUTF8);
    CFRelease(a);
    CFRelease(c);
    T("run: %s", run(g_mode, 5, FALSE));
    T("after the run: contains the source: %s", yesno(CFRunLoopContainsSource(rl, s, CFSTR("rt-mode-7"))));
    T("next run in the mode, timer gone: %s", run(b, 0.05, FALSE));
    CFRelease(b);
    drop_observer(o);
    drop_timer(t);
    drop_source(s);
    drop_source(s2);
}
CONF_MAIN(scenario)
