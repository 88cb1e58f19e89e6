"""Python callables behind C callbacks.

C never sees a Python object.  Each item's Python state (its callable and a
weak reference to its wrapper) sits in `_entries` under an integer token,
and the token is the C `info` pointer.  The library's retain(info) and
release(info) callbacks count the token's references, so the state lives
exactly as long as the C item can still call it, independently of whether
Python still holds the wrapper.  The CFUNCTYPE objects handed to C are the
module-level trampolines below, alive for the life of the process.

Exceptions raised by a callable are never swallowed: the trampoline stores
the first one for the thread it ran on and stops that thread's innermost
run; RunLoop.run() (or the call that triggered the callback) raises it.  A
callback that no Python call is waiting for (for instance one run by a loop
driven from C) reports its exception through sys.unraisablehook.
"""
import ctypes
import itertools
import sys
import threading

from . import _capi

_lock = threading.Lock()
_entries = {}                 # token -> [state, references]
_tokens = itertools.count(1)  # 0 would be NULL
_thread = threading.local()   # .depth (Python calls waiting), .pending (exception)


def register(state, references=0):
    """Stores `state`; returns its token (the C info pointer)."""
    with _lock:
        token = next(_tokens)
        _entries[token] = [state, references]
    return token


def forget(token):
    with _lock:
        _entries.pop(token, None)


def _state(token):
    with _lock:
        entry = _entries.get(token)
        return entry[0] if entry else None


# ---- exceptions ---------------------------------------------------------

class waiting:
    """Marks a Python call (run, add/remove of a source, ...) during which
    callbacks on this thread report exceptions to it; raises the first one
    when the call returns."""

    def __enter__(self):
        _thread.depth = getattr(_thread, "depth", 0) + 1

    def __exit__(self, kind, value, traceback):
        _thread.depth -= 1
        pending = getattr(_thread, "pending", None)
        if pending is not None and kind is None:
            _thread.pending = None
            raise pending
        return False


def _report(error):
    if getattr(_thread, "depth", 0) > 0:
        if getattr(_thread, "pending", None) is None:
            _thread.pending = error
            _capi.RLRunLoopStop(_capi.RLRunLoopGetCurrent())
        else:
            _unraisable(error, "further exception in a runloop callback")
    else:
        _unraisable(error, "exception in a runloop callback")


def _unraisable(error, message):
    hook_args = type("UnraisableHookArgs", (), {
        "exc_type": type(error), "exc_value": error,
        "exc_traceback": error.__traceback__, "err_msg": message, "object": None})
    sys.unraisablehook(hook_args)


def _call(function, *args):
    try:
        function(*args)
    except BaseException as error:  # noqa: B902 - reported, see above
        _report(error)


# ---- trampolines (the only callbacks C ever gets) -------------------------

@_capi.RetainCallBack
def retain_info(info):
    with _lock:
        _entries[info][1] += 1
    return info


@_capi.ReleaseCallBack
def release_info(info):
    with _lock:
        entry = _entries[info]
        entry[1] -= 1
        if entry[1] == 0:
            del _entries[info]


@_capi.TimerCallBack
def timer_fired(handle, info):
    state = _state(info)
    if state is not None:
        _call(state.callback, state.wrapper(handle))


@_capi.ObserverCallBack
def observer_called(handle, activity, info):
    state = _state(info)
    if state is not None:
        from .constants import Activity
        _call(state.callback, state.wrapper(handle), Activity(activity))


@_capi.InfoCallBack
def source_perform(info):
    state = _state(info)
    if state is not None:
        _call(state.callback)


@_capi.ScheduleCallBack
def source_schedule(info, rl, mode):
    state = _state(info)
    if state is not None and state.schedule is not None:
        from .loop import RunLoop
        _call(state.schedule, RunLoop._borrow(rl), mode.decode("utf-8"))


@_capi.ScheduleCallBack
def source_cancel(info, rl, mode):
    state = _state(info)
    if state is not None and state.cancel is not None:
        from .loop import RunLoop
        _call(state.cancel, RunLoop._borrow(rl), mode.decode("utf-8"))


