"""RunLoop: current/main, run results, stop, wake_up, perform, modes."""
import threading
import time

import pytest

import runloop
from runloop import Activity, RunResult


def test_library_version_is_major_minor_patch():
    parts = runloop.library_version().split(".")
    assert len(parts) == 3 and all(p.isdigit() for p in parts)


def test_current_is_the_main_loop_on_the_main_thread():
    assert runloop.RunLoop.current() == runloop.RunLoop.main()


def test_each_thread_has_its_own_loop():
    seen = []
    thread = threading.Thread(target=lambda: seen.append(runloop.RunLoop.current()))
    thread.start()
    thread.join()
    assert seen[0] != runloop.RunLoop.main()


def test_an_empty_mode_finishes_at_once(mode):
    assert runloop.RunLoop.current().run(mode, 10) is RunResult.FINISHED


def test_a_mode_with_a_source_times_out(mode):
    loop = runloop.RunLoop.current()
    source = runloop.Source(lambda: None)
    loop.add_source(source, mode)
    assert loop.run(mode, 0.01) is RunResult.TIMED_OUT
    source.invalidate()


def test_a_handled_source_returns_when_asked(mode):
    loop = runloop.RunLoop.current()
    performed = []
    source = runloop.Source(lambda: performed.append("perform"))
    loop.add_source(source, mode)
    source.signal()
    assert loop.run(mode, 10, return_after_source_handled=True) is RunResult.HANDLED_SOURCE
    assert performed == ["perform"]
    source.invalidate()


def test_running_another_threads_loop_is_an_error(mode):
    with pytest.raises(RuntimeError, match="own thread"):
        seen = []
        thread = threading.Thread(target=lambda: seen.append(runloop.RunLoop.current()))
        thread.start()
        thread.join()
        seen[0].run(mode, 0)


def test_current_mode_and_all_modes(mode):
    loop = runloop.RunLoop.current()
    seen = []
    loop.perform(lambda: seen.append(loop.current_mode), mode)
    loop.run(mode, 0)  # one pass, which runs the queued function
    assert seen == [mode]
    assert loop.current_mode is None
    assert mode in loop.all_modes and runloop.DEFAULT_MODE in loop.all_modes


def test_perform_from_another_thread_runs_on_the_loop_thread(loop_thread):
    with loop_thread as worker:
        ran_on, done = [], threading.Event()
        worker.loop.perform(lambda: (ran_on.append(threading.get_ident()), done.set()), worker.mode)
        assert done.wait(30)
        assert ran_on == [worker.thread.ident]
    assert worker.result is RunResult.STOPPED


def test_perform_in_a_list_of_modes(mode):
    loop = runloop.RunLoop.current()
    seen = []
    loop.perform(lambda: seen.append("ran"), ["some.other.mode", mode])
    loop.run(mode, 0)
    assert seen == ["ran"]


def test_stop_from_another_thread_ends_its_run(loop_thread):
    with loop_thread as worker:
        assert worker.thread.is_alive()
    assert worker.result is RunResult.STOPPED


def test_a_stop_right_after_a_run_began_is_never_lost(mode):
    """Many runs of another thread's loop, each stopped as soon as it is in
    progress (current_mode), some after quick wake-ups: every run returns
    STOPPED within a second (a stop landing before the run's first pass, or
    between a pass's last look and its sleep, was once lost)."""
    rounds, lost, results = 3000, 0, []
    start, returned, ready = threading.Semaphore(0), threading.Semaphore(0), threading.Event()
    box = []

    def thread_main():
        loop = runloop.RunLoop.current()
        source = runloop.Source(lambda: None)  # never signalled: only a stop ends a run
        loop.add_source(source, mode)
        box.append(loop)
        ready.set()
        while True:
            start.acquire()
            if not box:
                break
            results.append(loop.run(mode, 1e6))
            returned.release()
        source.invalidate()

    thread = threading.Thread(target=thread_main)
    thread.start()
    assert ready.wait(30)
    loop = box[0]
    for i in range(rounds):
        start.release()
        while loop.current_mode is None:
            time.sleep(0)  # the run is about to begin: hand the GIL to its thread
        for _ in range(i % 4):
            loop.wake_up()
        loop.stop()
        if not returned.acquire(timeout=1):
            lost += 1
            loop.stop()
            assert returned.acquire(timeout=30)
    box.clear()
    start.release()
    thread.join()
    assert lost == 0
    assert results == [RunResult.STOPPED] * rounds


def test_wake_up_wakes_a_sleeping_loop(loop_thread):
    woke = threading.Event()
    with loop_thread as worker:
        asleep = threading.Event()
        worker.loop.perform(lambda: worker.loop.add_observer(
            runloop.Observer(lambda o, a: asleep.set(), Activity.BEFORE_WAITING, repeats=False), worker.mode),
            worker.mode)
        assert asleep.wait(30)
        worker.loop.add_observer(
            runloop.Observer(lambda o, a: woke.set(), Activity.AFTER_WAITING, repeats=False), worker.mode)
        worker.loop.wake_up()
        assert woke.wait(30)
    assert worker.result is RunResult.STOPPED


def test_is_waiting_is_a_bool():
    assert runloop.RunLoop.current().is_waiting is False


def test_signal_and_wake_up_from_another_thread_wakes_a_sleeping_loop(mode):
    loop = runloop.RunLoop.current()
    performed = []
    source = runloop.Source(lambda: performed.append("perform"))
    loop.add_source(source, mode)
    # a 30 s run returns as soon as the source is handled: the one call both
    # signalled it and woke the loop (signal() alone would leave it asleep)
    thread = threading.Timer(0.05, source.signal_and_wake_up)
    thread.start()
    assert loop.run(mode, 30, return_after_source_handled=True) is RunResult.HANDLED_SOURCE
    thread.join()
    assert performed == ["perform"]
    source.invalidate()
