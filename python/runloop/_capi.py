"""The C library, loaded with ctypes, and the prototypes of its functions.

Every function is wrapped so that an error the library reports during the
call (its error channel: see errors.py) is raised by the call as a
RunLoopError; `raw` holds the bare ctypes functions.

The library is found, in this order, at:
  1. the path in the RUNLOOP_LIBRARY environment variable (tests use the
     freshly built librunloop.so.0 this way);
  2. the copy a wheel carries, runloop/lib/librunloop.so.0 beside this file;
  3. "librunloop.so.0" through the dynamic loader's search path
     (LD_LIBRARY_PATH, ld.so.cache, ...);
  4. whatever ctypes.util.find_library("runloop") finds.
A copy loaded here is separate from one the process links (say, a C
extension's): each has its own loops and handles (see runloop.h, Linking).
"""
import atexit
import ctypes
import ctypes.util
import os
import sys
import threading
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int, c_int32,
                    c_long, c_ubyte, c_uint32, c_uint64, c_ulong, c_void_p)

from .errors import RunLoopError, error_for

RLBoolean = c_ubyte          # unsigned char, 0 or 1
RLIndex = c_long
RLOptionFlags = c_ulong
RLTypeID = c_ulong
RLHashCode = c_ulong
RLTimeInterval = c_double
RLAbsoluteTime = c_double
Handle = c_void_p            # RLRunLoopRef, RLRunLoopTimerRef, ...

# Callback types.  The module-level instances in _callbacks.py are the only
# ones ever handed to C, so none can be collected while C holds it.
RetainCallBack = CFUNCTYPE(c_void_p, c_void_p)
ReleaseCallBack = CFUNCTYPE(None, c_void_p)
InfoCallBack = CFUNCTYPE(None, c_void_p)                       # perform(info)
ScheduleCallBack = CFUNCTYPE(None, c_void_p, c_void_p, c_char_p)  # (info, rl, mode)
TimerCallBack = CFUNCTYPE(None, c_void_p, c_void_p)            # (timer, info)
ObserverCallBack = CFUNCTYPE(None, c_void_p, RLOptionFlags, c_void_p)
FileDescriptorCallBack = CFUNCTYPE(None, c_void_p, RLOptionFlags, c_void_p)  # (f, types, info)
SignalCallBack = CFUNCTYPE(None, c_void_p, c_int32, RLIndex, c_void_p)  # (s, signo, count, info)
# (local, msgid, data, info) -> RLDataRef the library releases (or NULL)
MessagePortCallBack = CFUNCTYPE(c_void_p, c_void_p, c_int32, c_void_p, c_void_p)
MessagePortInvalidationCallBack = CFUNCTYPE(None, c_void_p, c_void_p)  # (port, info)
ErrorHandler = CFUNCTYPE(None, c_int32, c_char_p, c_char_p, c_void_p)  # (code, function, message, info)


class SourceContext(Structure):
    _fields_ = [("version", RLIndex), ("info", c_void_p),
                ("retain", RetainCallBack), ("release", ReleaseCallBack),
                ("copyDescription", c_void_p), ("equal", c_void_p),
                ("hash", c_void_p), ("schedule", ScheduleCallBack),
                ("cancel", ScheduleCallBack), ("perform", InfoCallBack)]


class ItemContext(Structure):
    """RLRunLoopTimerContext and RLRunLoopObserverContext (same layout)."""
    _fields_ = [("version", RLIndex), ("info", c_void_p),
                ("retain", RetainCallBack), ("release", ReleaseCallBack),
                ("copyDescription", c_void_p)]


class Stall(Structure):
    """RLRunLoopStall (insight.h)."""
    _fields_ = [("phase", c_int32), ("callout", c_int32), ("item", c_void_p),
                ("mode", c_char_p), ("elapsed", c_double)]


StallHandler = CFUNCTYPE(None, c_void_p, POINTER(Stall), c_void_p)  # (rl, stall, info)

LATENESS_BUCKETS = 24  # RL_RUN_LOOP_LATENESS_BUCKETS


class Statistics(Structure):
    """RLRunLoopStatistics (insight.h); `size` must be set to sizeof."""
    _fields_ = [("size", c_uint32), ("reserved", c_uint32),
                ("passes", c_uint64), ("sleeps", c_uint64),
                ("wakeUpsByDescriptor", c_uint64), ("wakeUpsByWakeUp", c_uint64),
                ("wakeUpsByTimer", c_uint64), ("wakeUpsByTimeout", c_uint64),
                ("timersFired", c_uint64), ("timersLate", c_uint64),
                ("timerSlotsSkipped", c_uint64),
                ("latenessHistogram", c_uint64 * LATENESS_BUCKETS),
                ("version0Performed", c_uint64), ("version1Performed", c_uint64),
                ("observersCalled", c_uint64), ("blocksRun", c_uint64),
                ("longestCalloutNanoseconds", c_uint64),
                ("longestCalloutKind", c_int32), ("reserved2", c_uint32),
                ("busyYields", c_uint64)]


