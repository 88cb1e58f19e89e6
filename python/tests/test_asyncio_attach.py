"""runloop.asyncio.attach: a run loop driven by a running asyncio loop."""
import asyncio
import gc
import os
import socket
import threading
import time

import pytest

import runloop
import runloop.asyncio as rl_asyncio
from runloop import Activity

pytestmark = pytest.mark.skipif(not rl_asyncio.available(),
                                reason="librunloop without RLRunLoopRunPending (embed API)")


def run(coroutine_function, *args):
    """asyncio.run with the default (selector) loop; a stuck test fails."""
    async def bounded():
        return await asyncio.wait_for(coroutine_function(*args), 30)
    return asyncio.run(bounded())


def test_timers_performs_and_sources_fire_inside_asyncio(mode):
    rl = runloop.RunLoop.current()
    fired = []

    async def main():
        with rl_asyncio.attach(mode=mode) as attachment:
            done = asyncio.Event()
            start = time.monotonic()
            timer = runloop.Timer(lambda t: fired.append(("timer", time.monotonic() - start)), delay=0.05)
            rl.add_timer(timer, mode)
            await asyncio.sleep(0.1)  # only the attachment's timeout can wake asyncio for it
            source = runloop.Source(lambda: (fired.append(("source",)), done.set()))
            rl.add_source(source, mode)
            gate = threading.Event()
            thread = threading.Thread(target=lambda: (gate.wait(30), source.signal_and_wake_up()))
            thread.start()
            gate.set()
            await done.wait()
            done.clear()
            threading.Thread(target=rl.perform, args=(lambda: (fired.append(("perform",)), done.set()), mode)).start()
            await done.wait()
            thread.join()
            source.invalidate()
            return attachment.runs

    runs = run(main)
    assert [f[0] for f in fired] == ["timer", "source", "perform"]
    assert 0.05 <= fired[0][1] < 5
    assert runs >= 3


def test_descriptors_and_observers(mode):
    rl = runloop.RunLoop.current()
    left, right = socket.socketpair()
    activities, data = [], []

    async def main():
        done = asyncio.Event()

        def readable(f, events):
            data.append(left.recv(10))
            f.enable(runloop.FileEvent.READ)  # from the callout: seen by the next wait
            done.set()

        f = runloop.FileDescriptor(left, readable)
        rl.add_source(f.source(), mode)
        f.enable(runloop.FileEvent.READ)
        observer = runloop.Observer(lambda o, a: activities.append(a))
        rl.add_observer(observer, mode)
        with rl_asyncio.attach(mode=mode):
            for word in (b"ping", b"pong"):
                done.clear()
                right.send(word)
                await done.wait()
        observer.invalidate()
        f.invalidate()

    with left, right:
        run(main)
    assert data == [b"ping", b"pong"]
    assert Activity.ENTRY in activities and Activity.EXIT in activities
    assert Activity.BEFORE_WAITING not in activities  # asyncio does the waiting


def test_a_descriptor_added_while_attached_is_watched(mode):
    """Needs the library's "follow fd edits parked" (embed branch 00d2375)."""
    rl = runloop.RunLoop.current()
    left, right = socket.socketpair()
    data = []

    async def main():
        with rl_asyncio.attach(mode=mode):
            done = asyncio.Event()
            f = runloop.FileDescriptor(left, lambda f, e: (data.append(left.recv(10)), done.set()))
            rl.add_source(f.source(), mode)
            f.enable(runloop.FileEvent.READ)  # from asyncio code, outside any run
            right.send(b"ping")
            try:
                await asyncio.wait_for(done.wait(), 2)
            finally:
                f.invalidate()

    with left, right:
        run(main)
    assert data == [b"ping"]


