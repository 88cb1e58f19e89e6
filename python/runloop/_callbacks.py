"""Python callables behind C callbacks.

C never sees a Python object.  Each item's Python state (its callable and a
weak reference to its wrapper) sits in `_entries` under an integer token,
and the token is the C `info` pointer.  The library's retain(info) and
release(info) callbacks count the token's references, so the state lives
exactly as long as the C item can still call it, independently of whether
Python still holds the wrapper.  The CFUNCTYPE objects handed to C are the
module-level trampolines below, alive for the life of the process.

Functions queued with RunLoop.perform / Thread.perform get no release
callback from the library: their token is freed when the function runs,
and otherwise when the loop is torn down (its thread exits), which drops
whatever is still queued.  To learn about the teardown, the first perform
on a loop adds a "lifetime sentinel" to it: a version-0 source in a private
mode (LIFETIME_MODE) whose cancel callback the teardown calls.

Exceptions raised by a callable are never swallowed: the trampoline stores
the first one for the thread it ran on and stops that thread's innermost
run; RunLoop.run() (or the call that triggered the callback) raises it.  A
callback that no Python call is waiting for (for instance one run by a loop
driven from C, or by a Thread's worker) reports its exception through
sys.unraisablehook.
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
_loop_tokens = {}             # loop handle -> tokens of functions queued on it
_loop_gone_hooks = []         # hook(loop handle), called at a watched loop's teardown
_sentinel_lock = threading.Lock()

LIFETIME_MODE = b"runloop.python.lifetime"


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
        if pending is not None:
            _thread.pending = None
            if kind is None:
                raise pending
            _unraisable(pending, "exception in a runloop callback while another was raised")
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


_capi.set_exception_reporter(_report)


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


@_capi.FileDescriptorCallBack
def descriptor_ready(handle, types, info):
    state = _state(info)
    if state is not None:
        from .fd import FileEvent
        _call(state.callback, state.wrapper(handle), FileEvent(types))


@_capi.SignalCallBack
def signal_arrived(handle, signo, count, info):
    state = _state(info)
    if state is not None:
        _call(state.callback, signo, count)


@_capi.InfoCallBack
def perform_once(info):
    with _lock:
        entry = _entries.pop(info, None)
        if entry is not None:
            function, loop = entry[0]
            tokens = _loop_tokens.get(loop)
            if tokens is not None:
                tokens.discard(info)
    if entry is not None:
        _call(function)


# ---- functions queued on a loop --------------------------------------------

def register_perform(function, loop):
    """Stores `function`, to be run once by perform_once on `loop` (a loop
    handle); returns its token.  Call forget() if queueing it fails."""
    if loop not in _loop_tokens:
        _watch(loop)
    token = register((function, loop), references=1)
    with _lock:
        tokens = _loop_tokens.get(loop)
        if tokens is not None:
            tokens.add(token)
    return token


def forget_perform(token):
    """Frees a function the library did not take (the perform failed)."""
    with _lock:
        entry = _entries.pop(token, None)
        if entry is not None:
            tokens = _loop_tokens.get(entry[0][1])
            if tokens is not None:
                tokens.discard(token)


def queued_on(loop):
    """How many queued functions of `loop` are waiting to run (tests)."""
    with _lock:
        return len(_loop_tokens.get(loop, ()))


def _watch(loop):
    """Adds the lifetime sentinel to `loop` (once); if the loop is already
    gone, nothing (the perform that follows reports it)."""
    with _sentinel_lock:
        with _lock:
            if loop in _loop_tokens:
                return
            _loop_tokens[loop] = set()  # before the add: the teardown may come at once
        context = _capi.SourceContext(0, loop, _NO_RETAIN, _NO_RELEASE, None, None, None,
                                      _NO_SCHEDULE, loop_gone, _nothing)
        source, error = _capi.call_quietly(_capi.RLRunLoopSourceCreate, None, 0, context)
        if source:
            _, error = _capi.call_quietly(_capi.RLRunLoopAddSource, loop, source, LIFETIME_MODE)
            _capi.call_quietly(_capi.RLRelease, source)  # the loop holds it
        if error is not None or not source:
            with _lock:
                _loop_tokens.pop(loop, None)


_NO_RETAIN = ctypes.cast(None, _capi.RetainCallBack)
_NO_RELEASE = ctypes.cast(None, _capi.ReleaseCallBack)
_NO_SCHEDULE = ctypes.cast(None, _capi.ScheduleCallBack)


@_capi.InfoCallBack
def _nothing(info):
    pass


@_capi.ScheduleCallBack
def loop_gone(info, rl, mode):
    """The sentinel's cancel: `rl` is being torn down (its thread exits) and
    has dropped every function still queued on it."""
    with _lock:
        for token in _loop_tokens.pop(rl, ()):
            _entries.pop(token, None)
    for hook in list(_loop_gone_hooks):
        try:
            hook(rl)
        except BaseException as error:  # noqa: B902
            _unraisable(error, "exception in a runloop teardown hook")
