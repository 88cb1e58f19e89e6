"""Exceptions are reported, not swallowed; objects are released when
Python drops them (and the loop no longer holds them)."""
import gc
import threading
import time
import weakref

import pytest

import runloop
from runloop import Activity, RunResult, _callbacks


class Marker:
    pass


def test_an_exception_in_a_timer_stops_the_run_and_is_raised_by_run(mode):
    loop = runloop.RunLoop.current()
    fired = []

    def boom(timer):
        fired.append(1)
        raise ValueError("from the timer")

    timer = runloop.Timer(boom, interval=0.001)
    loop.add_timer(timer, mode)
    with pytest.raises(ValueError, match="from the timer"):
        loop.run(mode, 30)
    assert fired == [1]
    timer.invalidate()
    assert loop.run(mode, 0) is RunResult.FINISHED  # nothing left pending


def test_an_exception_in_an_observer_is_raised_by_run(mode):
    loop = runloop.RunLoop.current()

    def bad(observer, activity):
        raise KeyError(activity.name)

    observer = runloop.Observer(bad, Activity.BEFORE_SOURCES)
    loop.add_observer(observer, mode)
    loop.add_timer(runloop.Timer(lambda t: None, fire_date=1e12), mode)
    with pytest.raises(KeyError, match="BEFORE_SOURCES"):
        loop.run(mode, 30)
    observer.invalidate()


def test_an_exception_in_a_schedule_callback_is_raised_by_add_source(mode):
    loop = runloop.RunLoop.current()

    def refuse(rl, m):
        raise RuntimeError("no " + m)

    source = runloop.Source(lambda: None, schedule=refuse)
    with pytest.raises(RuntimeError, match="no " + mode):
        loop.add_source(source, mode)
    source.invalidate()


def test_an_exception_with_no_python_caller_goes_to_unraisablehook(mode, monkeypatch):
    seen = []
    monkeypatch.setattr("sys.unraisablehook", lambda args: seen.append(args.exc_value))
    error = OSError("nobody waits")
    _callbacks._report(error)
    assert seen == [error]


def test_bad_arguments_are_python_errors():
    with pytest.raises(TypeError):
        runloop.Timer("not callable")
    with pytest.raises(ValueError, match="refused"):
        runloop.Timer(lambda t: None, interval=float("nan"))
    with pytest.raises(TypeError):
        runloop.RunLoop.current().add_common_mode(42)


def test_an_unscheduled_item_and_its_callable_are_released_when_dropped():
    marker = Marker()
    alive = weakref.ref(marker)
    gc.collect()
    before = len(_callbacks._entries)
    timer = runloop.Timer(lambda t, m=marker: None, delay=1)
    del marker
    assert alive() is not None and len(_callbacks._entries) == before + 1
    del timer
    gc.collect()
    assert alive() is None and len(_callbacks._entries) == before


def test_a_scheduled_timer_outlives_its_python_wrapper_until_invalidated(mode):
    loop = runloop.RunLoop.current()
    marker = Marker()
    alive = weakref.ref(marker)
    fired = []

    def tick(timer, m=marker):
        fired.append(timer.retain_count > 0)
        if len(fired) == 2:
            timer.invalidate()

    loop.add_timer(runloop.Timer(tick, interval=0.001), mode)  # Python keeps no reference
    del marker, tick
    gc.collect()
    assert alive() is not None                       # the loop holds it
    assert loop.run(mode, 30) is RunResult.FINISHED  # fired twice, then invalidated itself
    gc.collect()
    assert fired == [True, True] and alive() is None


def test_a_performed_function_is_released_after_it_ran(mode):
    loop = runloop.RunLoop.current()
    marker = Marker()
    alive = weakref.ref(marker)
    loop.perform(lambda m=marker: None, mode)
    del marker
    assert alive() is not None
    loop.run(mode, 0)
    gc.collect()
    assert alive() is None


def wait_until(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline
        gc.collect()
        time.sleep(0.001)


def test_functions_queued_on_a_loop_whose_thread_exits_are_freed(mode):
    markers = [Marker(), Marker()]
    alive = [weakref.ref(m) for m in markers]
    have_loop, leave, box = threading.Event(), threading.Event(), []

    def thread_main():
        box.append(runloop.RunLoop.current())
        have_loop.set()
        leave.wait()  # exits without running its loop

    thread = threading.Thread(target=thread_main)
    thread.start()
    assert have_loop.wait(30)
    loop = box[0]
    loop.perform(lambda m=markers[0]: None, mode)
    loop.perform(lambda m=markers[1]: None, "a.mode.nobody.runs")
    del markers
    gc.collect()
    assert [a() is not None for a in alive] == [True, True]
    assert _callbacks.queued_on(loop._handle) == 2
    leave.set()
    thread.join()
    wait_until(lambda: all(a() is None for a in alive))  # the loop's teardown follows the thread's exit
    assert _callbacks.queued_on(loop._handle) == 0 and loop._handle not in _callbacks._loop_tokens


def test_a_function_the_library_refuses_is_freed_at_once(mode, dead_loop):
    marker = Marker()
    alive = weakref.ref(marker)
    with pytest.raises(runloop.LoopGoneError):
        dead_loop.perform(lambda m=marker: None, mode)
    del marker
    gc.collect()
    assert alive() is None


def test_a_performed_function_leaves_the_loops_queue_when_it_ran(mode):
    loop = runloop.RunLoop.current()
    before = _callbacks.queued_on(loop._handle)
    loop.perform(lambda: None, mode)
    assert _callbacks.queued_on(loop._handle) == before + 1
    loop.run(mode, 0)
    assert _callbacks.queued_on(loop._handle) == before
