"""The C library, loaded with ctypes, and the prototypes of its functions.

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
import ctypes
import ctypes.util
import os
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int32,
                    c_long, c_ubyte, c_ulong, c_void_p)

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


class SourceContext(Structure):
    _fields_ = [("version", RLIndex), ("info", c_void_p),
                ("retain", RetainCallBack), ("release", ReleaseCallBack),
                ("copyDescription", c_void_p), ("equal", c_void_p),
                ("hash", c_void_p), ("schedule", ScheduleCallBack),
                ("cancel", ScheduleCallBack), ("perform", InfoCallBack)]


FileDescriptorCallBack = CFUNCTYPE(None, c_void_p, RLOptionFlags, c_void_p)    # (f, types, info)
# (local, msgid, data, info) -> RLDataRef; c_void_p restype would be boxed.
MessagePortCallBack = CFUNCTYPE(c_void_p, c_void_p, c_int32, c_void_p, c_void_p)
MessagePortInvalidationCallBack = CFUNCTYPE(None, c_void_p, c_void_p)


class StallInfo(Structure):
    """RLRunLoopStall."""
    _fields_ = [("phase", c_int32), ("callout", c_int32), ("item", c_void_p),
                ("mode", c_char_p), ("elapsed", c_double)]


StallCallBack = CFUNCTYPE(None, c_void_p, POINTER(StallInfo), c_void_p)

LATENESS_BUCKETS = 24


class Statistics(Structure):
    """RLRunLoopStatistics (insight.h), `size` set before each call."""
    _fields_ = [("size", ctypes.c_uint32), ("reserved", ctypes.c_uint32),
                ("passes", ctypes.c_uint64), ("sleeps", ctypes.c_uint64),
                ("wakeUpsByDescriptor", ctypes.c_uint64), ("wakeUpsByWakeUp", ctypes.c_uint64),
                ("wakeUpsByTimer", ctypes.c_uint64), ("wakeUpsByTimeout", ctypes.c_uint64),
                ("timersFired", ctypes.c_uint64), ("timersLate", ctypes.c_uint64),
                ("timerSlotsSkipped", ctypes.c_uint64),
                ("latenessHistogram", ctypes.c_uint64 * LATENESS_BUCKETS),
                ("version0Performed", ctypes.c_uint64), ("version1Performed", ctypes.c_uint64),
                ("observersCalled", ctypes.c_uint64), ("blocksRun", ctypes.c_uint64),
                ("longestCalloutNanoseconds", ctypes.c_uint64), ("longestCalloutKind", c_int32),
                ("reserved2", ctypes.c_uint32), ("busyYields", ctypes.c_uint64)]


class ItemContext(Structure):
    """RLRunLoopTimerContext and RLRunLoopObserverContext (same layout)."""
    _fields_ = [("version", RLIndex), ("info", c_void_p),
                ("retain", RetainCallBack), ("release", ReleaseCallBack),
                ("copyDescription", c_void_p)]


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
}

define_later = {
    # file descriptors
    "RLFileDescriptorCreate": (Handle, [c_void_p, ctypes.c_int, RLBoolean, FileDescriptorCallBack,
                                        POINTER(ItemContext)]),
    "RLFileDescriptorGetNativeDescriptor": (ctypes.c_int, [Handle]),
    "RLFileDescriptorEnableCallBacks": (None, [Handle, RLOptionFlags]),
    "RLFileDescriptorDisableCallBacks": (None, [Handle, RLOptionFlags]),
    "RLFileDescriptorInvalidate": (None, [Handle]),
    "RLFileDescriptorIsValid": (RLBoolean, [Handle]),
    "RLFileDescriptorCreateRunLoopSource": (Handle, [c_void_p, Handle, RLIndex]),
    # worker threads
    "RLThreadCreate": (Handle, [c_char_p]),
    "RLThreadGetRunLoop": (Handle, [Handle]),
    "RLThreadPerform": (RLBoolean, [Handle, InfoCallBack, c_void_p, RLBoolean]),
    "RLThreadStop": (None, [Handle]),
    # data and message ports
    "RLDataCreate": (Handle, [c_void_p, c_void_p, RLIndex]),
    "RLDataGetLength": (RLIndex, [Handle]),
    "RLDataGetBytePtr": (c_void_p, [Handle]),
    "RLMessagePortCreateLocal": (Handle, [c_void_p, c_char_p, MessagePortCallBack, POINTER(ItemContext),
                                          POINTER(RLBoolean)]),
    "RLMessagePortCreateRemote": (Handle, [c_void_p, c_char_p]),
    "RLMessagePortIsRemote": (RLBoolean, [Handle]),
    "RLMessagePortGetName": (c_char_p, [Handle]),
    "RLMessagePortInvalidate": (None, [Handle]),
    "RLMessagePortIsValid": (RLBoolean, [Handle]),
    "RLMessagePortSetInvalidationCallBack": (None, [Handle, MessagePortInvalidationCallBack]),
    "RLMessagePortSendRequest": (c_int32, [Handle, c_int32, Handle, RLTimeInterval, RLTimeInterval,
                                           c_char_p, POINTER(c_void_p)]),
    "RLMessagePortCreateRunLoopSource": (Handle, [c_void_p, Handle, RLIndex]),
    # insight
    "RLRunLoopSetStallHandler": (None, [Handle, RLTimeInterval, StallCallBack, c_void_p]),
    "RLRunLoopGetStatistics": (None, [Handle, POINTER(Statistics)]),
    "RLRunLoopResetStatistics": (None, [Handle]),
    "RLRunLoopPhaseGetName": (c_char_p, [c_int32]),
    "RLRunLoopCalloutKindGetName": (c_char_p, [c_int32]),
}

# The error channel, and libc's free for the strings it hands out.
lib.RLGetLastError.restype, lib.RLGetLastError.argtypes = c_int32, []
lib.RLClearLastError.restype, lib.RLClearLastError.argtypes = None, []
lib.RLCopyLastErrorDescription.restype, lib.RLCopyLastErrorDescription.argtypes = c_void_p, []
_libc = ctypes.CDLL(None)
_libc.free.restype, _libc.free.argtypes = None, [c_void_p]

# Calls made on every item of a flood, or that cannot fail for a handle a
# wrapper holds: not checked (two more foreign calls each).
_UNCHECKED = {
    "RLGetVersion", "RLRetain", "RLRelease", "RLGetRetainCount", "RLAbsoluteTimeGetCurrent",
    "RLRunLoopGetCurrent", "RLRunLoopIsWaiting", "RLRunLoopWakeUp", "RLRunLoopSourceSignal",
    "RLRunLoopSourceSignalAndWakeUp", "RLRunLoopSourceIsSignalled", "RLArrayGetCount",
    "RLArrayGetValueAtIndex",
}


def take_error(function_name):
    """The calling thread's last error as a RunLoopError (clearing it), or
    None if there is none."""
    code = lib.RLGetLastError()
    if code == 0:
        return None
    from .errors import error_for
    raw = lib.RLCopyLastErrorDescription()
    message = ""
    if raw:
        message = ctypes.string_at(raw).decode("utf-8", "replace")
        _libc.free(raw)
    lib.RLClearLastError()
    return error_for(code, function_name, message)


def _checked(function, name):
    clear = lib.RLClearLastError
    last = lib.RLGetLastError

    def call(*args):
        clear()
        result = function(*args)
        if last():
            raise take_error(name)
        return result
    call.__name__ = name
    call.__doc__ = f"{name}, raising RunLoopError when the library reports an error."
    return call


def define(prototypes):
    """Sets restype/argtypes of each function and exports it from this
    module, checked unless it is in _UNCHECKED."""
    for name, (restype, argtypes) in prototypes.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
        globals()[name] = function if name in _UNCHECKED else _checked(function, name)


define(_PROTOTYPES)
define(define_later)


def mode_bytes(mode):
    """A mode name as the C string the library takes."""
    if isinstance(mode, bytes):
        return mode
    if isinstance(mode, str):
        return mode.encode("utf-8")
    raise TypeError(f"a mode name must be str, got {type(mode).__name__}")
