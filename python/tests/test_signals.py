"""Signals reach Python's handlers while the main thread runs a loop:
Ctrl-C raises KeyboardInterrupt from run(), other handlers run and the run
goes on, as with time.sleep()."""
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import runloop
from runloop import RunResult

CHILD = textwrap.dedent("""
    import runloop
    loop = runloop.RunLoop.current()
    keep_alive = runloop.Source(lambda: None)
    loop.add_source(keep_alive, "child")
    loop.perform(lambda: print("running", flush=True), "child")
    loop.run("child", 30)
    print("run returned", flush=True)
""")


def test_ctrl_c_interrupts_a_sleeping_run_with_keyboard_interrupt():
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=os.environ)
    try:
        assert child.stdout.readline() == "running\n"
        time.sleep(0.2)  # let the loop fall asleep in epoll_wait
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=10)
        took = time.monotonic() - sent
    finally:
        child.kill()
    assert "KeyboardInterrupt" in err and out == ""
    assert child.returncode in (1, -signal.SIGINT)
    assert took < 1.0


@pytest.fixture
def usr1_handler():
    previous = signal.getsignal(signal.SIGUSR1)
    yield lambda handler: signal.signal(signal.SIGUSR1, handler)
    signal.signal(signal.SIGUSR1, previous)


def keep_alive(loop, mode):
    source = runloop.Source(lambda: None)
    loop.add_source(source, mode)
    return source


def send_when_asleep(loop, mode, times=1):
    """Starts a thread sending SIGUSR1 to this process each time the loop
    (run in `mode`) has gone to sleep, `times` times; returns the thread."""
    asleep = threading.Event()
    loop.add_observer(runloop.Observer(lambda o, a: asleep.set(), runloop.Activity.BEFORE_WAITING), mode)

    def send():
        for _ in range(times):
            assert asleep.wait(30)
            asleep.clear()
            os.kill(os.getpid(), signal.SIGUSR1)

    sender = threading.Thread(target=send)
    sender.start()
    return sender


def test_a_python_handler_runs_while_the_loop_runs(mode, usr1_handler):
    loop = runloop.RunLoop.current()
    source = keep_alive(loop, mode)
    seen = []

    def handler(signum, frame):
        seen.append((signum, loop.current_mode))
        if len(seen) == 2:
            loop.stop()

    usr1_handler(handler)
    sender = send_when_asleep(loop, mode, times=2)
    started = time.monotonic()
    assert loop.run(mode, 30) is RunResult.STOPPED  # the first handler let the run go on
    sender.join()
    assert seen == [(signal.SIGUSR1, mode)] * 2 and time.monotonic() - started < 5
    source.invalidate()


def test_a_handler_that_raises_stops_the_run_and_run_raises(mode, usr1_handler):
    loop = runloop.RunLoop.current()
    source = keep_alive(loop, mode)

    def handler(signum, frame):
        raise TimeoutError("from the handler")

    usr1_handler(handler)
    sender = send_when_asleep(loop, mode)
    with pytest.raises(TimeoutError, match="from the handler"):
        loop.run(mode, 30)
    sender.join()
    source.invalidate()


def test_the_previous_wakeup_fd_is_restored_and_hears_the_signals(mode, usr1_handler):
    loop = runloop.RunLoop.current()
    source = keep_alive(loop, mode)
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    os.set_blocking(read_end, False)
    usr1_handler(lambda signum, frame: loop.stop())
    previous = signal.set_wakeup_fd(write_end)
    try:
        sender = send_when_asleep(loop, mode)
        assert loop.run(mode, 30) is RunResult.STOPPED
        sender.join()
        assert signal.set_wakeup_fd(write_end) == write_end  # ours again after the run
        assert os.read(read_end, 16) == bytes([signal.SIGUSR1])  # passed on, once
    finally:
        signal.set_wakeup_fd(previous)
        os.close(read_end)
        os.close(write_end)
        source.invalidate()


def test_an_empty_mode_still_finishes_at_once(mode):
    assert runloop.RunLoop.current().run(mode, 30) is RunResult.FINISHED


def test_other_threads_run_without_touching_signals(loop_thread):
    with loop_thread as worker:
        assert worker.thread.is_alive()
    assert worker.result is RunResult.STOPPED and signal.set_wakeup_fd(-1) == -1