def _load():
    path = os.environ.get("RUNLOOP_LIBRARY")
    if path:
        try:
            return ctypes.CDLL(path)
        except OSError as error:
            raise ImportError(f"runloop: cannot load RUNLOOP_LIBRARY={path!r}: {error}") from error
    bundled = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "librunloop.so.0")
    if os.path.exists(bundled):
        try:
            return ctypes.CDLL(bundled)
        except OSError as error:
            raise ImportError(f"runloop: cannot load the bundled {bundled!r}: {error}") from error
    try:
        return ctypes.CDLL("librunloop.so.0")
    except OSError:
        found = ctypes.util.find_library("runloop")
        if found:
            return ctypes.CDLL(found)
    raise ImportError("runloop: librunloop.so.0 not found; install runloop "
                      "(cmake --install) where the loader looks, or set "
                      "RUNLOOP_LIBRARY to the library's path")


lib = _load()

_PROTOTYPES = {
    # name: (restype, argtypes)
    "RLGetVersion": (c_char_p, []),
    "RLGetLastError": (c_int32, []),
    "RLClearLastError": (None, []),
    "RLSetErrorHandler": (None, [ErrorHandler, c_void_p]),
    "RLRetain": (c_void_p, [c_void_p]),
    "RLRelease": (None, [c_void_p]),
    "RLGetRetainCount": (RLIndex, [c_void_p]),
    "RLAbsoluteTimeGetCurrent": (RLAbsoluteTime, []),
    "RLArrayGetCount": (RLIndex, [Handle]),
    "RLArrayGetValueAtIndex": (c_void_p, [Handle, RLIndex]),
    "RLArrayCreateWithModes": (Handle, [POINTER(c_char_p), RLIndex]),
    "RLRunLoopGetCurrent": (Handle, []),
    "RLRunLoopGetMain": (Handle, []),
    "RLRunLoopCopyCurrentMode": (c_char_p, [Handle]),
    "RLRunLoopCopyAllModes": (Handle, [Handle]),
    "RLRunLoopAddCommonMode": (None, [Handle, c_char_p]),
    "RLRunLoopGetNextTimerFireDate": (RLAbsoluteTime, [Handle, c_char_p]),
    "RLRunLoopRunInMode": (c_int32, [c_char_p, RLTimeInterval, RLBoolean]),
    "RLRunLoopIsWaiting": (RLBoolean, [Handle]),
    "RLRunLoopWakeUp": (None, [Handle]),
    "RLRunLoopStop": (None, [Handle]),
    "RLRunLoopPerformFunction": (None, [Handle, c_void_p, InfoCallBack, c_void_p]),
    "RLRunLoopContainsSource": (RLBoolean, [Handle, Handle, c_char_p]),
    "RLRunLoopAddSource": (None, [Handle, Handle, c_char_p]),
    "RLRunLoopRemoveSource": (None, [Handle, Handle, c_char_p]),
    "RLRunLoopContainsObserver": (RLBoolean, [Handle, Handle, c_char_p]),
    "RLRunLoopAddObserver": (None, [Handle, Handle, c_char_p]),
    "RLRunLoopRemoveObserver": (None, [Handle, Handle, c_char_p]),
    "RLRunLoopContainsTimer": (RLBoolean, [Handle, Handle, c_char_p]),
    "RLRunLoopAddTimer": (None, [Handle, Handle, c_char_p]),
    "RLRunLoopRemoveTimer": (None, [Handle, Handle, c_char_p]),
    "RLRunLoopSourceCreate": (Handle, [c_void_p, RLIndex, POINTER(SourceContext)]),
    "RLRunLoopSourceGetOrder": (RLIndex, [Handle]),
    "RLRunLoopSourceInvalidate": (None, [Handle]),
    "RLRunLoopSourceIsValid": (RLBoolean, [Handle]),
    "RLRunLoopSourceSignal": (None, [Handle]),
    "RLRunLoopSourceSignalAndWakeUp": (None, [Handle]),
    "RLRunLoopSourceIsSignalled": (RLBoolean, [Handle]),
    "RLRunLoopObserverCreate": (Handle, [c_void_p, RLOptionFlags, RLBoolean, RLIndex,
                                         ObserverCallBack, POINTER(ItemContext)]),
    "RLRunLoopObserverGetActivities": (RLOptionFlags, [Handle]),
    "RLRunLoopObserverDoesRepeat": (RLBoolean, [Handle]),
    "RLRunLoopObserverGetOrder": (RLIndex, [Handle]),
    "RLRunLoopObserverInvalidate": (None, [Handle]),
    "RLRunLoopObserverIsValid": (RLBoolean, [Handle]),
    "RLRunLoopTimerCreate": (Handle, [c_void_p, RLAbsoluteTime, RLTimeInterval, RLOptionFlags,
                                      RLIndex, TimerCallBack, POINTER(ItemContext)]),
    "RLRunLoopTimerGetNextFireDate": (RLAbsoluteTime, [Handle]),
    "RLRunLoopTimerSetNextFireDate": (None, [Handle, RLAbsoluteTime]),
    "RLRunLoopTimerGetInterval": (RLTimeInterval, [Handle]),
    "RLRunLoopTimerDoesRepeat": (RLBoolean, [Handle]),
    "RLRunLoopTimerGetOrder": (RLIndex, [Handle]),
    "RLRunLoopTimerInvalidate": (None, [Handle]),
    "RLRunLoopTimerIsValid": (RLBoolean, [Handle]),
    "RLRunLoopTimerGetTolerance": (RLTimeInterval, [Handle]),
    "RLRunLoopTimerSetTolerance": (None, [Handle, RLTimeInterval]),
    # file descriptors (runloop.h)
    "RLFileDescriptorCreate": (Handle, [c_void_p, c_int, RLBoolean, FileDescriptorCallBack,
                                        POINTER(ItemContext)]),
    "RLFileDescriptorGetNativeDescriptor": (c_int, [Handle]),
    "RLFileDescriptorEnableCallBacks": (None, [Handle, RLOptionFlags]),
    "RLFileDescriptorDisableCallBacks": (None, [Handle, RLOptionFlags]),
    "RLFileDescriptorInvalidate": (None, [Handle]),
    "RLFileDescriptorIsValid": (RLBoolean, [Handle]),
    "RLFileDescriptorCreateRunLoopSource": (Handle, [c_void_p, Handle, RLIndex]),
    # signals (watch.h)
    "RLSignalCreate": (Handle, [c_void_p, c_int32, SignalCallBack, POINTER(ItemContext)]),
    "RLSignalGetSignal": (c_int32, [Handle]),
    "RLSignalInvalidate": (None, [Handle]),
    "RLSignalIsValid": (RLBoolean, [Handle]),
    "RLSignalCreateRunLoopSource": (Handle, [c_void_p, Handle, RLIndex]),
    # data, message ports, worker threads (ports.h)
    "RLDataCreate": (Handle, [c_void_p, c_char_p, RLIndex]),
    "RLDataGetLength": (RLIndex, [Handle]),
    "RLDataGetBytePtr": (c_void_p, [Handle]),
    "RLMessagePortCreateLocal": (Handle, [c_void_p, c_char_p, MessagePortCallBack,
                                          POINTER(ItemContext), POINTER(RLBoolean)]),
    "RLMessagePortCreateRemote": (Handle, [c_void_p, c_char_p]),
    "RLMessagePortIsRemote": (RLBoolean, [Handle]),
    "RLMessagePortGetName": (c_char_p, [Handle]),
    "RLMessagePortSetName": (RLBoolean, [Handle, c_char_p]),
    "RLMessagePortInvalidate": (None, [Handle]),
    "RLMessagePortIsValid": (RLBoolean, [Handle]),
    "RLMessagePortSetInvalidationCallBack": (None, [Handle, MessagePortInvalidationCallBack]),
    "RLMessagePortSendRequest": (c_int32, [Handle, c_int32, Handle, RLTimeInterval, RLTimeInterval,
                                           c_char_p, POINTER(c_void_p)]),
    "RLMessagePortCreateRunLoopSource": (Handle, [c_void_p, Handle, RLIndex]),
    "RLThreadCreate": (Handle, [c_char_p]),
    "RLThreadGetRunLoop": (Handle, [Handle]),
    "RLThreadPerform": (RLBoolean, [Handle, InfoCallBack, c_void_p, RLBoolean]),
    "RLThreadStop": (None, [Handle]),
    # stall monitor, statistics, traces (insight.h)
    "RLRunLoopPhaseGetName": (c_char_p, [c_int32]),
    "RLRunLoopCalloutKindGetName": (c_char_p, [c_int32]),
    "RLRunLoopSetStallHandler": (None, [Handle, RLTimeInterval, StallHandler, c_void_p]),
    "RLRunLoopGetStatistics": (None, [Handle, POINTER(Statistics)]),
    "RLRunLoopResetStatistics": (None, [Handle]),
    "RLRunLoopTraceStart": (RLBoolean, [Handle, c_char_p]),
    "RLRunLoopTraceStop": (RLBoolean, [Handle]),
}

