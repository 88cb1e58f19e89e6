/*
 * test_main_loop — RLRunLoopGetMain from another thread returns the main
 * thread's loop (the same object the main thread gets from GetCurrent);
 * a secondary thread's GetCurrent is a different loop, stable across
 * calls; GetMain on the main thread equals its GetCurrent.  The main loop
 * is not running, so its current mode is (null).
 */
#include "harness.h"

static RLRunLoopRef g_main_seen_from_thread;
static RLRunLoopRef g_thread_loop_1, g_thread_loop_2, g_thread_main_2;

static void scenario(void)
{
    g_main_seen_from_thread = RLRunLoopGetMain();
    g_thread_loop_1 = RLRunLoopGetCurrent();
    g_thread_loop_2 = RLRunLoopGetCurrent();
    g_thread_main_2 = RLRunLoopGetMain();
    trace_current_mode("thread: main loop", g_main_seen_from_thread);
}

int main(void)
{
    /* the thread asks for the main loop before the main thread does */
    run_on_thread(scenario);
    RLRunLoopRef mine = RLRunLoopGetCurrent();
    TRACE("GetMain from a thread == main's GetCurrent: %s", yes_no(g_main_seen_from_thread == mine));
    TRACE("GetMain twice from a thread gives the same loop: %s", yes_no(g_thread_main_2 == g_main_seen_from_thread));
    TRACE("main's GetMain == main's GetCurrent: %s", yes_no(RLRunLoopGetMain() == mine));
    TRACE("thread's GetCurrent is stable: %s", yes_no(g_thread_loop_1 == g_thread_loop_2));
    TRACE("thread's loop != main loop: %s", yes_no(g_thread_loop_1 != mine));
    return trace_check("main_loop") | harness_failures;
}
