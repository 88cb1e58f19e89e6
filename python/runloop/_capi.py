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

for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes
    globals()[_name] = _function
del _name, _restype, _argtypes, _function


def mode_bytes(mode):
    """A mode name as the C string the library takes."""
    if isinstance(mode, bytes):
        return mode
    if isinstance(mode, str):
        return mode.encode("utf-8")
    raise TypeError(f"a mode name must be str, got {type(mode).__name__}")
