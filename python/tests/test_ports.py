"""Message ports: local ports answering requests sent through remote ports."""
import gc
import itertools
import os
import threading
import weakref

import pytest

import runloop
from runloop import (InvalidArgumentError, LocalPort, MessagePortError, MessagePortTimeout,
                     PortNotFoundError, PortStatus, RemotePort)

_numbers = itertools.count()


@pytest.fixture
def name():
    return f"py.test.{os.getpid()}.{next(_numbers)}"


@pytest.fixture
def worker():
    with runloop.Thread("py-ports") as thread:
        yield thread


def serve(worker, port):
    """Serves `port` on the worker's loop (which runs the default mode)."""
    worker.loop.add_source(port.source(), runloop.DEFAULT_MODE)
    worker.loop.wake_up()


def test_a_request_gets_the_callbacks_reply(name, worker):
    seen = []

    def answer(port, msgid, data):
        seen.append((port, msgid, data, threading.get_ident()))
        return data[::-1] if data is not None else None

    with LocalPort(name, answer) as server:
        serve(worker, server)
        with RemotePort(name) as client:
            assert client.is_remote and not server.is_remote and client.name == server.name == name
            assert client.send(7, b"olleh") == b"hello"
            assert client.send(8, bytearray(b"ba")) == b"ab"
            assert client.send(9, memoryview(b"")) == b""  # empty data is data
            assert client.send(10) is None               # no data: the callback gets None
    assert seen == [(server, 7, b"olleh", worker.ident), (server, 8, b"ba", worker.ident),
                    (server, 9, b"", worker.ident), (server, 10, None, worker.ident)]


def test_a_one_way_request_returns_once_written(name, worker):
    got = threading.Event()
    with LocalPort(name, lambda port, msgid, data: got.set()) as server:
        serve(worker, server)
        with RemotePort(name) as client:
            assert client.send(1, b"x", reply=False) is None
            assert got.wait(30)


def test_no_reply_in_time_raises_a_timeout(name, worker):
    release = threading.Event()
    with LocalPort(name, lambda port, msgid, data: release.wait(30) and b"late") as server:
        serve(worker, server)
        with RemotePort(name) as client:
            with pytest.raises(MessagePortTimeout) as caught:
                client.send(1, b"x", receive_timeout=0.05)
            release.set()
    assert caught.value.code is PortStatus.RECEIVE_TIMEOUT and isinstance(caught.value, TimeoutError)
    assert "no reply in time" in str(caught.value)


def test_invalidation_callbacks_and_sends_to_an_invalid_port(name, worker):
    local_gone, remote_gone = [], threading.Event()
    server = LocalPort(name, lambda port, msgid, data: b"ok", on_invalidate=local_gone.append)
    serve(worker, server)
    client = RemotePort(name, on_invalidate=lambda port: remote_gone.set())
    assert client.send(1) == b"ok"
    server.invalidate()
    assert local_gone == [server] and not server.is_valid
    assert not client.is_valid and remote_gone.is_set()  # noticed here, callback here
    with pytest.raises(MessagePortError) as caught:
        client.send(1)
    assert caught.value.code is PortStatus.IS_INVALID
    with pytest.raises(ValueError, match="invalid"):
        server.source()
    later = []
    client.set_on_invalidate(later.append)  # already invalid: called at once
    assert later == [client]


def test_names_are_unique_and_can_change(name, worker):
    with LocalPort(name, lambda *a: None) as server:
        with pytest.raises(InvalidArgumentError, match="in use by another LocalPort of this process"):
            LocalPort(name, lambda *a: b"second")
        assert server.is_valid and server.name == name
        assert server.send(1) is None  # still the first callback
        server.name = name + ".renamed"
        assert server.name == name + ".renamed"
        with pytest.raises(PortNotFoundError) as caught:
            RemotePort(name)
        assert caught.value.name == name and isinstance(caught.value, LookupError)
        serve(worker, server)
        with RemotePort(name + ".renamed") as client:
            assert client.send(0) is None
    unnamed = LocalPort(None, lambda *a: None)
    assert unnamed.name is None
    unnamed.close()


