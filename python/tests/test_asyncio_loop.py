"""runloop.asyncio.RunLoopEventLoop: asyncio programs on a runloop."""
import asyncio
import gc
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

import runloop
import runloop.asyncio as rl_asyncio
from runloop import RunResult


@pytest.fixture
def loop(mode):
    loop = rl_asyncio.RunLoopEventLoop(mode)
    yield loop
    if not loop.is_closed():
        loop.close()


def test_tasks_sleep_and_call_later_in_order(loop):
    events = []

    async def worker(name, delay):
        await asyncio.sleep(delay)
        events.append(name)

    async def main():
        running = asyncio.get_running_loop()
        assert running is loop
        running.call_later(0.03, events.append, "later")
        running.call_soon(events.append, "soon")
        start = time.monotonic()
        await asyncio.gather(worker("b", 0.05), worker("a", 0.01), asyncio.sleep(0))
        return time.monotonic() - start

    elapsed = loop.run_until_complete(main())
    assert events == ["soon", "a", "later", "b"]
    assert 0.05 <= elapsed < 5


def test_streams_over_loopback_tcp(loop):
    async def echo(reader, writer):
        while line := await reader.readline():
            writer.write(line.upper())
            await writer.drain()
        writer.close()

    async def main():
        server = await asyncio.start_server(echo, "127.0.0.1", 0, limit=1 << 20)
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
        replies = []
        for word in (b"one\n", b"two\n", b"x" * 300000 + b"\n"):  # the last one needs several writes
            writer.write(word)
            await writer.drain()
            replies.append(await reader.readline())
        writer.close()
        await writer.wait_closed()
        server.close()
        await server.wait_closed()
        return replies

    replies = loop.run_until_complete(main())
    assert replies == [b"ONE\n", b"TWO\n", b"X" * 300000 + b"\n"]


def test_run_in_executor_and_call_soon_threadsafe_wake_the_loop(loop):
    gate = threading.Event()

    def blocking():
        assert gate.wait(30)  # the loop is asleep in the run loop by then
        return threading.get_ident()

    async def main():
        running = asyncio.get_running_loop()
        future = running.run_in_executor(None, blocking)
        running.call_later(0.02, gate.set)
        worker = await future
        # and a plain thread, handing over with call_soon_threadsafe
        done = running.create_future()
        threading.Thread(target=running.call_soon_threadsafe, args=(done.set_result, "t")).start()
        return worker, await done

    worker, value = loop.run_until_complete(main())
    assert worker != threading.get_ident() and value == "t"


def test_runloop_timers_and_sources_fire_while_asyncio_runs(loop, mode):
    rl = runloop.RunLoop.current()
    fired = []
    timer = runloop.Timer(lambda t: fired.append("timer"), interval=0.01, delay=0.01)
    source = runloop.Source(lambda: fired.append("source"))
    rl.add_timer(timer, mode)
    rl.add_source(source, mode)

    async def main():
        threading.Thread(target=source.signal_and_wake_up).start()
        while fired.count("timer") < 3 or "source" not in fired:
            await asyncio.sleep(0.005)

    try:
        loop.run_until_complete(asyncio.wait_for(main(), 30))
    finally:
        timer.invalidate()
        source.invalidate()
    assert fired.count("timer") >= 3 and fired.count("source") == 1


def test_loop_factory_runner_and_policy(mode):
    async def main():
        await asyncio.sleep(0)
        return type(asyncio.get_running_loop())

    assert rl_asyncio.run(main(), mode=mode) is rl_asyncio.RunLoopEventLoop
    if sys.version_info >= (3, 11):
        with asyncio.Runner(loop_factory=rl_asyncio.new_event_loop) as runner:
            assert runner.run(main()) is rl_asyncio.RunLoopEventLoop
    if sys.version_info >= (3, 12):
        assert asyncio.run(main(), loop_factory=rl_asyncio.new_event_loop) is rl_asyncio.RunLoopEventLoop
    policy = rl_asyncio.RunLoopEventLoopPolicy()
    made = policy.new_event_loop()
    try:
        assert isinstance(made, rl_asyncio.RunLoopEventLoop)
    finally:
        made.close()


