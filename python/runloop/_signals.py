"""Python signal handlers (and so Ctrl-C) while the main thread runs a loop.

A signal makes Python's C-level handler note it and write its number to the
"wakeup fd" (signal.set_wakeup_fd); the Python-level handler runs later, when
the main thread executes Python code.  The library retries epoll_wait on
EINTR, so a loop asleep in RunLoop.run() would never give it that chance.

While the main thread is inside RunLoop.run() (outermost call), the wakeup fd
is a pipe of ours.  A helper thread blocked on the pipe's other end wakes on
every signal, passes the bytes on to the wakeup fd that was set before (an
asyncio loop's, say; what is still in the pipe when the run ends is passed
on then), and queues `check_signals` on the running loop, in its
current mode, with a wake-up.  check_signals runs on the main thread, inside
the run: the Python handlers run there.  A handler that returns lets the run
go on; one that raises (KeyboardInterrupt from the default SIGINT handler)
stops the run, and run() raises the exception, as time.sleep() would.

Nothing is added to the loop's modes (a mode with no items must still
finish at once).  The helper thread starts with the first run on the main
thread and lives as long as the process (a daemon thread).

Python may also run pending handlers at the entry of any Python function,
including the trampolines ctypes calls for a callback and finalizers
(__del__); an exception raised there would escape and only be printed.
While a run is active on the main thread, a sys.unraisablehook wrapper
hands such an exception from one of this package's trampolines or
finalizers to the run instead.  (So this package never catches more than
the exceptions it expects in code that may run on the main thread.)
"""
import ctypes
import os
import select
import signal
import sys
import threading

from . import _callbacks, _capi

_lock = threading.Lock()
_forward_lock = threading.Lock()
_runs = []          # loop handles of the main thread's runs, innermost last
_pipe = None        # (read end, write end), made on first use
_previous = -1      # the wakeup fd set before the outermost run
_saved_hook = None  # sys.unraisablehook before the outermost run

_OUR_MODULES = ("runloop._callbacks", "runloop._capi", "runloop._handle", "runloop._signals",
                "runloop.fd", "runloop.ports", "runloop.thread", "runloop.insight")


def _start():
    global _pipe
    read_end, write_end = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)  # non-blocking: set_wakeup_fd, _drain
    _pipe = (read_end, write_end)
    threading.Thread(target=_helper, args=(read_end,), name="runloop-signals", daemon=True).start()


def _drain(read_end):
    """Reads what the pipe holds and passes it on to the previous wakeup fd;
    with _forward_lock held, so bytes that came during a run go to that
    run's previous fd.  Whether anything was read."""
    try:
        data = os.read(read_end, 512)
    except BlockingIOError:
        return False
    if _previous >= 0:
        try:
            os.write(_previous, data)
        except OSError:
            pass
    return bool(data)


def _helper(read_end):
    poller = select.poll()
    poller.register(read_end, select.POLLIN)
    while True:
        try:
            poller.poll()
            with _forward_lock:
                if not _drain(read_end):
                    continue
        except OSError:
            return
        with _lock:
            loop = _runs[-1] if _runs else None
        if loop is not None:
            _poke(loop)


def _poke(loop):
    mode, _ = _capi.call_quietly(_capi.RLRunLoopCopyCurrentMode, loop)
    if mode is not None:
        name = ctypes.c_char_p(mode)
        _capi.call_quietly(_capi.RLRunLoopPerformFunction, loop,
                           ctypes.cast(name, ctypes.c_void_p), check_signals, None)
        _capi.call_quietly(_capi.RLRunLoopWakeUp, loop)


def _run_handlers():
    ctypes.pythonapi.PyErr_CheckSignals()  # raises what a handler raised


@_capi.InfoCallBack
def check_signals(info):
    _callbacks._call(_run_handlers)


def _from_us(args):
    """Whether an unraisable exception came from one of this package's
    trampolines or finalizers: the object Python names (up to 3.12 a
    ctypes callback's function), or else the frame the exception started
    in (3.13 names a ctypes callback only in the message)."""
    if getattr(args.object, "__module__", None) in _OUR_MODULES:
        return True
    tb = args.exc_traceback
    return tb is not None and tb.tb_frame.f_globals.get("__name__") in _OUR_MODULES


def _hook(args):
    if (args.exc_value is not None and threading.current_thread() is threading.main_thread()
            and _from_us(args)):
        _callbacks._report(args.exc_value)
    elif _saved_hook is not None:
        _saved_hook(args)
    else:
        sys.__unraisablehook__(args)


class watching:
    """Around one RunLoop.run() call on `loop`: on the main thread, signals
    reach their Python handlers while it runs (see the module's doc)."""
    __slots__ = ("loop", "active")

    def __init__(self, loop):
        self.loop = loop
        self.active = False

    def __enter__(self):
        global _previous, _saved_hook
        if threading.current_thread() is not threading.main_thread():
            return self
        if not _runs:
            if _pipe is None:
                _start()
            try:
                _previous = signal.set_wakeup_fd(_pipe[1], warn_on_full_buffer=False)
            except (ValueError, OSError):  # not the main interpreter, ...
                return self
            _saved_hook = sys.unraisablehook
            sys.unraisablehook = _hook
        with _lock:
            _runs.append(self.loop)
        self.active = True
        return self

    def __exit__(self, *exc):
        global _previous, _saved_hook
        if not self.active:
            return False
        with _lock:
            _runs.pop()
            outermost = not _runs
        if outermost:
            current = signal.set_wakeup_fd(_previous)
            if current != _pipe[1]:  # replaced during the run: keep the newer one
                signal.set_wakeup_fd(current)
            with _forward_lock:  # what came during the run goes to its previous fd
                while _drain(_pipe[0]):
                    pass
                _previous = -1
            if sys.unraisablehook is _hook:
                sys.unraisablehook = _saved_hook
            _saved_hook = None
        return False
