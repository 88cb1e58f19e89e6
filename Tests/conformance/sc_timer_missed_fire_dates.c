/* A repeating timer whose loop was busy past several fire dates fires
 * once (no burst) and keeps its schedule: the next fire date is the next
 * slot of the original grid in the future. */
#include "conf.h"

static CFAbsoluteTime g_start;
static int g_fires;

static void fire(CFRunLoopTimerRef t, void *info)
{
    g_fires++;
    T("timer fired (%d)", g_fires);
    if (g_fires == 1) {
        T("callout busy for 0.35 s (slots at +0.2, +0.3, +0.4 pass)");
        sleep_s(0.35);
    } else {
        CFRunLoopStop(CFRunLoopGetCurrent());
    }
}

static void scenario(void)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    g_start = now();
    CFRunLoopTimerRef t = new_timer(g_start + 0.1, 0.1, fire, NULL);
    CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    T("run: %s", run(kCFRunLoopDefaultMode, 5.0, FALSE));
    CFAbsoluteTime next = CFRunLoopTimerGetNextFireDate(t);
    double slots = (next - g_start) / 0.1;
    long rounded = (long)(slots + 0.5);
    T("fires: %d", g_fires);
    T("next fire date on the original 0.1 s grid: %s", yesno(slots - (double)rounded < 0.01 && slots - (double)rounded > -0.01));
    T("next fire date in the future: %s", yesno(next > now()));
    drop_timer(t);
}
CONF_MAIN(scenario)