@_capi.InfoCallBack
def perform_once(info):
    with _lock:
        entry = _entries.pop(info, None)
        loop = _queued.pop(info, None)
        if loop is not None:
            _by_loop.get(loop, set()).discard(info)
    if entry is not None:
        _call(entry[0])


# ---- performed functions the library may drop ------------------------------
# RLRunLoopPerformFunction has no release callback: a function queued on a
# loop whose thread exits before running it is dropped by the library
# without a word.  The token of each queued function is remembered with its
# loop, and forgotten (freeing the callable) when it runs, when the library
# refuses the call (the loop is gone), or when the Python thread that owns
# the loop exits (`own_loop`).

_queued = {}    # token -> loop handle
_by_loop = {}   # loop handle -> tokens queued on it


def queue(loop, function):
    """Registers `function` as queued on `loop`; returns its token."""
    token = register(function, references=1)
    with _lock:
        _queued[token] = loop
        _by_loop.setdefault(loop, set()).add(token)
    return token


def unqueue(token):
    """Forgets a token the library did not take."""
    with _lock:
        _entries.pop(token, None)
        loop = _queued.pop(token, None)
        if loop is not None:
            _by_loop.get(loop, set()).discard(token)


def drop_loop(loop):
    """Forgets every function still queued on `loop` (its thread exited)."""
    with _lock:
        for token in _by_loop.pop(loop, ()):
            _entries.pop(token, None)
            _queued.pop(token, None)


class _LoopOwner:
    """Lives in the owning thread's thread-local storage: Python destroys it
    when that thread ends, just before the library tears the loop down."""
    __slots__ = ("loop",)

    def __init__(self, loop):
        self.loop = loop

    def __del__(self):
        drop_loop(self.loop)


def own_loop(loop):
    """Called on a thread with its own loop (RunLoop.current())."""
    if getattr(_thread, "owner", None) is None:
        _thread.owner = _LoopOwner(loop)


# ---- file descriptors, worker threads, ports, stalls -----------------------

@_capi.FileDescriptorCallBack
def descriptor_ready(handle, types, info):
    state = _state(info)
    if state is not None:
        _call(state.callback, state.wrapper(handle), int(types))


@_capi.InfoCallBack
def run_task(info):
    """A task given to a worker thread: run once, then forgotten."""
    with _lock:
        entry = _entries.pop(info, None)
    if entry is not None:
        _call(entry[0])


@_capi.MessagePortCallBack
def port_request(handle, msgid, data, info):
    """A request on a local port: the callable's bytes (or None) become the
    reply, an RLData whose reference goes to the library."""
    state = _state(info)
    if state is None:
        return None
    payload = None
    if data:
        length = _capi.RLDataGetLength(data)
        payload = ctypes.string_at(_capi.RLDataGetBytePtr(data), length) if length else b""
    reply = []
    _call(lambda: reply.append(state.callback(state.wrapper(handle), int(msgid), payload)))
    if not reply or reply[0] is None:
        return None
    body = bytes(reply[0])
    return _capi.RLDataCreate(None, body, len(body)) or None


@_capi.MessagePortInvalidationCallBack
def port_invalidated(handle, info):
    from .ports import MessagePort
    callback = MessagePort._invalidation_callbacks.get(handle)
    if callback is not None:
        _call(callback)


@_capi.StallCallBack
def stall_reported(rl, stall, info):
    state = _state(info)
    if state is None:
        return
    s = stall.contents
    report = {
        "phase": (_capi.RLRunLoopPhaseGetName(s.phase) or b"").decode(),
        "callout": (_capi.RLRunLoopCalloutKindGetName(s.callout) or b"").decode(),
        "mode": s.mode.decode("utf-8") if s.mode else None,
        "elapsed": s.elapsed,
    }
    from .loop import RunLoop
    _call(state, RunLoop._borrow(rl), report)
