"""attach(): a running asyncio loop drives the calling thread's run loop.

The library's drive-from-outside API (runloop.h, "Driving a loop from
another event loop"): asyncio watches the run loop's poll descriptor with
add_reader() and sleeps at most the run loop's timeout (call_later());
when either fires, RLRunLoopRunPending runs what is pending in the mode
(one pass of RLRunLoopRunInMode(mode, 0)), and the timeout is asked again
(which prepares the run loop for the next wait).  Readiness is
level-triggered and only RunPending consumes it, so nothing is stranded.

asyncio watches a dup() of the poll descriptor, so closing the library's
number by mistake does not silence the watch: the library reports it at
the next round (InvalidArgumentError, "poll descriptor N is no longer the
loop's"), the attachment moves to the new descriptor the library hands
out and tells asyncio's exception handler, and no work is lost.
"""
import asyncio
import math
import os
import threading
import weakref

from .. import _callbacks, _capi
from ..constants import DEFAULT_MODE, RunResult
from ..errors import ErrorCode, RunLoopError
from ..loop import RunLoop

_NEEDED = ("RLRunLoopGetPollDescriptor", "RLRunLoopGetTimeout", "RLRunLoopRunPending")
_attached = {}            # RunLoop handle -> Attachment (one driver per run loop)
_attached_lock = threading.Lock()


def available() -> bool:
    """Whether the loaded librunloop has the drive-from-outside API."""
    return all(hasattr(_capi, name) for name in _NEEDED)


class Attachment:
    """A run loop driven by an asyncio loop (see attach()).  close() (or
    leaving a `with` block) ends it; the run loop is left as it was."""

    def __init__(self, loop, run_loop, mode):
        self.loop, self.run_loop, self.mode = loop, run_loop, mode
        self.runs = 0           # RLRunLoopRunPending calls so far
        self._mode = _capi.mode_bytes(mode)
        self._thread = threading.get_ident()
        self._timer = None      # asyncio TimerHandle of the current timeout
        self._running = False   # inside RunPending (a callout may close us)
        self._closed = False
        self._watched = None    # (library's number, our dup) asyncio watches
        self._finalizer = None
        try:
            self._watch(_capi.RLRunLoopGetPollDescriptor(run_loop._handle))
            self._prepare()
        except BaseException:
            self._unwatch()
            raise

    # ---- public ---------------------------------------------------------------------------

    def fileno(self) -> int:
        """The run loop's poll descriptor (the library's; do not close it)."""
        self._check_open()
        return self._watched[0]

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Stops driving the run loop (idempotent).  From the asyncio
        loop's thread; also from a runloop callout it runs."""
        if self._closed:
            return
        self._closed = True
        with _attached_lock:
            if _attached.get(self.run_loop._handle) is self:
                del _attached[self.run_loop._handle]
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._unwatch()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        state = "closed" if self._closed else f"fd {self._watched[0]}"
        return f"<Attachment {self.run_loop!r} mode={self.mode!r} {state}>"

    # ---- one round ------------------------------------------------------------------------

    def _run(self):
        """asyncio callback: the descriptor is readable or the timeout passed."""
        if self._closed:
            return
        if threading.get_ident() != self._thread:
            self.close()
            raise RuntimeError("runloop.asyncio.attach: the asyncio loop runs on another thread "
                               "than the one that attached it; the attachment is closed")
        if self._running:
            return  # a callout of this run ran the asyncio loop (nested): the outer round goes on
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._running = True
        try:
            with _callbacks.waiting():  # a runloop callout's exception is raised here
                result = self._call(_capi.RLRunLoopRunPending, self.run_loop._handle, self._mode)
            self.runs += 1
        finally:
            self._running = False
            if not self._closed:
                self._prepare()
        return result

    def _prepare(self):
        timeout = self._call(_capi.RLRunLoopGetTimeout, self.run_loop._handle, self._mode)
        if self._closed:
            return
        if not math.isinf(timeout):
            self._timer = self.loop.call_later(max(0.0, timeout), self._run)

    def _call(self, function, *args):
        """Calls an embed function; the library's report that the poll
        descriptor was closed moves the watch to a new one (and tells
        asyncio's exception handler) instead of failing the round."""
        try:
            result = function(*args)
        except RunLoopError as error:
            if error.code != ErrorCode.INVALID_ARGUMENT or "poll descriptor" not in error.message:
                raise
            self._moved(error)
            result = function(*args)
        if function is _capi.RLRunLoopRunPending:
            return RunResult(result)
        return result

    def _moved(self, error):
        number = _capi.RLRunLoopGetPollDescriptor(self.run_loop._handle)
        self._unwatch()
        self._watch(number)
        self.loop.call_exception_handler({
            "message": f"runloop.asyncio.attach: the run loop's poll descriptor was closed; "
                       f"now watching {number}",
            "exception": error})

    # ---- the watch ------------------------------------------------------------------------

    def _watch(self, number):
        copy = os.dup(number)  # inheritable=False by default
        try:
            self.loop.add_reader(copy, self._run)
        except BaseException:
            os.close(copy)
            raise
        self._watched = (number, copy)
        self._finalizer = weakref.finalize(self, os.close, copy)

    def _unwatch(self):
        if self._watched is None:
            return
        _, copy = self._watched
        self._watched = None
        if not self.loop.is_closed():
            self.loop.remove_reader(copy)
        self._finalizer()  # closes the copy

    def _check_open(self):
        if self._closed:
            raise ValueError("the attachment is closed")