def test_a_local_port_sends_to_its_own_callback_on_this_thread(name, worker):
    seen = []

    def answer(port, msgid, data):
        seen.append((port, msgid, data, threading.get_ident()))
        return data[::-1] if data is not None else None

    here = threading.get_ident()
    with LocalPort(name, answer) as server:
        assert server.send(7, b"olleh") == b"hello"          # no loop serves it
        assert server.send(8, b"x", reply=False) is None
        serve(worker, server)                               # a loop serves it now
        assert server.send(9) is None
        with RemotePort(name) as client:
            assert client.send(10, b"ab") == b"ba"          # through the loop
    assert seen == [(server, 7, b"olleh", here), (server, 8, b"x", here), (server, 9, None, here),
                    (server, 10, b"ab", worker.ident)]


def test_a_local_ports_own_callback_raises_from_send(name):
    def broken(port, msgid, data):
        raise ArithmeticError("cannot answer")

    with LocalPort(name, broken) as server:
        with pytest.raises(ArithmeticError, match="cannot answer"):
            server.send(1, b"q")
        assert server.is_valid
        server.invalidate()
        with pytest.raises(MessagePortError) as caught:
            server.send(1)
    assert caught.value.code is PortStatus.IS_INVALID


def test_an_exception_in_the_callback_is_raised_by_the_serving_run(name, mode):
    loop = runloop.RunLoop.current()

    def broken(port, msgid, data):
        raise ArithmeticError("cannot answer")

    replies = []
    with LocalPort(name, broken) as server:
        loop.add_source(server.source(), mode)
        client = threading.Thread(target=lambda: replies.append(RemotePort(name).send(1, b"q", receive_timeout=30)))
        client.start()
        with pytest.raises(ArithmeticError, match="cannot answer"):
            loop.run(mode, 30)
        client.join()
    assert replies == [None]  # the requester got a reply with no data


def test_a_bad_reply_type_is_raised_by_the_serving_run(name, mode):
    loop = runloop.RunLoop.current()
    with LocalPort(name, lambda port, msgid, data: "text") as server:
        loop.add_source(server.source(), mode)
        client = threading.Thread(target=lambda: RemotePort(name).send(1, receive_timeout=30))
        client.start()
        with pytest.raises(TypeError, match="not str"):
            loop.run(mode, 30)
        client.join()


def test_the_callback_is_released_when_the_port_is_dropped(name):
    class Marker:
        pass

    marker = Marker()
    alive = weakref.ref(marker)
    gone = []
    port = LocalPort(name, lambda p, i, d, m=marker: None, on_invalidate=gone.append)
    del marker, port
    gc.collect()
    assert alive() is None and len(gone) == 1  # dropping it invalidated it
    with pytest.raises(PortNotFoundError):
        RemotePort(name)  # and freed its name


def test_bad_arguments_are_python_errors(name, worker):
    with pytest.raises(TypeError, match="callable"):
        LocalPort(name, None)
    with pytest.raises(TypeError, match="str"):
        LocalPort(b"bytes", lambda *a: None)
    with pytest.raises(ValueError, match="NUL"):
        RemotePort("a\0b")
    with pytest.raises(InvalidArgumentError, match="1 to 80 bytes"):
        LocalPort("x" * 81, lambda *a: None)
    with LocalPort(name, lambda *a: None) as server:
        serve(worker, server)
        client = RemotePort(name)
        with pytest.raises(TypeError, match="not str"):
            client.send(1, "text")
        with pytest.raises(TypeError):
            client.send(1, 42)
        with pytest.raises(ValueError, match="32-bit"):
            client.send(2**31)
        with pytest.raises(InvalidArgumentError, match="NaN"):
            client.send(1, send_timeout=float("nan"))
        client.close()
        with pytest.raises(ValueError, match="closed"):
            client.send(1)
