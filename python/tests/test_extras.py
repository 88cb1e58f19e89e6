"""Errors as exceptions, Ctrl-C, dropped performs, file descriptors, worker
threads, statistics and stalls, message ports."""
import gc
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref

import pytest

import runloop
from runloop import _callbacks


class Marker:
    pass


# ---- errors -------------------------------------------------------------

def test_a_refused_call_raises_the_librarys_error():
    with pytest.raises(runloop.InvalidArgumentError) as caught:
        runloop.Timer(lambda t: None, interval=float("nan"))
    assert caught.value.code == runloop.ErrorCode.INVALID_ARGUMENT
    assert caught.value.function == "RLRunLoopTimerCreate"
    assert "NaN" in str(caught.value)
    assert isinstance(caught.value, ValueError)
    with pytest.raises(runloop.InvalidArgumentError):
        runloop.RunLoop.current().run("x" * 2000, 0)


def test_perform_on_a_gone_loop_raises_and_frees_the_callable(mode):
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("loop", runloop.RunLoop.current()))
    t.start()
    t.join()
    marker = Marker()
    alive = weakref.ref(marker)
    with pytest.raises(runloop.LoopGoneError):
        box["loop"].perform(lambda m=marker: None, mode)
    del marker
    gc.collect()
    assert alive() is None


def test_a_function_queued_on_a_loop_whose_thread_exits_is_freed(mode):
    ready, leave = threading.Event(), threading.Event()
    box = {}

    def owner():
        box["loop"] = runloop.RunLoop.current()
        ready.set()
        leave.wait()
    t = threading.Thread(target=owner)
    t.start()
    ready.wait()
    marker = Marker()
    alive = weakref.ref(marker)
    box["loop"].perform(lambda m=marker: None, mode, wake=False)   # never run
    del marker
    leave.set()
    t.join()
    gc.collect()
    assert alive() is None


# ---- signals --------------------------------------------------------------

_CHILD = r"""
import os, signal, sys, time
import runloop
loop = runloop.RunLoop.current()
keep = runloop.Source(lambda: None)
loop.add_source(keep, "sig")
seen = []
signal.signal(signal.SIGUSR1, lambda s, f: (seen.append(s), loop.stop()))
print("ready", flush=True)
r = loop.run("sig", 10)
print("usr1", seen == [signal.SIGUSR1], r == runloop.RunResult.STOPPED, flush=True)
start = time.monotonic()
try:
    loop.run("sig", 10)
    print("no interrupt", flush=True)
except KeyboardInterrupt:
    print("interrupted %.2f" % (time.monotonic() - start), flush=True)
"""


def test_signal_handlers_run_and_ctrl_c_interrupts_a_sleeping_run():
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(runloop.__file__)))
    child = subprocess.Popen([sys.executable, "-c", _CHILD], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.2)
        child.send_signal(signal.SIGUSR1)
        assert child.stdout.readline().split() == ["usr1", "True", "True"]
        time.sleep(0.2)
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().split()
        assert line[0] == "interrupted", line
        assert float(line[1]) < 1.5
        assert child.wait(5) == 0
    finally:
        child.kill()


# ---- file descriptors ---------------------------------------------------------

def test_a_file_descriptor_calls_back_once_per_enable(mode):
    loop = runloop.RunLoop.current()
    r, w = os.pipe()
    calls = []
    f = runloop.FileDescriptor(r, lambda fd, types: (calls.append(types), os.read(fd.fileno(), 100),
                                                     loop.stop()), close_on_invalidate=True)
    loop.add_source(f.source(), mode)
    f.enable(runloop.READ)
    os.write(w, b"x")
    assert loop.run(mode, 2) == runloop.RunResult.STOPPED
    assert calls == [runloop.READ]
    os.write(w, b"y")                       # not enabled again: no callback
    assert loop.run(mode, 0.1) == runloop.RunResult.TIMED_OUT
    assert calls == [runloop.READ]
    f.invalidate()
    assert not f.is_valid
    os.close(w)


def test_a_regular_file_is_always_ready(mode):
    loop = runloop.RunLoop.current()
    with tempfile.TemporaryFile() as file:
        calls = []
        f = runloop.FileDescriptor(file, lambda fd, types: (calls.append(types), loop.stop()))
        loop.add_source(f.source(), mode)
        f.enable(runloop.READ)
        assert loop.run(mode, 2) == runloop.RunResult.STOPPED
        assert calls == [runloop.READ]
        f.invalidate()


# ---- worker threads ---------------------------------------------------------

def test_a_worker_thread_runs_work_and_reraises_when_waited_for():
    worker = runloop.WorkerThread("py-worker")
    ran = []
    worker.perform(lambda: ran.append(threading.get_ident()), wait=True)
    assert ran and ran[0] != threading.get_ident()

    def fails():
        raise KeyError("in the worker")
    with pytest.raises(KeyError):
        worker.perform(fails, wait=True)
    worker.stop()
    with pytest.raises((RuntimeError, runloop.RunLoopError)):
        worker.perform(lambda: None, wait=True)


# ---- statistics and stalls ------------------------------------------------

def test_statistics_count_and_a_stall_is_reported(mode):
    loop = runloop.RunLoop.current()
    loop.reset_statistics()
    stalls = []
    loop.set_stall_handler(0.05, lambda l, stall: stalls.append(stall))
    loop.add_timer(runloop.Timer(lambda t: (time.sleep(0.2), loop.stop()), delay=0.01), mode)
    loop.run(mode, 2)
    loop.set_stall_handler(0, None)
    stats = loop.statistics()
    assert stats["timersFired"] == 1 and stats["passes"] >= 1
    assert stats["longestCalloutNanoseconds"] >= 150_000_000
    assert len(stalls) == 1
    assert stalls[0]["callout"] and stalls[0]["mode"] == mode and stalls[0]["elapsed"] >= 0.05


# ---- message ports ------------------------------------------------------------

def test_a_remote_gets_the_local_ports_reply(mode):
    name = f"py-port-{os.getpid()}-{mode}"[:80]
    served = []
    server_ready, stop = threading.Event(), threading.Event()

    def serve():
        loop = runloop.RunLoop.current()
        port = runloop.MessagePort.local(name, lambda p, msgid, data: (served.append((msgid, data)),
                                                                     data[::-1] if data else None)[1])
        loop.add_source(port.source(), mode)
        server_ready.set()
        while not stop.is_set():
            loop.run(mode, 0.05)
        port.invalidate()
    t = threading.Thread(target=serve)
    t.start()
    server_ready.wait()
    remote = runloop.MessagePort.remote(name)
    assert remote is not None and remote.is_remote
    assert remote.send(7, b"hello", reply_mode=mode + ".reply") == b"olleh"
    assert remote.send(8, None, reply_timeout=None) is None     # one-way
    stop.set()
    t.join()
    assert served[0] == (7, b"hello")
    assert runloop.MessagePort.remote(name + ".nobody") is None