def test_run_without_asyncio_runner(mode, monkeypatch):
    """The Python < 3.11 path of run(), forced here."""
    leftover = []

    async def sleeper():
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            leftover.append("cancelled")
            raise

    async def main():
        asyncio.get_running_loop().create_task(sleeper())
        await asyncio.sleep(0.01)
        return asyncio.get_running_loop()

    monkeypatch.delattr(asyncio, "Runner", raising=False)
    loop = rl_asyncio.run(main(), mode=mode)
    assert isinstance(loop, rl_asyncio.RunLoopEventLoop) and loop.is_closed()
    assert leftover == ["cancelled"]


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="main thread only")
def test_signal_handlers_on_the_main_thread(loop):
    async def main():
        got = loop.create_future()
        loop.add_signal_handler(signal.SIGUSR1, got.set_result, "usr1")
        try:
            threading.Thread(target=os.kill, args=(os.getpid(), signal.SIGUSR1)).start()
            return await asyncio.wait_for(got, 30)
        finally:
            loop.remove_signal_handler(signal.SIGUSR1)

    asyncio.set_event_loop(loop)  # add_signal_handler wants the main thread's loop set
    try:
        assert loop.run_until_complete(main()) == "usr1"
    finally:
        asyncio.set_event_loop(None)


def test_ctrl_c_interrupts_run(tmp_path):
    script = tmp_path / "interrupted.py"
    script.write_text(
        "import asyncio, sys, runloop.asyncio\n"
        "async def main():\n"
        "    print('ready', flush=True)\n"
        "    await asyncio.sleep(60)\n"
        "try:\n"
        "    runloop.asyncio.run(main())\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(3)\n")
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "ready"
        start = time.monotonic()
        child.send_signal(signal.SIGINT)
        assert child.wait(30) == 3
        assert time.monotonic() - start < 10
    finally:
        if child.poll() is None:
            child.kill()
        child.stdout.close()


def test_leaves_nothing_in_the_run_loop_between_runs(loop, mode):
    rl = runloop.RunLoop.current()
    reader, writer = socket.socketpair()
    with reader, writer:
        loop.add_reader(reader, lambda: None)
        loop.call_later(60, lambda: None)
        loop.run_until_complete(asyncio.sleep(0))
        assert rl.run(mode, 0) is RunResult.FINISHED  # an empty mode
        loop.remove_reader(reader)


def test_readers_are_level_triggered(loop):
    read_end, write_end = os.pipe()
    calls = []

    async def main():
        done = asyncio.get_running_loop().create_future()

        def readable():
            calls.append(os.read(read_end, 1))  # leaves the rest: called again
            if len(calls) == 3:
                loop.remove_reader(read_end)
                done.set_result(None)

        loop.add_reader(read_end, readable)
        os.write(write_end, b"abc")
        await done

    try:
        loop.run_until_complete(asyncio.wait_for(main(), 30))
    finally:
        os.close(read_end)
        os.close(write_end)
    assert calls == [b"a", b"b", b"c"]


def test_stop_from_a_runloop_callout(loop, mode):
    rl = runloop.RunLoop.current()
    timer = runloop.Timer(lambda t: loop.stop(), delay=0.02)
    rl.add_timer(timer, mode)
    start = time.monotonic()
    loop.run_forever()  # nothing asyncio would wake for: only the timer stops it
    assert time.monotonic() - start < 5 and not timer.is_valid


def test_runs_again_on_another_thread(loop):
    assert loop.run_until_complete(asyncio.sleep(0.01, "main")) == "main"
    results = []
    thread = threading.Thread(target=lambda: results.append(
        loop.run_until_complete(asyncio.sleep(0.01, threading.get_ident()))))
    thread.start()
    thread.join(30)
    assert results == [thread.ident]
    assert loop.run_until_complete(asyncio.sleep(0, "back")) == "back"


def test_exceptions_reach_the_handler_or_stop_the_loop(loop):
    seen = []
    loop.set_exception_handler(lambda lp, context: seen.append(type(context.get("exception"))))

    def fails():
        raise ZeroDivisionError

    def interrupts():
        raise KeyboardInterrupt

    async def main():
        loop.call_soon(fails)
        await asyncio.sleep(0.01)
        loop.call_soon(interrupts)
        await asyncio.sleep(10)

    with pytest.raises(KeyboardInterrupt):
        loop.run_until_complete(main())
    assert seen == [ZeroDivisionError]
    assert not loop.is_running()
    assert loop.run_until_complete(asyncio.sleep(0, 5)) == 5  # still usable


def test_an_exception_in_a_runloop_callout_is_raised_by_run_until_complete(loop, mode):
    rl = runloop.RunLoop.current()

    def fails(timer):
        raise ValueError("from a runloop timer")

    rl.add_timer(runloop.Timer(fails, delay=0.01), mode)
    with pytest.raises(ValueError, match="runloop timer"):  # as RunLoop.run() raises it
        loop.run_until_complete(asyncio.sleep(10))
    assert not loop.is_running()
    assert loop.run_until_complete(asyncio.sleep(0, "again")) == "again"


