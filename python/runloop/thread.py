"""WorkerThread: a thread of the library's running its own loop
(RLThread, a keep-alive worker)."""
from typing import Callable, Optional

from . import _callbacks, _capi
from ._handle import Handle
from .loop import RunLoop


class WorkerThread(Handle):
    """A thread that runs its loop until stop() (or until Python drops the
    object).  perform() hands it work from any thread."""
    __slots__ = ()

    def __init__(self, name: Optional[str] = None) -> None:
        Handle.__init__(self, _capi.RLThreadCreate(name.encode("utf-8") if name else None))

    @property
    def loop(self) -> RunLoop:
        """The thread's loop (add timers, sources, observers to it)."""
        return RunLoop._borrow(_capi.RLThreadGetRunLoop(self._handle))

    def perform(self, function: Callable[[], object], wait: bool = False) -> None:
        """Runs function() on the thread.  With wait=True, returns once it
        has run and raises what it raised.  RuntimeError if the thread was
        stopped (the function is then not run, and freed)."""
        if not callable(function):
            raise TypeError("WorkerThread.perform: function must be callable")
        raised = []

        def task():
            try:
                function()
            except BaseException as error:  # noqa: B902 - re-raised in the caller
                if not wait:
                    raise
                raised.append(error)
        token = _callbacks.register(task, references=1)
        try:
            accepted = _capi.RLThreadPerform(self._handle, _callbacks.run_task, token, 1 if wait else 0)
        except BaseException:
            _callbacks.forget(token)
            raise
        if not accepted:
            _callbacks.forget(token)
            raise RuntimeError("WorkerThread.perform: the thread was stopped")
        if raised:
            raise raised[0]

    def stop(self) -> None:
        """Ends the thread's loop (every nested run too) and the thread."""
        _capi.RLThreadStop(self._handle)
