"""Thread: a keep-alive worker thread running its own loop (RLThread)."""
import atexit
import threading
import weakref
from typing import Callable, Optional, TypeVar

from . import _callbacks, _capi
from ._handle import Handle, create
from .loop import RunLoop

T = TypeVar("T")

_live = weakref.WeakSet()  # Threads not yet closed: stopped at exit


class _Outcome:
    __slots__ = ("value", "error", "done")

    def __init__(self):
        self.value, self.error, self.done = None, None, threading.Event()


class Thread(Handle):
    """A worker thread (not a threading.Thread: the library starts it) that
    runs its own loop in the default mode until stopped.  Hand it work from
    any thread with perform() / perform_and_wait(); add items to `loop`.

        with runloop.Thread("worker") as worker:
            answer = worker.perform_and_wait(lambda: 6 * 7)

    Tasks run in the order they were queued, in the loop's common modes.
    stop() lets every task queued before it run, then ends the thread.
    close() (or leaving the `with` block) stops it and releases it; so does
    dropping the last reference, and the interpreter's exit.
    """
    __slots__ = ("_loop", "_ident")

    def __init__(self, name: Optional[str] = None):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Thread: name must be a str or None, got {type(name).__name__}")
        encoded = None if name is None else name.encode("utf-8")
        if encoded is not None and b"\0" in encoded:
            raise ValueError("Thread: name contains a NUL character")
        Handle.__init__(self, create("Thread", _capi.RLThreadCreate, encoded))
        self._loop = RunLoop._borrow(_capi.RLThreadGetRunLoop(self._handle))
        self._ident = None
        self._ident = self.perform_and_wait(threading.get_ident)
        _live.add(self)

    @property
    def loop(self) -> RunLoop:
        """The worker's loop (valid as long as this object, also once the
        thread has stopped)."""
        self._live
        return self._loop

    @property
    def ident(self) -> int:
        """The worker's thread identifier (threading.get_ident() there)."""
        self._live
        return self._ident

    def _queue(self, task, wait):
        loop = self._loop._handle
        token = _callbacks.register_perform(task, loop)
        try:
            accepted = _capi.RLThreadPerform(self._live, _callbacks.perform_once, token, 1 if wait else 0)
        except BaseException:
            _callbacks.forget_perform(token)
            raise
        if not accepted:
            _callbacks.forget_perform(token)
            raise RuntimeError("Thread: the library did not accept the task")

    def perform(self, function: Callable[[], object]) -> None:
        """Queues function() to run on the worker, after every task queued
        before, and returns at once.  An exception it raises goes to
        sys.unraisablehook (no Python call waits for it there).  Raises
        InvalidArgumentError once the thread was stopped."""
        if not callable(function):
            raise TypeError("Thread.perform: function must be callable")
        self._queue(function, wait=False)

    def perform_and_wait(self, function: Callable[[], T]) -> T:
        """Runs function() on the worker and returns its result, or raises
        its exception here.  Called on the worker itself (from a task), it
        runs function() at once.  The wait is interruptible (Ctrl-C on the
        main thread); the task still runs then.  Raises
        InvalidArgumentError once the thread was stopped."""
        if not callable(function):
            raise TypeError("Thread.perform_and_wait: function must be callable")
        outcome = _Outcome()

        def task():
            try:
                outcome.value = function()
            except BaseException as error:  # noqa: B902 - raised in the caller
                outcome.error = error
            finally:
                outcome.done.set()

        on_worker = threading.get_ident() == self._ident
        self._queue(task, wait=on_worker)  # on the worker, the library runs it inline
        outcome.done.wait()
        if outcome.error is not None:
            try:
                raise outcome.error
            finally:
                outcome = None
        return outcome.value

    def stop(self) -> None:
        """Lets every task queued so far run, then ends the thread; returns
        once it has exited (from a task on the worker: at once, the stop
        follows).  Idempotent."""
        _capi.RLThreadStop(self._live)

    def close(self) -> None:
        """stop(), then releases the thread; further use raises ValueError."""
        if self._handle:
            self.stop()
            _live.discard(self)
            self._release()

    def __enter__(self) -> "Thread":
        self._live
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self):
        return f"<runloop.Thread {self._handle or 0:#x}{'' if self._handle else ' closed'}>"


@atexit.register
def _stop_all():
    # Workers call into Python: stop them while the interpreter still runs.
    for thread in list(_live):
        try:
            thread.close()
        except Exception:  # noqa: B902 - at exit, nothing to report to
            pass
