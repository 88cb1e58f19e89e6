/*
 * test_source_callbacks — a version-0 source's schedule and cancel
 * callbacks run once per concrete mode it joins or leaves, on the calling
 * thread, with the loop and the concrete mode name (never
 * kRLRunLoopCommonModes):
 *   - adding to the common modes schedules it in every common mode (the
 *     order among modes is unspecified: those lines are sorted);
 *   - marking another mode common later schedules it there too;
 *   - removing from one mode by name cancels it there only;
 *   - removing from the common modes cancels it in each common mode;
 *   - invalidating cancels it in each remaining mode.
 */
#include "harness.h"

static RLRunLoopRef g_rl;

static void schedule_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode)
{
    trace_defer("schedule in %s%s", mode_name(mode), rl == g_rl ? "" : " (other loop!)");
}
static void cancel_cb(void *info, RLRunLoopRef rl, RLRunLoopMode mode)
{
    trace_defer("cancel in %s%s", mode_name(mode), rl == g_rl ? "" : " (other loop!)");
}
static void perform_cb(void *info) { TRACE("perform"); }

static void scenario(void)
{
    RLRunLoopRef rl = g_rl = RLRunLoopGetCurrent();
    RLRunLoopSourceContext ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.schedule = schedule_cb;
    ctx.cancel = cancel_cb;
    ctx.perform = perform_cb;
    RLRunLoopSourceRef s = RLRunLoopSourceCreate(NULL, 0, &ctx);

    RLRunLoopAddCommonMode(rl, MODE("tracking"));
    TRACE("add to common modes (default, tracking)");
    RLRunLoopAddSource(rl, s, kRLRunLoopCommonModes);
    trace_flush_sorted();
    TRACE("add to other by name");
    RLRunLoopAddSource(rl, s, MODE("other"));
    trace_flush_sorted();
    TRACE("mark late common");
    RLRunLoopAddCommonMode(rl, MODE("late"));
    trace_flush_sorted();
    TRACE("remove from tracking by name");
    RLRunLoopRemoveSource(rl, s, MODE("tracking"));
    trace_flush_sorted();
    TRACE("in common items: %s", yes_no(RLRunLoopContainsSource(rl, s, kRLRunLoopCommonModes)));
    TRACE("remove from common modes");
    RLRunLoopRemoveSource(rl, s, kRLRunLoopCommonModes);
    trace_flush_sorted();
    TRACE("add to default and late by name");
    RLRunLoopAddSource(rl, s, kRLRunLoopDefaultMode);
    RLRunLoopAddSource(rl, s, MODE("late"));
    trace_flush_sorted();
    TRACE("invalidate");
    RLRunLoopSourceInvalidate(s);
    trace_flush_sorted();
    TRACE("add after invalidate (nothing happens)");
    RLRunLoopAddSource(rl, s, MODE("other"));
    trace_flush_sorted();
    TRACE("in other: %s", yes_no(RLRunLoopContainsSource(rl, s, MODE("other"))));
    TRACE("release");
    RLRelease(s);
    trace_flush_sorted();
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("source_callbacks") | harness_failures;
}
