"""Every test uses its own mode name, so the main thread's loop (shared by
all tests) starts each test with nothing scheduled in it."""
import itertools
import threading

import pytest

_numbers = itertools.count()


@pytest.fixture
def mode(request):
    return f"py.{request.node.name}.{next(_numbers)}"


class LoopThread:
    """A thread running its own loop until stopped; `loop` is set once the
    loop exists (and `ready` is set from inside its first pass)."""

    def __init__(self, mode):
        import runloop
        self.mode, self.ready, self.loop, self.result = mode, threading.Event(), None, None
        self._created = threading.Event()
        self.thread = threading.Thread(target=self._main, args=(runloop,))

    def _main(self, runloop):
        self.loop = runloop.RunLoop.current()
        keep_alive = runloop.Source(lambda: None)
        self.loop.add_source(keep_alive, self.mode)
        self.loop.perform(self.ready.set, self.mode, wake=False)
        self._created.set()
        self.result = self.loop.run(self.mode, 30)

    def __enter__(self):
        self.thread.start()
        self._created.wait()
        assert self.ready.wait(30)
        return self

    def __exit__(self, *exc):
        self.loop.stop()
        self.thread.join(30)
        assert not self.thread.is_alive()


@pytest.fixture
def loop_thread(mode):
    return LoopThread(mode)


def _dead_loop():
    """The loop of a thread that has exited, once the library has torn it
    down (a source's cancel callback runs at the teardown, after the thread
    is gone for Python: join() alone does not wait for it)."""
    import runloop
    seen, torn_down = [], threading.Event()

    def thread_main():
        loop = runloop.RunLoop.current()
        loop.add_source(runloop.Source(lambda: None, cancel=lambda rl, m: torn_down.set()), "py.dead")
        seen.append(loop)

    thread = threading.Thread(target=thread_main)
    thread.start()
    thread.join()
    assert torn_down.wait(30)
    return seen[0]


@pytest.fixture
def dead_loop():
    return _dead_loop()