# ---- bad input ---------------------------------------------------------------------------


def test_close_twice_and_use_after_close(mode):
    loop = rl_asyncio.RunLoopEventLoop(mode)
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
    loop.close()  # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        loop.call_soon(print)
    with pytest.raises(RuntimeError, match="closed"):
        loop.run_forever()
    loop.call_soon_threadsafe  # noqa: B018 - exists; calling it raises like call_soon
    with pytest.raises(RuntimeError, match="closed"):
        loop.call_soon_threadsafe(print)


def test_close_or_rerun_while_running_is_refused(loop):
    errors = []

    async def main():
        for attempt in (loop.close, loop.run_forever, lambda: loop.run_until_complete(asyncio.sleep(0))):
            try:
                attempt()
            except RuntimeError as error:
                errors.append(str(error))

    coroutine_warning = pytest.warns(RuntimeWarning, match="never awaited")
    with coroutine_warning:
        loop.run_until_complete(main())
        gc.collect()
    assert len(errors) == 3 and "running" in errors[0] and all("already running" in e for e in errors[1:])


def test_running_it_from_another_thread_while_it_runs_is_refused(loop):
    outcome = []

    async def main():
        def other():
            try:
                loop.run_forever()
            except RuntimeError as error:
                outcome.append(str(error))
        thread = threading.Thread(target=other)
        thread.start()
        await loop.run_in_executor(None, thread.join, 30)

    loop.run_until_complete(main())
    assert outcome and "already running" in outcome[0]


def test_call_soon_from_another_thread_is_caught_in_debug_mode(loop):
    loop.set_debug(True)
    errors = []

    async def main():
        def other():
            try:
                loop.call_soon(print)
            except RuntimeError as error:
                errors.append(str(error))
        await loop.run_in_executor(None, other)

    loop.run_until_complete(main())
    assert errors and "thread" in errors[0]


def test_a_nested_run_loop_run_does_not_reenter_asyncio(loop, mode):
    rl = runloop.RunLoop.current()
    order = []

    def nested():
        order.append("nested start")
        timer = runloop.Timer(lambda t: order.append("rl timer"), delay=0.01)
        rl.add_timer(timer, mode)
        loop.call_soon(order.append, "asyncio soon")
        result = rl.run(mode, 0.1, return_after_source_handled=False)
        order.append(f"nested end {result.name}")

    async def main():
        loop.call_soon(nested)
        await asyncio.sleep(0.01)

    loop.run_until_complete(main())
    assert order[:3] == ["nested start", "rl timer", "nested end TIMED_OUT"]
    assert order[3] == "asyncio soon"


def test_closing_a_watched_descriptor_is_logged_not_fatal(loop):
    seen = []
    loop.set_exception_handler(lambda lp, context: seen.append(context["exception"]))

    async def main():
        first, peer = socket.socketpair()
        number = first.fileno()
        loop.add_reader(number, lambda: None)
        await asyncio.sleep(0.01)
        first.close()  # a mistake: closed while watched (asyncio's own loop shrugs)
        await asyncio.sleep(0.01)
        again, other = socket.socketpair()  # takes the number again, most likely
        loop.remove_reader(number)
        got = loop.create_future()
        loop.add_reader(again, lambda: got.done() or got.set_result(again.recv(10)))
        other.send(b"x")
        result = await got
        loop.remove_reader(again)
        for s in (peer, again, other):
            s.close()
        return result

    assert loop.run_until_complete(asyncio.wait_for(main(), 30)) == b"x"
    assert seen and all(isinstance(e, runloop.RunLoopError) and "closed while" in str(e) for e in seen), seen


def test_bad_arguments():
    with pytest.raises(TypeError):
        rl_asyncio.RunLoopEventLoop(42)
    loop = rl_asyncio.RunLoopEventLoop()
    try:
        with pytest.raises(ValueError):
            loop.add_reader(-1, print)
        with pytest.raises(ValueError):
            loop.add_reader(object(), print)
        read_end, write_end = os.pipe()
        os.close(read_end)
        os.close(write_end)
        with pytest.raises(OSError):  # not open: EBADF, as asyncio's epoll loop says
            loop.add_reader(read_end, print)
    finally:
        loop.close()


def test_an_unclosed_loop_is_collected(mode):
    loop = rl_asyncio.RunLoopEventLoop(mode)
    loop.run_until_complete(asyncio.sleep(0))
    with pytest.warns(ResourceWarning):
        del loop
        gc.collect()
