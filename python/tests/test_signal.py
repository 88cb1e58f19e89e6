"""Signal: Unix signals caught as loop sources (RLSignal, runloop/watch.h)."""
import os
import signal

import pytest

import runloop
from runloop import RunResult, Signal


def test_arrivals_are_counted_and_the_disposition_comes_back(mode):
    loop = runloop.RunLoop.current()
    python_calls = []
    previous = signal.signal(signal.SIGUSR1, lambda signo, frame: python_calls.append(signo))
    try:
        calls = []

        def arrived(signo, count):
            calls.append((signo, count))
            loop.stop()

        watch = Signal(signal.SIGUSR1, arrived)
        assert watch.signo == signal.SIGUSR1 and watch.is_valid
        loop.add_source(watch.source(), mode)
        os.kill(os.getpid(), signal.SIGUSR1)
        os.kill(os.getpid(), signal.SIGUSR1)
        assert loop.run(mode, 30) is RunResult.STOPPED
        assert calls == [(signal.SIGUSR1, 2)]
        assert python_calls == []  # the library's handler, not Python's
        watch.invalidate()
        assert not watch.is_valid
        os.kill(os.getpid(), signal.SIGUSR1)  # Python's handler is back
        loop.run(mode, 0)  # lets Python run its handler
        assert python_calls == [signal.SIGUSR1]
    finally:
        signal.signal(signal.SIGUSR1, previous)


@pytest.mark.parametrize("signo", [0, signal.SIGKILL, signal.SIGSTOP, signal.SIGSEGV, 65])
def test_signals_that_cannot_be_caught(signo):
    with pytest.raises(ValueError):
        Signal(signo, lambda s, c: None)


def test_asyncio_add_signal_handler_uses_a_signal_source():
    import asyncio
    from runloop.asyncio import RunLoopEventLoop

    loop = RunLoopEventLoop()
    try:
        got = []

        def handler(tag):
            got.append(tag)
            loop.stop()

        loop.add_signal_handler(signal.SIGUSR2, handler, "usr2")
        loop.call_soon(os.kill, os.getpid(), signal.SIGUSR2)
        loop.run_forever()
        assert got == ["usr2"]
        assert loop.remove_signal_handler(signal.SIGUSR2)
        assert not loop.remove_signal_handler(signal.SIGUSR2)
        with pytest.raises(RuntimeError):
            loop.add_signal_handler(signal.SIGKILL, handler, "kill")
    finally:
        loop.close()
