/* A repeating timer created with a fire date in the past fires at once and
 * restarts its schedule at the moment it was created (not on the grid of
 * the old date): fire date now - 1.2 s, interval 0.5 s fires at +0 and
 * then reports +0.5, +1.0, +1.5 (the old grid would be +0.3, +0.8, +1.3).
 * SetNextFireDate with a past date restarts the schedule in the same way,
 * from the moment it is called.  GetNextFireDate reads back the past date
 * as given until the first firing.  (Times are rounded to 0.1 s.) */
#include "conf.h"

static CFAbsoluteTime g_origin;
static int g_fires;

static double slot(CFAbsoluteTime t)
{
    double x = (t - g_origin) * 10;
    return (double)(long)(x + (x < 0 ? -0.5 : 0.5)) / 10;
}

/* Inside the callout GetNextFireDate is the date being fired (CF_NOTES §6). */
static void fire(CFRunLoopTimerRef t, void *info)
{
    g_fires++;
    T("%s: firing %d, date being fired %+.1f", (const char *)info, g_fires, slot(CFRunLoopTimerGetNextFireDate(t)));
    if (g_fires == 4) CFRunLoopStop(CFRunLoopGetCurrent());
}

static void one(const char *label, int via_set)
{
    CFRunLoopRef rl = CFRunLoopGetCurrent();
    g_fires = 0;
    g_origin = now();
    CFRunLoopTimerRef t;
    if (via_set) {
        t = new_timer(g_origin + 1000, 0.5, fire, (void *)label);
        CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
        CFRunLoopTimerSetNextFireDate(t, g_origin - 1.2);
    } else {
        t = new_timer(g_origin - 1.2, 0.5, fire, (void *)label);
        CFRunLoopAddTimer(rl, t, kCFRunLoopDefaultMode);
    }
    T("%s: next fire date before the run %+.1f", label, slot(CFRunLoopTimerGetNextFireDate(t)));
    T("%s: run: %s", label, run(kCFRunLoopDefaultMode, 5, FALSE));
    T("%s: next fire date after the run %+.1f", label, slot(CFRunLoopTimerGetNextFireDate(t)));
    drop_timer(t);
}

static void scenario(void)
{
    one("created in the past", 0);
    one("moved into the past", 1);
}
CONF_MAIN(scenario)
