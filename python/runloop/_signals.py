"""Ctrl-C and Python signal handlers while the main thread runs a loop.

CPython runs a signal's Python handler in the main thread, between
bytecodes; a run of the loop is one long C call (it sleeps in epoll_wait,
and the library retries on EINTR), so without help a handler would wait
for the next callback and Ctrl-C would do nothing.  While RunLoop.run()
runs on the main thread:

- the process's wake-up descriptor (signal.set_wakeup_fd) is a pipe that a
  daemon thread reads; for each signal it queues an empty function on the
  main loop, in the mode it runs, and wakes it: that callback is Python
  code on the main thread, so the pending handlers run there.  (Installed
  once, and only if nobody else, such as asyncio, owns the descriptor.)
- SIGINT's default handler, which would raise KeyboardInterrupt inside a
  callback (where ctypes could swallow it if it fired on entry), is
  replaced by one that records the interrupt and stops the main loop;
  run() then raises KeyboardInterrupt itself.  A handler the program
  installed is left alone.
"""
import os
import signal
import threading

from . import _capi

_lock = threading.Lock()
# RLRunLoopCopyCurrentMode returning the library's pointer (the shared
# prototype returns a copy of the bytes).
_current_mode = _capi.lib["RLRunLoopCopyCurrentMode"]
_current_mode.restype, _current_mode.argtypes = _capi.c_void_p, [_capi.c_void_p]
_reader = None          # the daemon thread, once installed
_interrupted = False


@_capi.InfoCallBack
def _poke(info):
    """Runs on the main loop's thread: its entry is where pending Python
    signal handlers run."""


def _pump(read_fd):
    while True:
        try:
            data = os.read(read_fd, 512)
        except InterruptedError:
            continue
        except OSError:
            return
        if not data:
            return
        main = _capi.RLRunLoopGetMain()
        mode = _current_mode(main)   # interned by the library: valid for ever
        if not mode:
            continue   # not running: the handlers run when Python next runs
        _capi.lib.RLRunLoopPerformFunction(main, mode, _poke, None)
        _capi.RLRunLoopWakeUp(main)


def _install_reader():
    global _reader
    if _reader is not None:
        return
    read_fd, write_fd = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    os.set_blocking(read_fd, True)
    try:
        previous = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    except ValueError:   # not the main thread, or not the main interpreter
        os.close(read_fd)
        os.close(write_fd)
        return
    if previous != -1:
        # Someone else (asyncio, ...) reads the wake-up descriptor: keep theirs.
        signal.set_wakeup_fd(previous)
        os.close(read_fd)
        os.close(write_fd)
        _reader = False
        return
    _reader = threading.Thread(target=_pump, args=(read_fd,), name="runloop-signals", daemon=True)
    _reader.start()


def _on_sigint(signum, frame):
    global _interrupted
    _interrupted = True
    _capi.RLRunLoopStop(_capi.RLRunLoopGetMain())


class watching:
    """Around a run of the main thread's loop (see the module's comment)."""

    def __enter__(self):
        self.replaced = False
        if threading.current_thread() is not threading.main_thread():
            return self
        with _lock:
            _install_reader()
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _on_sigint)
            self.replaced = True
        return self

    def __exit__(self, kind, value, traceback):
        global _interrupted
        if self.replaced:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        # A nested run raises it too: from the callback it runs in, the
        # exception stops the outer run, which raises it in turn.
        if _interrupted and kind is None and threading.current_thread() is threading.main_thread():
            _interrupted = False
            raise KeyboardInterrupt
        return False