# ---- the error channel ------------------------------------------------------
# _thread.depth counts the calls into the library this thread is inside
# (several when a callout makes calls of its own); _thread.error holds the
# first error the library reported during the innermost of them.

_thread = threading.local()


def _report_unraisable(error):
    sys.unraisablehook(type("UnraisableHookArgs", (), {
        "exc_type": type(error), "exc_value": error, "exc_traceback": error.__traceback__,
        "err_msg": "exception in the runloop error handler", "object": None}))


# Where _on_error sends an exception raised inside it.  _callbacks, which
# sits above this module, installs its own reporter here (set_exception_reporter)
# so that this module never calls up into it.
_exception_reporter = _report_unraisable


def set_exception_reporter(report):
    """Makes `report(error)` receive an exception raised inside the error
    handler (a signal handler's, most likely: see _signals)."""
    global _exception_reporter
    _exception_reporter = report


@ErrorHandler
def _on_error(code, function, message, info):
    try:
        thread = _thread
        if getattr(thread, "depth", 0) > 0:
            if getattr(thread, "error", None) is None:
                thread.error = error_for(code, function.decode("utf-8", "replace"),
                                         message.decode("utf-8", "replace"))
            return
        os.write(2, b"runloop: " + message + b"\n")  # what the default handler writes
    except BaseException as error:  # noqa: B902 - a signal handler's, most likely: see _signals
        _exception_reporter(error)


