"""Stall handler, statistics and traces."""
import gc
import json
import threading
import time
import weakref

import pytest

import runloop
from runloop import CalloutKind, Phase, RunResult, insight


def test_statistics_count_what_the_loop_did(mode):
    loop = runloop.RunLoop.current()
    loop.reset_statistics()
    source = runloop.Source(lambda: None)
    loop.add_source(source, mode)
    source.signal()
    loop.add_timer(runloop.Timer(lambda t: None, delay=0), mode)
    loop.perform(lambda: None, mode)
    loop.run(mode, 0.01)
    stats = loop.statistics()
    assert stats.passes >= 1 and stats.timers_fired == 1 and stats.version0_performed == 1
    assert stats.blocks_run >= 1 and stats.wake_ups_by_timeout == 1
    assert len(stats.lateness_histogram) == 24 and sum(stats.lateness_histogram) == 1
    assert isinstance(stats.longest_callout_kind, CalloutKind) and stats.longest_callout_ns > 0
    loop.reset_statistics()
    assert loop.statistics().timers_fired == 0
    source.invalidate()


def test_statistics_of_another_threads_loop(loop_thread):
    with loop_thread as worker:
        done = threading.Event()
        worker.loop.perform(done.set, worker.mode)
        assert done.wait(30)
        assert worker.loop.statistics().passes >= 1  # read while it runs: any thread may
    # counted after each block returns: exact once the loop has stopped
    assert worker.loop.statistics().blocks_run == 2  # ready.set and done.set


def test_a_stall_in_a_callout_is_reported_from_the_watchdog(mode):
    loop = runloop.RunLoop.current()
    stalls, reported = [], threading.Event()

    def handler(rl, stall):
        stalls.append((rl, stall, threading.get_ident()))
        reported.set()

    loop.set_stall_handler(handler, 0.02)
    try:
        timer = runloop.Timer(lambda t: reported.wait(30), delay=0)  # stuck until reported
        loop.add_timer(timer, mode)
        assert loop.run(mode, 30) is RunResult.FINISHED
    finally:
        loop.set_stall_handler(None)
    (rl, stall, ident), = stalls
    assert rl == loop and ident != threading.get_ident()
    assert stall.phase is Phase.TIMERS and stall.callout is CalloutKind.TIMER
    assert stall.mode == mode and stall.elapsed >= 0.02 and stall.item
    assert insight.phase_name(Phase.BEFORE_WAITING) == "BeforeWaiting"
    assert insight.callout_kind_name(CalloutKind.TIMER) == "timer"


def test_replacing_and_removing_the_handler_releases_it(mode):
    loop = runloop.RunLoop.current()

    class Handler:
        def __call__(self, rl, stall):
            pass

    first = Handler()
    alive = weakref.ref(first)
    loop.set_stall_handler(first, 1.0)
    loop.set_stall_handler(lambda rl, s: None, 1.0)
    del first
    gc.collect()
    assert alive() is None
    loop.set_stall_handler(None)
    assert loop.run(mode, 0) is RunResult.FINISHED


def test_the_handler_of_a_loop_whose_thread_exits_is_released():
    class Handler:
        def __call__(self, rl, stall):
            pass

    handler = Handler()
    alive = weakref.ref(handler)
    with runloop.Thread() as worker:
        worker.loop.set_stall_handler(handler, 1.0)
        del handler
        gc.collect()
        assert alive() is not None
    gc.collect()
    assert alive() is None


def test_a_trace_is_chrome_json(mode, tmp_path):
    loop = runloop.RunLoop.current()
    path = tmp_path / "trace.json"
    loop.start_trace(path)
    with pytest.raises(runloop.RunLoopError):
        loop.start_trace(tmp_path / "second.json")  # already recording
    loop.add_timer(runloop.Timer(lambda t: None, delay=0), mode)
    loop.run(mode, 30)
    assert loop.stop_trace() is True and loop.stop_trace() is False
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    assert any(e.get("ph") == "X" for e in events)


def test_bad_arguments_are_python_errors():
    loop = runloop.RunLoop.current()
    with pytest.raises(TypeError, match="callable"):
        loop.set_stall_handler("nope", 1.0)
    with pytest.raises(ValueError):
        loop.set_stall_handler(lambda rl, s: None, "soon")
    with pytest.raises(runloop.InvalidArgumentError):
        loop.start_trace("/nonexistent-dir/trace.json")
