/*
 * test_rl_handler_blocks — the block entry points (clang -fblocks):
 * RLRunLoopPerformBlock runs a copied block once in a matching mode (also
 * with an RLArrayRef of modes), RLRunLoopObserverCreateWithHandler and
 * RLRunLoopTimerCreateWithHandler call their blocks with their own handle,
 * and blocks capturing stack variables stay valid after the frame is gone.
 * runloop-only trace (hand-written): the CF twin of PerformBlock takes the
 * same arguments, this checks the RL-specific mode array too.
 */
#include "harness.h"

#if !defined(__BLOCKS__)
int main(void) { printf("skipped: compiler without blocks\n"); return harness_failures; }
#else

static void queue_from_a_dead_frame(RLRunLoopRef rl, int value)
{
    RLRunLoopPerformBlock(rl, kRLRunLoopDefaultMode, ^{ TRACE("block captured %d", value); });
}

static void scenario(void)
{
    RLRunLoopRef rl = RLRunLoopGetCurrent();
    RLRunLoopTimerRef keep = RLRunLoopTimerCreateWithHandler(NULL, now() + 100, 0, 0, 0, ^(RLRunLoopTimerRef t) { (void)t; });
    RLRunLoopAddTimer(rl, keep, kRLRunLoopCommonModes);
    RLRunLoopAddTimer(rl, keep, MODE("side"));

    queue_from_a_dead_frame(rl, 41);
    queue_from_a_dead_frame(rl, 42);
    RLRunLoopMode list[] = { MODE("side"), MODE("other") };
    RLArrayRef modes = RLArrayCreateWithModes(list, 2);
    RLRunLoopPerformBlock(rl, modes, ^{ TRACE("block for side/other"); });
    RLRelease(modes);
    TRACE("run default: %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0, 0)));
    TRACE("run side: %s", result_name(RLRunLoopRunInMode(MODE("side"), 0, 0)));
    TRACE("run side again: %s", result_name(RLRunLoopRunInMode(MODE("side"), 0, 0)));

    __block int seen = 0;
    RLRunLoopObserverRef obs = RLRunLoopObserverCreateWithHandler(NULL, kRLRunLoopEntry | kRLRunLoopExit, 1, 0,
        ^(RLRunLoopObserverRef o, RLRunLoopActivity a) {
            seen++;
            TRACE("observer block %s, own handle valid: %s", activity_name(a), yes_no(RLRunLoopObserverIsValid(o)));
        });
    RLRunLoopAddObserver(rl, obs, kRLRunLoopDefaultMode);
    RLRunLoopTimerRef t = RLRunLoopTimerCreateWithHandler(NULL, now() + 0.01, 0, 0, 0, ^(RLRunLoopTimerRef self) {
        TRACE("timer block, repeats: %s", yes_no(RLRunLoopTimerDoesRepeat(self)));
    });
    RLRunLoopAddTimer(rl, t, kRLRunLoopDefaultMode);
    TRACE("run default 100 ms: %s", result_name(RLRunLoopRunInMode(kRLRunLoopDefaultMode, 0.1, 1)));
    TRACE("observer calls: %d", seen);
    TRACE("timer valid after firing: %s", yes_no(RLRunLoopTimerIsValid(t)));

    RLRunLoopObserverInvalidate(obs);
    RLRelease(obs);
    RLRelease(t);
    RLRunLoopTimerInvalidate(keep);
    RLRelease(keep);
}

int main(void)
{
    run_on_thread(scenario);
    return trace_check("rl_handler_blocks") | harness_failures;
}
#endif
