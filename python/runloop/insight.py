"""Seeing what a loop does: the stall monitor, statistics and traces
(insight.h).  Reached through RunLoop.set_stall_handler(),
RunLoop.statistics(), RunLoop.reset_statistics(), RunLoop.start_trace()
and RunLoop.stop_trace()."""
import atexit
import ctypes
import enum
import threading
from dataclasses import dataclass, fields
from typing import Callable, Optional, Tuple

from . import _callbacks, _capi


class Phase(enum.IntEnum):
    """The step of a pass a loop is in (kRLRunLoopPhase...)."""
    IDLE = 0
    ENTRY = 1
    BEFORE_TIMERS = 2
    BEFORE_SOURCES = 3
    BLOCKS = 4
    SOURCES = 5
    BEFORE_WAITING = 6
    WAITING = 7
    AFTER_WAITING = 8
    TIMERS = 9
    DESCRIPTORS = 10
    EXIT = 11


class CalloutKind(enum.IntEnum):
    """The kind of user code a loop is calling (kRLRunLoopCallout...)."""
    NONE = 0
    OBSERVER = 1
    TIMER = 2
    SOURCE = 3
    DESCRIPTOR = 4
    BLOCK = 5


def _enum(cls, value):
    try:
        return cls(value)
    except ValueError:
        return value


@dataclass(frozen=True)
class Stall:
    """What the stall monitor saw: the loop stuck in `phase` (inside a
    `callout` of that kind, if any) for `elapsed` seconds, running `mode`.
    `item` identifies the observer, timer or source being called (its
    handle value, for identification only), or None."""
    phase: Phase
    callout: CalloutKind
    item: Optional[int]
    mode: Optional[str]
    elapsed: float


@dataclass(frozen=True)
class Statistics:
    """A loop's counters since it was created or last reset (see
    RLRunLoopStatistics in insight.h for each one's exact meaning)."""
    passes: int
    sleeps: int
    wake_ups_by_descriptor: int
    wake_ups_by_wake_up: int
    wake_ups_by_timer: int
    wake_ups_by_timeout: int
    timers_fired: int
    timers_late: int
    timer_slots_skipped: int
    lateness_histogram: Tuple[int, ...]  # bucket 0: < 1 us late; i: [2^(i-1), 2^i) us; 23: >= ~4 s
    version0_performed: int
    version1_performed: int
    observers_called: int
    blocks_run: int
    longest_callout_ns: int
    longest_callout_kind: CalloutKind
    busy_yields: int


_C_NAMES = {"wake_ups_by_descriptor": "wakeUpsByDescriptor", "wake_ups_by_wake_up": "wakeUpsByWakeUp",
            "wake_ups_by_timer": "wakeUpsByTimer", "wake_ups_by_timeout": "wakeUpsByTimeout",
            "timers_fired": "timersFired", "timers_late": "timersLate",
            "timer_slots_skipped": "timerSlotsSkipped", "lateness_histogram": "latenessHistogram",
            "version0_performed": "version0Performed", "version1_performed": "version1Performed",
            "observers_called": "observersCalled", "blocks_run": "blocksRun",
            "longest_callout_ns": "longestCalloutNanoseconds", "longest_callout_kind": "longestCalloutKind",
            "busy_yields": "busyYields"}


def statistics(loop) -> Statistics:
    raw = _capi.Statistics()
    raw.size = ctypes.sizeof(raw)  # the library writes no field beyond what we know
    _capi.RLRunLoopGetStatistics(loop, ctypes.byref(raw))
    values = {}
    for field in fields(Statistics):
        value = getattr(raw, _C_NAMES.get(field.name, field.name))
        if field.name == "lateness_histogram":
            value = tuple(value)
        elif field.name == "longest_callout_kind":
            value = _enum(CalloutKind, value)
        values[field.name] = value
    return Statistics(**values)


def reset_statistics(loop) -> None:
    _capi.RLRunLoopResetStatistics(loop)


# ---- the stall monitor -------------------------------------------------------

_lock = threading.Lock()
_handlers = {}  # loop handle -> token of its handler's state


class _StallState:
    __slots__ = ("callback",)

    def __init__(self, callback):
        self.callback = callback


@_capi.StallHandler
def _stalled(handle, stall, info):
    state = _callbacks._state(info)
    if state is None:
        return
    s = stall.contents
    report = Stall(_enum(Phase, s.phase), _enum(CalloutKind, s.callout), s.item or None,
                   None if s.mode is None else s.mode.decode("utf-8", "replace"), s.elapsed)
    from .loop import RunLoop
    _callbacks._call(state.callback, RunLoop._borrow(handle), report)


def set_stall_handler(loop, handler: Optional[Callable], threshold: float) -> None:
    if handler is not None and not callable(handler):
        raise TypeError("RunLoop.set_stall_handler: handler must be callable or None")
    threshold = float(threshold)
    if handler is None or not threshold > 0:
        token = None
        _capi.RLRunLoopSetStallHandler(loop, 0.0, ctypes.cast(None, _capi.StallHandler), None)
    else:
        _callbacks._watch(loop)  # to forget the handler when the loop is torn down
        token = _callbacks.register(_StallState(handler))
        try:
            _capi.RLRunLoopSetStallHandler(loop, threshold, _stalled, token)
        except BaseException:
            _callbacks.forget(token)
            raise
    # The library guarantees the previous handler is no longer running.
    with _lock:
        previous = _handlers.pop(loop, None)
        if token is not None:
            _handlers[loop] = token
    if previous is not None:
        _callbacks.forget(previous)


def _loop_gone(loop):
    with _lock:
        token = _handlers.pop(loop, None)
    if token is not None:
        _capi.call_quietly(_capi.RLRunLoopSetStallHandler, loop, 0.0,
                           ctypes.cast(None, _capi.StallHandler), None)
        _callbacks.forget(token)


_callbacks._loop_gone_hooks.append(_loop_gone)


@atexit.register
def _stop_monitoring():
    # The watchdog thread calls into Python: stop it before finalization.
    for loop in list(_handlers):
        _loop_gone(loop)


# ---- traces ------------------------------------------------------------------

def start_trace(loop, path) -> None:
    import os
    encoded = os.fsencode(path)
    if b"\0" in encoded:
        raise ValueError("RunLoop.start_trace: path contains NUL")
    if not _capi.RLRunLoopTraceStart(loop, encoded):
        raise RuntimeError("RunLoop.start_trace: the library did not start the trace")


def stop_trace(loop) -> bool:
    return bool(_capi.RLRunLoopTraceStop(loop))


def phase_name(phase: int) -> str:
    """The library's short English name of a phase ("BeforeWaiting")."""
    return _capi.RLRunLoopPhaseGetName(int(phase)).decode("ascii")


def callout_kind_name(kind: int) -> str:
    """The library's short English name of a callout kind ("timer")."""
    return _capi.RLRunLoopCalloutKindGetName(int(kind)).decode("ascii")