def attach(loop=None, mode=DEFAULT_MODE) -> Attachment:
    """Makes `loop` (default: the running asyncio loop) drive the calling
    thread's run loop in `mode`: runloop timers, sources, performs and
    descriptors of that mode fire inside asyncio, on this thread, while
    asyncio runs.  Returns an Attachment; close() it to stop.

    Call it on the thread the asyncio loop runs on.  RuntimeError if the
    library lacks the API (see available()), if `loop` runs on another
    thread, is closed, or is a RunLoopEventLoop (which already runs on the
    run loop), or if this run loop is already attached (one driver, one
    mode at a time).  InvalidArgumentError for COMMON_MODES, which is not
    a mode a loop runs in (name one).  Exceptions raised by runloop
    callouts are raised by the round that ran them and reach asyncio's
    exception handler (a BaseException such as KeyboardInterrupt stops
    asyncio, as any callback's would)."""
    if not available():
        raise RuntimeError("runloop.asyncio.attach: the loaded librunloop has no "
                           "RLRunLoopRunPending (a library older than the embed API)")
    if loop is None:
        loop = asyncio.get_running_loop()
    from ._eventloop import RunLoopEventLoop
    if isinstance(loop, RunLoopEventLoop):
        raise RuntimeError("runloop.asyncio.attach: a RunLoopEventLoop already runs on the run loop")
    if not isinstance(loop, asyncio.AbstractEventLoop):
        raise TypeError(f"runloop.asyncio.attach: expected an asyncio event loop, got {type(loop).__name__}")
    if loop.is_closed():
        raise RuntimeError("runloop.asyncio.attach: the asyncio loop is closed")
    thread = getattr(loop, "_thread_id", None)
    if loop.is_running() and thread is not None and thread != threading.get_ident():
        raise RuntimeError("runloop.asyncio.attach: the asyncio loop runs on another thread; "
                           "attach on that thread (e.g. with loop.call_soon_threadsafe)")
    run_loop = RunLoop.current()
    mode_name = _capi.mode_bytes(mode).decode("utf-8")
    with _attached_lock:
        existing = _attached.get(run_loop._handle)
    if existing is not None and existing.loop.is_closed():
        existing.close()  # its asyncio loop was closed with it still attached
    with _attached_lock:
        if run_loop._handle in _attached:
            raise RuntimeError(f"runloop.asyncio.attach: this thread's run loop is already "
                               f"attached ({_attached[run_loop._handle]!r})")
        _attached[run_loop._handle] = None  # reserved
    try:
        attachment = Attachment(loop, run_loop, mode_name)
    except BaseException:
        with _attached_lock:
            _attached.pop(run_loop._handle, None)
        raise
    with _attached_lock:
        _attached[run_loop._handle] = attachment
    return attachment
