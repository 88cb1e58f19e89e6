"""Several copies of the library in one process, each loaded by ctypes
(RTLD_LOCAL, as this package loads its own) from a file of its own, as
wheels that each bundle the library load theirs.  Each copy is a separate
engine: a handle of one copy given to another must be refused, every time
(kRLErrorStaleHandle), and leave the receiving copy's own objects alone.
Before each copy claimed a handle tag of its own, a copy whose lookup of
its own symbol through RTLD_DEFAULT found itself took the tag 0xA5 — which
every copy does when none is loaded globally, as here — and any other drew
its tag from its load address (one pair in 126 collided): all 41 copies
here shared 0xA5, and each took every other copy's timer handle for its own
timer (1,600 of 1,600 pairs: RLRunLoopTimerIsValid said yes,
RLRunLoopTimerInvalidate invalidated the receiver's own timer)."""
import ctypes
import shutil

import runloop
from runloop import _capi

COPIES = 40
STALE_HANDLE = 2

TimerCallBack = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
ErrorHandler = ctypes.CFUNCTYPE(None, ctypes.c_int32, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p)


class Copy:
    """One more copy of the library, loaded from `path`, with one timer."""

    def __init__(self, path, on_timer, on_error):
        self.lib = lib = ctypes.CDLL(str(path))  # RTLD_LOCAL
        for name, restype, argtypes in [
                ("RLAbsoluteTimeGetCurrent", ctypes.c_double, []),
                ("RLRunLoopTimerCreate", ctypes.c_void_p,
                 [ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_ulong, ctypes.c_long,
                  TimerCallBack, ctypes.c_void_p]),
                ("RLRunLoopTimerIsValid", ctypes.c_ubyte, [ctypes.c_void_p]),
                ("RLRunLoopTimerInvalidate", None, [ctypes.c_void_p]),
                ("RLGetRetainCount", ctypes.c_long, [ctypes.c_void_p]),
                ("RLRelease", None, [ctypes.c_void_p]),
                ("RLGetLastError", ctypes.c_int32, []),
                ("RLClearLastError", None, []),
                ("RLSetErrorHandler", None, [ErrorHandler, ctypes.c_void_p])]:
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
            setattr(self, name[2:], function)
        self.SetErrorHandler(on_error, None)
        context = (ctypes.c_byte * 40)()  # RLRunLoopTimerContext, zeros
        self.timer = self.RunLoopTimerCreate(None, self.AbsoluteTimeGetCurrent() + 3600, 0, 0, 0, on_timer,
                                             ctypes.addressof(context))
        assert self.timer

    def refuses(self, handle):
        """Whether this copy refuses `handle` in every call tried."""
        refused = 0
        for call in (self.RunLoopTimerIsValid, self.GetRetainCount, self.RunLoopTimerInvalidate):
            self.ClearLastError()
            answer = call(handle)
            refused += (answer is None or answer == 0) and self.GetLastError() == STALE_HANDLE
        return refused == 3


def test_every_copy_refuses_every_other_copys_handles(tmp_path):
    on_timer = TimerCallBack(lambda timer, info: None)
    on_error = ErrorHandler(lambda code, function, message, info: None)  # silenced: refusals expected
    copies = []
    for i in range(COPIES):
        path = tmp_path / f"librunloop.copy{i}.so"
        shutil.copyfile(_capi.lib._name, path)  # another file: another copy
        copies.append(Copy(path, on_timer, on_error))
    own = runloop.Timer(lambda t: None, delay=3600)  # the package's own copy's

    handles = [c.timer for c in copies] + [own._handle]
    assert len({h >> 56 for h in handles}) == len(handles), "two copies share a handle tag"
    accepted = [(i, j) for j, receiver in enumerate(copies) for i, handle in enumerate(handles)
                if i != j and not receiver.refuses(handle)]
    assert accepted == []
    assert all(c.RunLoopTimerIsValid(c.timer) and c.GetRetainCount(c.timer) == 1 for c in copies)
    assert own.is_valid

    for c in copies:
        c.RunLoopTimerInvalidate(c.timer)
        c.Release(c.timer)
        c.SetErrorHandler(ErrorHandler(), None)
    own.invalidate()
