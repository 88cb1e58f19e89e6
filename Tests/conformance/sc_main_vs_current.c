/* CFRunLoopGetMain is the same loop from every thread and is the main
 * thread's current loop; a secondary thread's current loop is its own,
 * the same on every call, and differs from the main loop and from any
 * other thread's; the main loop's current mode is NULL while it does not
 * run. */
#include "conf.h"

static CFRunLoopRef g_scenario_rl, g_main_seen;

static void *other(void *arg)
{
    CFRunLoopRef mine = CFRunLoopGetCurrent();
    T("other thread: main is the same as on the scenario thread: %s", yesno(CFRunLoopGetMain() == g_main_seen));
    T("other thread: its current differs from the scenario thread's: %s", yesno(mine != g_scenario_rl));
    T("other thread: its current is not main: %s", yesno(mine != CFRunLoopGetMain()));
    return NULL;
}

static void scenario(void)
{
    g_scenario_rl = CFRunLoopGetCurrent();
    g_main_seen = CFRunLoopGetMain();
    T("scenario thread: current is stable: %s", yesno(CFRunLoopGetCurrent() == g_scenario_rl));
    T("scenario thread: current is not main: %s", yesno(g_scenario_rl != g_main_seen));
    T("scenario thread: main is stable: %s", yesno(CFRunLoopGetMain() == g_main_seen));
    T("type ids: loop %s", yesno(CFGetTypeID(g_scenario_rl) == CFRunLoopGetTypeID()));
    CFStringRef m = CFRunLoopCopyCurrentMode(g_main_seen);
    T("main loop's current mode: %s", mname(m));
    if (m) CFRelease(m);
    pthread_t th = start_thread(other, NULL);
    pthread_join(th, NULL);
}

static void on_main(void)
{
    T("main thread: current is main: %s", yesno(CFRunLoopGetCurrent() == CFRunLoopGetMain()));
    T("main thread: main is the one the scenario thread saw: %s", yesno(CFRunLoopGetMain() == g_main_seen));
}
CONF_MAIN_AFTER(scenario, on_main)
