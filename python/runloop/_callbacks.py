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
    if entry is not None:
        _call(entry[0])
