"""Timer, Source and Observer: items a RunLoop runs."""
import weakref
from typing import Callable, Optional

from . import _callbacks, _capi
from ._handle import Handle, create
from .constants import Activity


class _State:
    """What a C callback needs (kept in _callbacks under the info token):
    the callable, and the Python wrapper if Python still holds it."""
    __slots__ = ("callback", "schedule", "cancel", "_cls", "_wrapper")

    def __init__(self, callback, cls, schedule=None, cancel=None):
        self.callback, self.schedule, self.cancel = callback, schedule, cancel
        self._cls, self._wrapper = cls, None

    def wrapper(self, handle):
        item = self._wrapper() if self._wrapper is not None else None
        return item if item is not None else self._cls._borrow(handle)


def _check_callable(owner, name, value, optional=False):
    if value is None and optional:
        return
    if not callable(value):
        raise TypeError(f"{owner}: {name} must be callable")


def _item_context(token):
    return _capi.ItemContext(0, token, _callbacks.retain_info, _callbacks.release_info, None)


def _create(cls, self, state, token, function, *args):
    """Creates the C object, which then holds the token (retain), and
    finishes construction; on failure the token is forgotten."""
    try:
        handle = create(cls.__name__, function, *args)
    except BaseException:
        _callbacks.forget(token)
        raise
    Handle.__init__(self, handle)
    state._wrapper = weakref.ref(self)


class Timer(Handle):
    """Calls callback(timer) on the loop's thread at `fire_date` (absolute
    time; default: now + `delay`), then every `interval` seconds if
    interval > 0.  A one-shot timer invalidates itself after firing."""
    __slots__ = ()

    def __init__(self, callback: Callable[["Timer"], object], interval: float = 0.0, *,
                 delay: float = 0.0, fire_date: Optional[float] = None, order: int = 0,
                 tolerance: Optional[float] = None):
        _check_callable("Timer", "callback", callback)
        if fire_date is None:
            fire_date = _capi.RLAbsoluteTimeGetCurrent() + delay
        state = _State(callback, Timer)
        token = _callbacks.register(state)
        context = _item_context(token)
        _create(Timer, self, state, token, _capi.RLRunLoopTimerCreate, None, float(fire_date),
                float(interval), 0, order, _callbacks.timer_fired, context)
        if tolerance is not None:
            self.tolerance = tolerance

    def invalidate(self) -> None:
        """Removes the timer from its loop; its callable is released."""
        _capi.RLRunLoopTimerInvalidate(self._handle)

    @property
    def is_valid(self) -> bool:
        return bool(_capi.RLRunLoopTimerIsValid(self._handle))

    @property
    def next_fire_date(self) -> float:
        return _capi.RLRunLoopTimerGetNextFireDate(self._handle)

    @next_fire_date.setter
    def next_fire_date(self, fire_date):
        _capi.RLRunLoopTimerSetNextFireDate(self._handle, float(fire_date))

    @property
    def interval(self) -> float:
        return _capi.RLRunLoopTimerGetInterval(self._handle)

    @property
    def repeats(self) -> bool:
        return bool(_capi.RLRunLoopTimerDoesRepeat(self._handle))

    @property
    def order(self) -> int:
        return _capi.RLRunLoopTimerGetOrder(self._handle)

    @property
    def tolerance(self) -> float:
        return _capi.RLRunLoopTimerGetTolerance(self._handle)

    @tolerance.setter
    def tolerance(self, seconds):
        _capi.RLRunLoopTimerSetTolerance(self._handle, float(seconds))


class Source(Handle):
    """A version-0 source: after signal(), the next pass of a loop running
    a mode that holds it calls perform() on the loop's thread.  Optional
    schedule(loop, mode) / cancel(loop, mode) run on the thread adding /
    removing it.  signal() does not wake the loop: call loop.wake_up()."""
    __slots__ = ()

    def __init__(self, perform: Callable[[], object], *, order: int = 0,
                 schedule: Optional[Callable[..., object]] = None,
                 cancel: Optional[Callable[..., object]] = None):
        _check_callable("Source", "perform", perform)
        _check_callable("Source", "schedule", schedule, optional=True)
        _check_callable("Source", "cancel", cancel, optional=True)
        state = _State(perform, Source, schedule, cancel)
        token = _callbacks.register(state)
        context = _capi.SourceContext(0, token, _callbacks.retain_info, _callbacks.release_info,
                                      None, None, None, _callbacks.source_schedule,
                                      _callbacks.source_cancel, _callbacks.source_perform)
        _create(Source, self, state, token, _capi.RLRunLoopSourceCreate, None, order, context)

    def signal(self) -> None:
        _capi.RLRunLoopSourceSignal(self._handle)

    def signal_and_wake_up(self) -> None:
        """signal() and a wake-up of every loop holding the source, in one
        call (RLRunLoopSourceSignalAndWakeUp)."""
        _capi.RLRunLoopSourceSignalAndWakeUp(self._handle)

    @property
    def is_signalled(self) -> bool:
        return bool(_capi.RLRunLoopSourceIsSignalled(self._handle))

    def invalidate(self) -> None:
        """Removes the source from every loop and mode (cancel runs for each)."""
        with _callbacks.waiting():
            _capi.RLRunLoopSourceInvalidate(self._handle)

    @property
    def is_valid(self) -> bool:
        return bool(_capi.RLRunLoopSourceIsValid(self._handle))

    @property
    def order(self) -> int:
        return _capi.RLRunLoopSourceGetOrder(self._handle)


class Observer(Handle):
    """Calls callback(observer, activity) on the loop's thread at the
    activities in `activities` (an Activity mask).  Within one activity,
    observers run by `order`, lowest first."""
    __slots__ = ()

    def __init__(self, callback: Callable[["Observer", Activity], object],
                 activities: Activity = Activity.ALL, *, repeats: bool = True, order: int = 0):
        _check_callable("Observer", "callback", callback)
        state = _State(callback, Observer)
        token = _callbacks.register(state)
        context = _item_context(token)
        _create(Observer, self, state, token, _capi.RLRunLoopObserverCreate, None, int(activities),
                1 if repeats else 0, order, _callbacks.observer_called, context)

    def invalidate(self) -> None:
        """Removes the observer from its loop; its callable is released."""
        _capi.RLRunLoopObserverInvalidate(self._handle)

    @property
    def is_valid(self) -> bool:
        return bool(_capi.RLRunLoopObserverIsValid(self._handle))

    @property
    def activities(self) -> Activity:
        return Activity(_capi.RLRunLoopObserverGetActivities(self._handle))

    @property
    def repeats(self) -> bool:
        return bool(_capi.RLRunLoopObserverDoesRepeat(self._handle))

    @property
    def order(self) -> int:
        return _capi.RLRunLoopObserverGetOrder(self._handle)