def test_only_the_attached_mode_runs(mode):
    rl = runloop.RunLoop.current()
    fired = []

    async def main():
        with rl_asyncio.attach(mode=mode):
            rl.add_timer(runloop.Timer(lambda t: fired.append("other"), delay=0.0), mode + ".other")
            rl.add_timer(runloop.Timer(lambda t: fired.append("mine"), delay=0.02), mode)
            await asyncio.sleep(0.1)

    run(main)
    assert fired == ["mine"]
    rl.run(mode + ".other", 0)  # that one waited for a run of its own mode
    assert fired == ["mine", "other"]


def test_callout_exceptions_reach_the_handler_and_rounds_go_on(mode):
    rl = runloop.RunLoop.current()
    seen, fired = [], []

    def fails(timer):
        raise ZeroDivisionError("in a runloop timer")

    async def main():
        asyncio.get_running_loop().set_exception_handler(lambda lp, c: seen.append(c.get("exception")))
        with rl_asyncio.attach(mode=mode):
            rl.add_timer(runloop.Timer(fails, delay=0.0), mode)
            await asyncio.sleep(0.05)
            rl.add_timer(runloop.Timer(lambda t: fired.append(1), delay=0.0), mode)
            await asyncio.sleep(0.05)

    run(main)
    assert len(seen) == 1 and isinstance(seen[0], ZeroDivisionError)
    assert fired == [1]


def test_keyboard_interrupt_in_a_callout_stops_asyncio(mode):
    rl = runloop.RunLoop.current()

    def interrupts(timer):
        raise KeyboardInterrupt

    async def main():
        attachment = rl_asyncio.attach(mode=mode)
        try:
            rl.add_timer(runloop.Timer(interrupts, delay=0.0), mode)
            await asyncio.sleep(10)
        finally:
            attachment.close()

    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(KeyboardInterrupt):
            loop.run_until_complete(main())
    finally:
        loop.close()  # main() never got to close the attachment

    async def again():
        with rl_asyncio.attach(mode=mode):  # the closed loop's attachment is dropped
            pass
    run(again)


# ---- bad input ---------------------------------------------------------------------------


def test_closing_the_descriptor_by_mistake_loses_nothing(mode):
    rl = runloop.RunLoop.current()
    seen, fired = [], []

    async def main():
        asyncio.get_running_loop().set_exception_handler(lambda lp, c: seen.append(c["message"]))
        with rl_asyncio.attach(mode=mode) as attachment:
            first = attachment.fileno()
            os.close(first)  # the library's descriptor: a mistake
            done = asyncio.Event()
            threading.Thread(target=rl.perform, args=(lambda: (fired.append(1), done.set()), mode)).start()
            await done.wait()
            done.clear()
            threading.Thread(target=rl.perform, args=(lambda: (fired.append(2), done.set()), mode)).start()
            await done.wait()

    run(main)
    assert fired == [1, 2]
    assert len(seen) == 1 and "poll descriptor was closed" in seen[0]


def test_attach_refuses_bad_loops_and_a_second_driver(mode):
    with pytest.raises(RuntimeError, match="no running event loop"):
        rl_asyncio.attach(mode=mode)
    with pytest.raises(TypeError):
        rl_asyncio.attach(object(), mode=mode)
    closed = asyncio.new_event_loop()
    closed.close()
    with pytest.raises(RuntimeError, match="closed"):
        rl_asyncio.attach(closed, mode=mode)

    async def on_runloop_loop():
        with pytest.raises(RuntimeError, match="already runs on the run loop"):
            rl_asyncio.attach()
    rl_asyncio.run(on_runloop_loop(), mode=mode)

    async def twice():
        with rl_asyncio.attach(mode=mode):
            with pytest.raises(RuntimeError, match="already attached"):
                rl_asyncio.attach(mode=mode + ".2")
        with rl_asyncio.attach(mode=mode):  # free again after close
            pass
    run(twice)


def test_attach_from_another_thread_is_refused(mode):
    errors = []

    async def main():
        loop = asyncio.get_running_loop()

        def other():
            try:
                rl_asyncio.attach(loop, mode=mode)
            except RuntimeError as error:
                errors.append(str(error))
        await loop.run_in_executor(None, other)

    run(main)
    assert errors and "another thread" in errors[0]


