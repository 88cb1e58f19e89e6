"""Signal: a Unix signal caught and delivered on a loop (RLSignal,
runloop/watch.h)."""
from typing import Callable

from . import _callbacks, _capi
from ._handle import Handle
from .items import Source, _create, _item_context, _State, _check_callable


class Signal(Handle):
    """Catches signal `signo` (an int or a signal.Signals) from creation
    until invalidate(), and calls callback(signo, count) on the thread of
    a loop running a mode that holds its source(): `count` is how many
    times the signal arrived since the previous callback.

    While it lives, the library's handler is the signal's disposition (the
    Python handler set with signal.signal() does not run); the disposition
    it replaced comes back when the signal's last Signal is invalidated.
    Nothing about thread signal masks is required.  Several Signals of one
    signal (in loops of several threads) each count every arrival.

    Signals that cannot be caught (0, SIGKILL, SIGSTOP, SIGSEGV, SIGBUS,
    SIGFPE, SIGILL, the C library's reserved ones, out of range):
    ValueError.
    """
    __slots__ = ()

    def __init__(self, signo: int, callback: Callable[[int, int], object]):
        _check_callable("Signal", "callback", callback)
        state = _State(callback, Signal)
        token = _callbacks.register(state)
        _create(Signal, self, state, token, _capi.RLSignalCreate, None, int(signo),
                _callbacks.signal_arrived, _item_context(token))

    @property
    def signo(self) -> int:
        return _capi.RLSignalGetSignal(self._live)

    def source(self, order: int = 0) -> Source:
        """The run-loop source delivering the callbacks: add it to a loop's
        modes.  The same source each time while it lives.  ValueError once
        invalid."""
        handle = _capi.RLSignalCreateRunLoopSource(None, self._live, order)
        if not handle:
            raise ValueError("Signal.source: the signal watch is invalid")
        return Source._adopt(handle)

    def invalidate(self) -> None:
        """Stops catching, removes its source from every loop and releases
        the callback.  Idempotent; safe from inside its own callback."""
        with _callbacks.waiting():
            _capi.RLSignalInvalidate(self._live)

    @property
    def is_valid(self) -> bool:
        return bool(_capi.RLSignalIsValid(self._live))

    def __repr__(self):
        return f"<Signal {self._handle or 0:#x}>"
