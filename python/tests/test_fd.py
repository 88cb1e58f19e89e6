"""FileDescriptor: one-shot read/write callbacks through a loop source."""
import gc
import os
import socket
import threading
import weakref

import pytest

import runloop
from runloop import FileDescriptor, FileEvent, RunResult


@pytest.fixture
def pipe():
    read_end, write_end = os.pipe()
    yield read_end, write_end
    for fd in (read_end, write_end):
        try:
            os.close(fd)
        except OSError:
            pass


def test_a_readable_pipe_calls_back_once_per_enable(mode, pipe):
    loop = runloop.RunLoop.current()
    read_end, write_end = pipe
    calls = []

    def readable(f, events):
        calls.append((f, events, os.read(read_end, 100)))
        if len(calls) == 1:
            f.enable(FileEvent.READ)  # one-shot: ask again
        else:
            loop.stop()

    f = FileDescriptor(read_end, readable)
    source = f.source()
    assert f.source() == source  # the same source while it lives
    loop.add_source(source, mode)
    f.enable(FileEvent.READ)
    os.write(write_end, b"one")
    assert loop.run(mode, 0) is RunResult.TIMED_OUT
    assert calls == [(f, FileEvent.READ, b"one")]
    threading.Timer(0.01, os.write, (write_end, b"two")).start()  # wakes the sleeping loop
    assert loop.run(mode, 30) is RunResult.STOPPED
    assert [c[2] for c in calls] == [b"one", b"two"]
    os.write(write_end, b"three")  # not enabled: no callback
    assert loop.run(mode, 0) is RunResult.TIMED_OUT and len(calls) == 2
    f.invalidate()
    assert not f.is_valid and not loop.contains_source(source, mode)
    assert f.fileno() == read_end and os.read(read_end, 10) == b"three"  # not closed


def test_write_callbacks_and_disable(mode):
    loop = runloop.RunLoop.current()
    left, right = socket.socketpair()
    with left, right:
        events = []
        f = FileDescriptor(left, lambda f, e: events.append(e))  # an object with fileno()
        loop.add_source(f.source(), mode)
        f.enable(FileEvent.READ | FileEvent.WRITE)
        f.disable(FileEvent.READ)
        right.send(b"x")
        loop.run(mode, 0)
        assert events == [FileEvent.WRITE]
        f.enable(FileEvent.READ)
        loop.run(mode, 0)
        assert events == [FileEvent.WRITE, FileEvent.READ]
        f.invalidate()


def test_close_on_invalidate_closes_the_descriptor(pipe):
    read_end, _ = pipe
    f = FileDescriptor(read_end, lambda f, e: None, close_on_invalidate=True)
    f.invalidate()
    with pytest.raises(OSError):
        os.fstat(read_end)


def test_an_exception_in_the_callback_is_raised_by_run(mode, pipe):
    loop = runloop.RunLoop.current()
    read_end, write_end = pipe

    def boom(f, events):
        raise ConnectionError("bad peer")

    f = FileDescriptor(read_end, boom)
    loop.add_source(f.source(), mode)
    f.enable()
    os.write(write_end, b"x")
    with pytest.raises(ConnectionError, match="bad peer"):
        loop.run(mode, 30)
    f.invalidate()


def test_the_callback_is_released_at_invalidation_even_while_scheduled(mode, pipe):
    loop = runloop.RunLoop.current()

    class Marker:
        pass

    marker = Marker()
    alive = weakref.ref(marker)
    f = FileDescriptor(pipe[0], lambda f, e, m=marker: None)
    loop.add_source(f.source(), mode)
    del marker
    gc.collect()
    assert alive() is not None
    f.invalidate()
    gc.collect()
    assert alive() is None
    with pytest.raises(ValueError, match="invalid"):
        f.source()


def test_bad_arguments_are_python_errors(pipe):
    with pytest.raises(ValueError, match="negative"):
        FileDescriptor(-1, lambda f, e: None)
    with pytest.raises(TypeError, match="fileno"):
        FileDescriptor(None, lambda f, e: None)
    with pytest.raises(TypeError, match="callable"):
        FileDescriptor(pipe[0], None)
    f = FileDescriptor(pipe[0], lambda f, e: None)
    with pytest.raises(ValueError):
        f.enable(8)  # not a FileEvent
    f._release()
    with pytest.raises(ValueError, match="closed"):
        f.enable()