def test_a_loop_run_on_another_thread_than_attached_closes_the_attachment(mode):
    loop = asyncio.new_event_loop()
    seen = []
    loop.set_exception_handler(lambda lp, c: seen.append(c.get("exception")))
    attachment = rl_asyncio.attach(loop, mode=mode)  # not running: allowed, on this thread
    runloop.RunLoop.current().perform(lambda: None, mode)  # work: the descriptor is readable
    thread = threading.Thread(target=loop.run_until_complete, args=(asyncio.sleep(0.05),))
    thread.start()
    thread.join(30)
    loop.close()
    assert attachment.closed
    assert len(seen) == 1 and "another thread" in str(seen[0])
    runloop.RunLoop.current().run(mode, 0)  # the perform still runs, here


def test_close_twice_and_close_from_a_callout(mode):
    rl = runloop.RunLoop.current()
    fired = []

    async def main():
        attachment = rl_asyncio.attach(mode=mode)
        copy = attachment._watched[1]
        rl.add_timer(runloop.Timer(lambda t: (fired.append("closing"), attachment.close()), delay=0.0), mode)
        await asyncio.sleep(0.05)
        assert attachment.closed
        runs = attachment.runs
        rl.add_timer(runloop.Timer(lambda t: fired.append("after"), delay=0.0), mode)
        await asyncio.sleep(0.05)
        attachment.close()
        with pytest.raises(ValueError):
            attachment.fileno()
        with pytest.raises(OSError):
            os.fstat(copy)  # the dup is closed
        return runs, attachment.runs

    runs_then, runs_now = run(main)
    assert fired == ["closing"] and runs_then == runs_now
    rl.run(mode, 0)  # the "after" timer waited for a run of the loop
    assert fired == ["closing", "after"]


def test_reentering_asyncio_from_a_callout_is_an_error_not_a_hang(mode):
    rl = runloop.RunLoop.current()
    seen = []

    async def main():
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(lambda lp, c: seen.append(repr(c.get("exception"))))  # frees the frames
        with rl_asyncio.attach(mode=mode):
            rl.perform(lambda: loop.run_until_complete(asyncio.sleep(0)), mode)
            await asyncio.sleep(0.05)

    with pytest.warns(RuntimeWarning, match="never awaited"):
        run(main)
        gc.collect()
    assert len(seen) == 1 and "already running" in seen[0]


def test_quiet_while_the_mode_has_no_work(mode):
    """Attached to a mode that does not exist yet while a descriptor of
    another mode is readable: asyncio is not woken for it (before, the
    poll descriptor stayed readable and the attachment ran ~10^4 rounds in
    200 ms at 100% CPU); the first item added to the mode is heard of."""
    rl = runloop.RunLoop.current()
    other = mode + ".other"
    left, right = socket.socketpair()
    f = runloop.FileDescriptor(left, lambda f, events: None)
    rl.add_source(f.source(), other)
    f.enable(runloop.FileEvent.READ)
    right.send(b"x")  # readable, never read (the callback never runs)
    fired = []

    async def main():
        rl_asyncio.attach(mode=other).close()  # prepared for it: the wait set holds it
        with rl_asyncio.attach(mode=mode) as attachment:
            await asyncio.sleep(0.2)
            idle_runs = attachment.runs
            done = asyncio.Event()
            rl.add_timer(runloop.Timer(lambda t: (fired.append(t), done.set()), delay=0.01), mode)
            await done.wait()
            return idle_runs

    try:
        assert run(main) <= 4
        assert len(fired) == 1
    finally:
        f.invalidate()
        left.close()
        right.close()


def test_common_modes_are_refused(mode):
    """kRLRunLoopCommonModes is not a mode a loop runs in (as in CF)."""
    async def main():
        with pytest.raises(runloop.errors.InvalidArgumentError, match="not a mode a loop runs in"):
            rl_asyncio.attach(mode=runloop.COMMON_MODES)
    run(main)
