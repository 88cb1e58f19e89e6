"""Timers, sources and observers: callbacks, order, traces."""
import sys

import runloop
from runloop import Activity, RunResult


def test_a_repeating_timer_fires_until_the_loop_is_stopped(mode):
    loop = runloop.RunLoop.current()
    ticks = []

    def tick(timer):
        ticks.append(timer.is_valid)
        if len(ticks) == 3:
            loop.stop()

    timer = runloop.Timer(tick, interval=0.001)
    loop.add_timer(timer, mode)
    assert loop.run(mode, 30) is RunResult.STOPPED
    assert ticks == [True, True, True]
    assert timer.repeats and timer.interval == 0.001
    timer.invalidate()
    assert not timer.is_valid and not loop.contains_timer(timer, mode)


def test_a_one_shot_timer_invalidates_itself_and_the_run_finishes(mode):
    loop = runloop.RunLoop.current()
    fired = []
    timer = runloop.Timer(lambda t: fired.append(t), delay=0.001)
    loop.add_timer(timer, mode)
    assert loop.run(mode, 30) is RunResult.FINISHED
    assert fired == [timer] and not timer.is_valid


def test_a_repeating_timers_step_is_capped_as_in_cf(mode):
    # CF steps at most 504,911,232 s (about 16 years) between two fire
    # dates: a longer interval gives a finite next fire date, never +inf.
    loop = runloop.RunLoop.current()
    start = runloop.absolute_time()
    fired = []
    timer = runloop.Timer(lambda t: fired.append(t), interval=sys.float_info.max, fire_date=start)
    loop.add_timer(timer, mode)
    loop.run(mode, 0.05)
    assert fired == [timer] and timer.repeats
    assert round(timer.next_fire_date - start) == 504911232
    assert loop.next_timer_fire_date(mode) == timer.next_fire_date
    assert timer.interval == sys.float_info.max
    timer.invalidate()


def test_timer_properties(mode):
    timer = runloop.Timer(lambda t: None, interval=2.5, fire_date=1000.0, order=7, tolerance=0.5)
    assert (timer.next_fire_date, timer.interval, timer.order, timer.tolerance) == (1000.0, 2.5, 7, 0.5)
    timer.next_fire_date = 2000.0
    assert timer.next_fire_date == 2000.0


def test_a_timer_in_common_modes_fires_in_a_mode_made_common(mode):
    loop = runloop.RunLoop.current()
    loop.add_common_mode(mode)
    fired = []
    timer = runloop.Timer(lambda t: (fired.append(loop.current_mode), loop.stop()), delay=0.001)
    loop.add_timer(timer, runloop.COMMON_MODES)
    assert loop.contains_timer(timer, mode)
    assert loop.run(mode, 30) is RunResult.STOPPED
    assert fired == [mode]


def test_a_signalled_source_is_performed_once_and_scheduled_per_mode(mode):
    loop = runloop.RunLoop.current()
    trace = []
    source = runloop.Source(lambda: trace.append("perform"),
                            schedule=lambda rl, m: trace.append(("schedule", rl == loop, m)),
                            cancel=lambda rl, m: trace.append(("cancel", rl == loop, m)))
    loop.add_source(source, mode)
    assert loop.contains_source(source, mode)
    source.signal()
    source.signal()
    assert source.is_signalled
    loop.run(mode, 0)
    loop.remove_source(source, mode)
    assert trace == [("schedule", True, mode), "perform", ("cancel", True, mode)]
    assert not source.is_signalled and source.is_valid


def test_sources_perform_by_order(mode):
    loop = runloop.RunLoop.current()
    trace = []
    sources = [runloop.Source(lambda n=n: trace.append(n), order=n) for n in (3, 1, 2)]
    for source in sources:
        loop.add_source(source, mode)
        source.signal()
    loop.run(mode, 0)
    assert trace == [1, 2, 3]
    for source in sources:
        source.invalidate()


def test_an_observer_sees_each_activity_of_a_run(mode):
    loop = runloop.RunLoop.current()
    trace = []
    observer = runloop.Observer(lambda o, activity: trace.append(activity))
    loop.add_observer(observer, mode)
    loop.add_timer(runloop.Timer(lambda t: None, delay=0.001), mode)
    assert loop.run(mode, 30) is RunResult.FINISHED
    assert trace == [Activity.ENTRY, Activity.BEFORE_TIMERS, Activity.BEFORE_SOURCES,
                     Activity.BEFORE_WAITING, Activity.AFTER_WAITING, Activity.EXIT]
    observer.invalidate()


def test_observers_run_by_order_lowest_first(mode):
    loop = runloop.RunLoop.current()
    trace = []
    for name, order in (("last", 2**31), ("first", -2**31), ("middle", 0)):
        loop.add_observer(runloop.Observer(lambda o, a, name=name: trace.append(name),
                                           Activity.ENTRY, order=order), mode)
    loop.add_timer(runloop.Timer(lambda t: None, fire_date=1e12), mode)  # keeps the mode non-empty
    loop.run(mode, 0)
    assert trace == ["first", "middle", "last"]


def test_a_non_repeating_observer_is_called_once(mode):
    loop = runloop.RunLoop.current()
    calls = []
    observer = runloop.Observer(lambda o, a: calls.append(a), Activity.BEFORE_TIMERS, repeats=False)
    loop.add_observer(observer, mode)
    loop.add_timer(runloop.Timer(lambda t: None, fire_date=1e12), mode)
    loop.run(mode, 0)
    loop.run(mode, 0)
    assert calls == [Activity.BEFORE_TIMERS] and not observer.is_valid and not observer.repeats