def _checked(function):
    def call(*args):
        thread = _thread
        depth = getattr(thread, "depth", 0)
        # An error reported earlier during an enclosing call (a run whose
        # callout makes this call) is that call's: set it aside, so this
        # call raises only what was reported during itself.
        enclosing = getattr(thread, "error", None)
        thread.error = None
        thread.depth = depth + 1
        try:
            result = function(*args)
        finally:
            thread.depth = depth
            error, thread.error = thread.error, enclosing
        if error is not None:
            raise error
        return result
    call.__name__ = call.__qualname__ = function.__name__
    call.__doc__ = f"{function.__name__} (ctypes), raising RunLoopError for a reported error."
    return call


def take_enclosing_error():
    """From a callout: the error the library reported so far during the
    call that runs it (say, RLRunLoopRunInMode reporting a descriptor
    closed while watched), which that call would raise when it returns;
    None if none.  The caller handles it instead."""
    error = getattr(_thread, "error", None)
    _thread.error = None
    return error


def call_quietly(function, *args):
    """Calls `function` (one of this module's) and returns (result, error):
    the error the library reported, or None; nothing is raised or printed.
    For finalizers and callbacks, where raising would help nobody."""
    try:
        return function(*args), None
    except (RunLoopError, ctypes.ArgumentError) as error:  # only these: see _signals
        return None, error


# Functions a library older than this package lacks: bound only when the
# loaded library has them (users check with hasattr(_capi, name)).
_OPTIONAL_PROTOTYPES = {
    # driving a loop from another event loop (runloop.h)
    "RLRunLoopGetPollDescriptor": (c_int, [Handle]),
    "RLRunLoopGetTimeout": (RLTimeInterval, [Handle, c_char_p]),
    "RLRunLoopRunPending": (c_int32, [Handle, c_char_p]),
}

raw = type("raw", (), {})()  # the bare ctypes functions, by name
for _name, (_restype, _argtypes) in list(_PROTOTYPES.items()) + [
        item for item in _OPTIONAL_PROTOTYPES.items() if hasattr(lib, item[0])]:
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes
    setattr(raw, _name, _function)
    globals()[_name] = _checked(_function)
del _name, _restype, _argtypes, _function

raw.RLSetErrorHandler(_on_error, None)


@atexit.register
def _restore_error_handler():
    # C threads may still report errors while the interpreter goes away.
    raw.RLSetErrorHandler(ctypes.cast(None, ErrorHandler), None)


def mode_bytes(mode):
    """A mode name as the C string the library takes."""
    if isinstance(mode, bytes):
        return mode
    if isinstance(mode, str):
        return mode.encode("utf-8")
    raise TypeError(f"a mode name must be str, got {type(mode).__name__}")
