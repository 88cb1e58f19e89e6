"""Thread: the library's keep-alive worker thread with its own loop."""
import gc
import threading
import weakref

import pytest

import runloop
from runloop import InvalidArgumentError


class Marker:
    pass


def test_perform_and_wait_runs_on_the_worker_and_returns_the_result():
    with runloop.Thread("py-worker") as worker:
        ident = worker.perform_and_wait(threading.get_ident)
        assert ident == worker.ident != threading.get_ident()
        assert worker.perform_and_wait(lambda: 6 * 7) == 42
        assert worker.perform_and_wait(lambda: runloop.RunLoop.current()) == worker.loop


def test_perform_and_wait_raises_the_tasks_exception_in_the_caller():
    with runloop.Thread() as worker:
        with pytest.raises(KeyError, match="missing"):
            worker.perform_and_wait(lambda: {}["missing"])
        assert worker.perform_and_wait(lambda: "still serving") == "still serving"


def test_tasks_run_in_order_and_stop_lets_queued_tasks_finish():
    worker = runloop.Thread()
    order, gate = [], threading.Event()
    worker.perform(gate.wait)  # holds the worker until every task is queued
    for n in range(50):
        worker.perform(lambda n=n: order.append(n))
    gate.set()
    worker.stop()  # returns after the thread exited: every task ran
    assert order == list(range(50))
    with pytest.raises(InvalidArgumentError, match="the thread was stopped"):
        worker.perform(lambda: None)
    worker.stop()  # idempotent
    worker.close()
    with pytest.raises(ValueError, match="closed"):
        worker.perform(lambda: None)
    worker.close()  # idempotent


def test_perform_and_wait_from_the_worker_runs_inline():
    with runloop.Thread() as worker:
        trace = []

        def outer():
            trace.append("outer")
            trace.append(worker.perform_and_wait(lambda: "inline"))
            trace.append("after")

        worker.perform_and_wait(outer)
        assert trace == ["outer", "inline", "after"]


def test_an_exception_in_a_fire_and_forget_task_goes_to_unraisablehook(monkeypatch):
    seen, done = [], threading.Event()
    monkeypatch.setattr("sys.unraisablehook", lambda args: (seen.append(args.exc_value), done.set()))
    with runloop.Thread() as worker:
        worker.perform(lambda: 1 / 0)
        assert done.wait(30)
    assert isinstance(seen[0], ZeroDivisionError)


def test_items_added_to_the_workers_loop_fire_on_the_worker():
    with runloop.Thread() as worker:
        fired = threading.Event()
        on = []
        worker.loop.add_timer(runloop.Timer(lambda t: (on.append(threading.get_ident()), fired.set()),
                                            delay=0.001), runloop.DEFAULT_MODE)
        worker.loop.wake_up()
        assert fired.wait(30)
        assert on == [worker.ident]


def test_the_tasks_are_released_once_run_and_the_thread_when_dropped():
    marker = Marker()
    alive = weakref.ref(marker)
    worker = runloop.Thread()
    loop = worker.loop
    worker.perform_and_wait(lambda m=marker: None)
    del marker
    gc.collect()
    assert alive() is None
    worker_alive = weakref.ref(worker)
    del worker  # the last reference: the library stops the thread
    gc.collect()
    assert worker_alive() is None
    with pytest.raises(runloop.LoopGoneError):  # its loop was torn down
        loop.perform(lambda: None)


def test_bad_arguments_are_python_errors():
    with pytest.raises(TypeError):
        runloop.Thread(42)
    with pytest.raises(ValueError, match="NUL"):
        runloop.Thread("a\0b")
    with runloop.Thread() as worker:
        with pytest.raises(TypeError, match="callable"):
            worker.perform(None)
        with pytest.raises(TypeError, match="callable"):
            worker.perform_and_wait("nope")
