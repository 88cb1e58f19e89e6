"""runloop: CFRunLoop for Linux, from Python (ctypes; no compiler needed).

    import runloop
    loop = runloop.RunLoop.current()
    loop.add_timer(runloop.Timer(lambda t: loop.stop(), delay=0.1))
    loop.run(runloop.DEFAULT_MODE, 5)      # -> RunResult.STOPPED

Callbacks (timers, sources, observers, perform, file descriptors, port
requests) run on the loop's thread, inside RunLoop.run().  An exception
raised by a callback stops that run and is raised by run().  Items are
released when Python drops them, except that an item added to a loop stays
alive (and keeps its callable) until it is removed or invalidated.

Also here: FileDescriptor (readiness of a descriptor), Signal (a Unix
signal caught as a source, runloop/watch.h), LocalPort /
RemotePort (message ports), Thread (a worker with its own loop), the stall
handler and statistics (RunLoop.set_stall_handler, RunLoop.statistics),
and runloop.asyncio (asyncio on a run loop, a run loop driven by asyncio).
Errors the library reports are raised as RunLoopError by the failing call.
On the main thread, run() lets Python signal handlers run (Ctrl-C raises
KeyboardInterrupt).  See the C headers runloop/runloop.h, ports.h and
insight.h for the exact semantics of every call.
"""
from . import _capi
from .constants import COMMON_MODES, DEFAULT_MODE, Activity, RunResult
from .errors import ErrorCode, InvalidArgumentError, LoopGoneError, RunLoopError
from .items import Observer, Source, Timer
from .loop import RunLoop
from .fd import FileDescriptor, FileEvent
from .watch import Signal
from .insight import CalloutKind, Phase, Stall, Statistics
from .ports import (LocalPort, MessagePort, MessagePortError, MessagePortTimeout, PortNotFoundError,
                    PortStatus, RemotePort)
from .thread import Thread

__all__ = ["RunLoop", "Timer", "Source", "Observer", "Activity", "RunResult",
           "DEFAULT_MODE", "COMMON_MODES", "absolute_time", "library_version",
           "RunLoopError", "InvalidArgumentError", "LoopGoneError", "ErrorCode",
           "FileDescriptor", "FileEvent", "Signal", "Thread", "MessagePort", "LocalPort", "RemotePort",
           "PortStatus", "MessagePortError", "MessagePortTimeout", "PortNotFoundError",
           "Stall", "Statistics", "Phase", "CalloutKind"]


def absolute_time() -> float:
    """Now, in seconds since 2001-01-01 00:00:00 UTC (CF's epoch)."""
    return _capi.RLAbsoluteTimeGetCurrent()


def library_version() -> str:
    """The loaded librunloop's version, e.g. "0.1.0"."""
    return _capi.RLGetVersion().decode("ascii")
