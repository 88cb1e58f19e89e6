"""RunLoop: a thread's run loop."""
import ctypes
import threading

from . import _callbacks, _capi
from ._handle import Handle
from .constants import DEFAULT_MODE, RunResult

_FOREVER = 1.0e10


class RunLoop(Handle):
    """A thread's run loop.  Any thread may add or remove items, stop it,
    wake it up or queue work on it; only its own thread runs it."""
    __slots__ = ()

    @classmethod
    def current(cls):
        """The calling thread's loop (created on first use)."""
        return cls._borrow(_capi.RLRunLoopGetCurrent())

    @classmethod
    def main(cls):
        """The main thread's loop, from any thread."""
        return cls._borrow(_capi.RLRunLoopGetMain())

    # ---- running ---------------------------------------------------------

    def run(self, mode=DEFAULT_MODE, seconds=_FOREVER, return_after_source_handled=False):
        """Runs this loop (which must be the calling thread's) in `mode` for
        at most `seconds` and returns a RunResult.  Callbacks run inside
        this call, on this thread.  If one raises, the run stops and the
        exception is raised here."""
        if _capi.RLRunLoopGetCurrent() != self._handle:
            raise RuntimeError("RunLoop.run: only the loop's own thread can run it "
                               f"(called from {threading.current_thread().name})")
        with _callbacks.waiting():
            result = _capi.RLRunLoopRunInMode(_capi.mode_bytes(mode), float(seconds),
                                              1 if return_after_source_handled else 0)
        return RunResult(result)

    def stop(self):
        """Makes the innermost running run() of this loop return STOPPED."""
        _capi.RLRunLoopStop(self._handle)

    def wake_up(self):
        """Wakes the loop if it sleeps; otherwise its next sleep returns at once."""
        _capi.RLRunLoopWakeUp(self._handle)

    @property
    def is_waiting(self):
        """Whether the loop is asleep waiting for an event."""
        return bool(_capi.RLRunLoopIsWaiting(self._handle))

    def perform(self, function, mode=DEFAULT_MODE, wake=True):
        """Queues function() to run once on the loop's thread, the next time
        it runs a pass in `mode` (a name, COMMON_MODES, or a list of names),
        then wakes the loop unless wake=False."""
        if not callable(function):
            raise TypeError("RunLoop.perform: function must be callable")
        token = _callbacks.register(function, references=1)
        if isinstance(mode, (list, tuple)):
            names = (ctypes.c_char_p * len(mode))(*[_capi.mode_bytes(m) for m in mode])
            array = _capi.RLArrayCreateWithModes(names, len(mode))
            _capi.RLRunLoopPerformFunction(self._handle, array, _callbacks.perform_once, token)
            _capi.RLRelease(array)
        else:
            mode_name = ctypes.c_char_p(_capi.mode_bytes(mode))
            _capi.RLRunLoopPerformFunction(self._handle, ctypes.cast(mode_name, ctypes.c_void_p),
                                           _callbacks.perform_once, token)
        if wake:
            self.wake_up()

    # ---- modes -----------------------------------------------------------

    @property
    def current_mode(self):
        """The mode of the innermost run, or None when not running."""
        mode = _capi.RLRunLoopCopyCurrentMode(self._handle)
        return mode.decode("utf-8") if mode is not None else None

    @property
    def all_modes(self):
        """The names of every mode the loop has."""
        array = _capi.RLRunLoopCopyAllModes(self._handle)
        try:
            return [ctypes.string_at(_capi.RLArrayGetValueAtIndex(array, i)).decode("utf-8")
                    for i in range(_capi.RLArrayGetCount(array))]
        finally:
            _capi.RLRelease(array)

    def add_common_mode(self, mode):
        _capi.RLRunLoopAddCommonMode(self._handle, _capi.mode_bytes(mode))

    def next_timer_fire_date(self, mode=DEFAULT_MODE):
        """Earliest fire date (absolute time) of the mode's timers, 0 if none."""
        return _capi.RLRunLoopGetNextTimerFireDate(self._handle, _capi.mode_bytes(mode))

    # ---- items -----------------------------------------------------------
    # The loop keeps an added item (and its callable) until it is removed or
    # invalidated, whether or not Python still holds the item.

    def add_timer(self, timer, mode=DEFAULT_MODE):
        _capi.RLRunLoopAddTimer(self._handle, timer._handle, _capi.mode_bytes(mode))

    def remove_timer(self, timer, mode=DEFAULT_MODE):
        _capi.RLRunLoopRemoveTimer(self._handle, timer._handle, _capi.mode_bytes(mode))

    def contains_timer(self, timer, mode=DEFAULT_MODE):
        return bool(_capi.RLRunLoopContainsTimer(self._handle, timer._handle, _capi.mode_bytes(mode)))

    def add_source(self, source, mode=DEFAULT_MODE):
        with _callbacks.waiting():  # the source's schedule callback runs here
            _capi.RLRunLoopAddSource(self._handle, source._handle, _capi.mode_bytes(mode))

    def remove_source(self, source, mode=DEFAULT_MODE):
        with _callbacks.waiting():  # the source's cancel callback runs here
            _capi.RLRunLoopRemoveSource(self._handle, source._handle, _capi.mode_bytes(mode))

    def contains_source(self, source, mode=DEFAULT_MODE):
        return bool(_capi.RLRunLoopContainsSource(self._handle, source._handle, _capi.mode_bytes(mode)))

    def add_observer(self, observer, mode=DEFAULT_MODE):
        _capi.RLRunLoopAddObserver(self._handle, observer._handle, _capi.mode_bytes(mode))

    def remove_observer(self, observer, mode=DEFAULT_MODE):
        _capi.RLRunLoopRemoveObserver(self._handle, observer._handle, _capi.mode_bytes(mode))

    def contains_observer(self, observer, mode=DEFAULT_MODE):
        return bool(_capi.RLRunLoopContainsObserver(self._handle, observer._handle, _capi.mode_bytes(mode)))

    def __repr__(self):
        return f"<RunLoop {self._handle:#x}>"
