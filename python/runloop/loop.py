"""RunLoop: a thread's run loop."""
import ctypes
import threading
from typing import Callable, List, Optional, Sequence, Union

from . import _callbacks, _capi, _signals, insight
from ._handle import Handle, handle_of
from .constants import DEFAULT_MODE, RunResult
from .items import Observer, Source, Timer

Mode = Union[str, bytes]

_FOREVER = 1.0e10


class RunLoop(Handle):
    """A thread's run loop.  Any thread may add or remove items, stop it,
    wake it up or queue work on it; only its own thread runs it."""
    __slots__ = ()

    @classmethod
    def current(cls) -> "RunLoop":
        """The calling thread's loop (created on first use)."""
        return cls._borrow(_capi.RLRunLoopGetCurrent())

    @classmethod
    def main(cls) -> "RunLoop":
        """The main thread's loop, from any thread."""
        return cls._borrow(_capi.RLRunLoopGetMain())

    # ---- running ---------------------------------------------------------

    def run(self, mode: Mode = DEFAULT_MODE, seconds: float = _FOREVER,
            return_after_source_handled: bool = False) -> RunResult:
        """Runs this loop (which must be the calling thread's) in `mode` for
        at most `seconds` and returns a RunResult.  Callbacks run inside
        this call, on this thread.  If one raises, the run stops and the
        exception is raised here.

        On the main thread, signals reach their Python handlers while the
        loop sleeps, as with time.sleep(): Ctrl-C raises KeyboardInterrupt
        from run() (the run is stopped), and a handler that returns lets the
        run go on.  Other threads never run Python signal handlers."""
        if _capi.RLRunLoopGetCurrent() != self._handle:
            raise RuntimeError("RunLoop.run: only the loop's own thread can run it "
                               f"(called from {threading.current_thread().name})")
        mode_name = _capi.mode_bytes(mode)
        with _callbacks.waiting(), _signals.watching(self._handle):
            result = _capi.RLRunLoopRunInMode(mode_name, float(seconds),
                                              1 if return_after_source_handled else 0)
        return RunResult(result)

    def stop(self) -> None:
        """Makes the innermost running run() of this loop return STOPPED."""
        _capi.RLRunLoopStop(self._handle)

    def wake_up(self) -> None:
        """Wakes the loop if it sleeps; otherwise its next sleep returns at once."""
        _capi.RLRunLoopWakeUp(self._handle)

    @property
    def is_waiting(self) -> bool:
        """Whether the loop is asleep waiting for an event."""
        return bool(_capi.RLRunLoopIsWaiting(self._handle))

    def perform(self, function: Callable[[], object],
                mode: Union[Mode, Sequence[Mode]] = DEFAULT_MODE, wake: bool = True) -> None:
        """Queues function() to run once on the loop's thread, the next time
        it runs a pass in `mode` (a name, COMMON_MODES, or a list of names),
        then wakes the loop unless wake=False.

        The function (and what it references) is released after it ran, or
        when the loop's thread exits with it still queued (the library drops
        it then).  A function queued in a mode the loop never runs is kept
        as long as the loop lives (the main thread's loop: for ever).
        Raises LoopGoneError if the loop's thread has already exited."""
        if not callable(function):
            raise TypeError("RunLoop.perform: function must be callable")
        if isinstance(mode, (list, tuple)):
            names = (ctypes.c_char_p * len(mode))(*[_capi.mode_bytes(m) for m in mode])
            modes = array = _capi.RLArrayCreateWithModes(names, len(mode))
        else:
            array = None
            mode_name = ctypes.c_char_p(_capi.mode_bytes(mode))
            modes = ctypes.cast(mode_name, ctypes.c_void_p)
        try:
            token = _callbacks.register_perform(function, self._handle)
            try:
                _capi.RLRunLoopPerformFunction(self._handle, modes, _callbacks.perform_once, token)
            except BaseException:
                _callbacks.forget_perform(token)
                raise
        finally:
            if array:
                _capi.RLRelease(array)
        if wake:
            self.wake_up()

    # ---- modes -----------------------------------------------------------

    @property
    def current_mode(self) -> Optional[str]:
        """The mode of the innermost run, or None when not running."""
        mode = _capi.RLRunLoopCopyCurrentMode(self._handle)
        return mode.decode("utf-8") if mode is not None else None

    @property
    def all_modes(self) -> List[str]:
        """The names of every mode the loop has."""
        array = _capi.RLRunLoopCopyAllModes(self._handle)
        try:
            return [ctypes.string_at(_capi.RLArrayGetValueAtIndex(array, i)).decode("utf-8")
                    for i in range(_capi.RLArrayGetCount(array))]
        finally:
            _capi.RLRelease(array)

    def add_common_mode(self, mode: Mode) -> None:
        _capi.RLRunLoopAddCommonMode(self._handle, _capi.mode_bytes(mode))

    def next_timer_fire_date(self, mode: Mode = DEFAULT_MODE) -> float:
        """Earliest fire date (absolute time) of the mode's timers, 0 if none."""
        return _capi.RLRunLoopGetNextTimerFireDate(self._handle, _capi.mode_bytes(mode))

    # ---- items -----------------------------------------------------------
    # The loop keeps an added item (and its callable) until it is removed or
    # invalidated, whether or not Python still holds the item.  Adding to
    # the loop of an exited thread raises LoopGoneError; adding a timer or
    # observer that belongs to another loop raises RunLoopError (WRONG_LOOP).

    def add_timer(self, timer: Timer, mode: Mode = DEFAULT_MODE) -> None:
        _capi.RLRunLoopAddTimer(self._handle, handle_of(timer, Timer, "RunLoop.add_timer"),
                                _capi.mode_bytes(mode))

    def remove_timer(self, timer: Timer, mode: Mode = DEFAULT_MODE) -> None:
        _capi.RLRunLoopRemoveTimer(self._handle, handle_of(timer, Timer, "RunLoop.remove_timer"),
                                   _capi.mode_bytes(mode))

    def contains_timer(self, timer: Timer, mode: Mode = DEFAULT_MODE) -> bool:
        return bool(_capi.RLRunLoopContainsTimer(
            self._handle, handle_of(timer, Timer, "RunLoop.contains_timer"), _capi.mode_bytes(mode)))

    def add_source(self, source: Source, mode: Mode = DEFAULT_MODE) -> None:
        handle = handle_of(source, Source, "RunLoop.add_source")
        with _callbacks.waiting():  # the source's schedule callback runs here
            _capi.RLRunLoopAddSource(self._handle, handle, _capi.mode_bytes(mode))

    def remove_source(self, source: Source, mode: Mode = DEFAULT_MODE) -> None:
        handle = handle_of(source, Source, "RunLoop.remove_source")
        with _callbacks.waiting():  # the source's cancel callback runs here
            _capi.RLRunLoopRemoveSource(self._handle, handle, _capi.mode_bytes(mode))

    def contains_source(self, source: Source, mode: Mode = DEFAULT_MODE) -> bool:
        return bool(_capi.RLRunLoopContainsSource(
            self._handle, handle_of(source, Source, "RunLoop.contains_source"), _capi.mode_bytes(mode)))

    def add_observer(self, observer: Observer, mode: Mode = DEFAULT_MODE) -> None:
        _capi.RLRunLoopAddObserver(self._handle, handle_of(observer, Observer, "RunLoop.add_observer"),
                                   _capi.mode_bytes(mode))

    def remove_observer(self, observer: Observer, mode: Mode = DEFAULT_MODE) -> None:
        _capi.RLRunLoopRemoveObserver(
            self._handle, handle_of(observer, Observer, "RunLoop.remove_observer"), _capi.mode_bytes(mode))

    def contains_observer(self, observer: Observer, mode: Mode = DEFAULT_MODE) -> bool:
        return bool(_capi.RLRunLoopContainsObserver(
            self._handle, handle_of(observer, Observer, "RunLoop.contains_observer"), _capi.mode_bytes(mode)))

    # ---- insight (insight.h) ----------------------------------------------

    def set_stall_handler(self, handler: Optional[Callable[["RunLoop", "insight.Stall"], object]],
                          threshold: float = 0.1) -> None:
        """Calls handler(loop, stall) when this loop stays in one step of a
        pass, or in one callout, longer than `threshold` seconds (once per
        stall; sleeping is never a stall).  The handler runs on the
        library's watchdog thread, not on the (stuck) loop's thread; an
        exception it raises goes to sys.unraisablehook.  A new call
        replaces the handler; None (or threshold <= 0) turns monitoring
        off.  A callout stuck in Python code holding the GIL delays the
        handler until the GIL is released (at most the switch interval)."""
        insight.set_stall_handler(self._handle, handler, threshold)

    def statistics(self) -> "insight.Statistics":
        """The loop's counters (passes, sleeps, wake-ups by cause, timers
        fired and late, a lateness histogram, performs, the longest
        callout...).  Any thread."""
        return insight.statistics(self._handle)

    def reset_statistics(self) -> None:
        insight.reset_statistics(self._handle)

    def start_trace(self, path) -> None:
        """Records the loop's steps and callouts as Chrome trace-event JSON
        at `path` (open it in https://ui.perfetto.dev) until stop_trace()."""
        insight.start_trace(self._handle, path)

    def stop_trace(self) -> bool:
        """Stops recording and closes the file; whether it was recording."""
        return insight.stop_trace(self._handle)

    def __repr__(self):
        return f"<RunLoop {self._handle:#x}>"
