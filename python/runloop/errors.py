"""Library errors as Python exceptions.

The C library reports misuse (a stale handle, a NaN time, performing on the
loop of an exited thread, ...) through one channel: each failing call
records the error for its thread and passes it to a process-wide handler.
`import runloop` installs a handler that turns an error reported during a
call made by this package into a RunLoopError raised by that call, on the
thread that made it.  An error reported outside such a call (by C code
using the library directly) is written to stderr, as the library's default
handler does.
"""
import enum
from typing import Optional


class ErrorCode(enum.IntEnum):
    """The library's error codes (kRLError... in runloop.h)."""
    NONE = 0
    NULL_HANDLE = 1
    STALE_HANDLE = 2
    WRONG_TYPE = 3
    INVALID_ARGUMENT = 4
    WRONG_LOOP = 5
    LOOP_GONE = 6
    OVER_RELEASE = 7
    RESOURCES = 8
    FORKED = 9
    WRONG_THREAD = 10


class RunLoopError(Exception):
    """An error the library reported for a call.

    code:     an ErrorCode (or the raw int for a code this package does not know)
    function: the C function that failed, e.g. "RLRunLoopAddTimer"
    message:  the library's own message, e.g.
              "RLRunLoopAddTimer: stale or unknown handle"
    """

    def __init__(self, code: int, function: str, message: str, context: Optional[str] = None):
        super().__init__(code, function, message)
        try:
            self.code = ErrorCode(code)
        except ValueError:
            self.code = code
        self.function = function
        self.message = message
        self.context = context

    def __str__(self) -> str:
        if self.context:
            return f"{self.context} ({self.message})"
        return self.message

    def __reduce__(self):
        return (type(self), (int(self.code), self.function, self.message, self.context))


class InvalidArgumentError(RunLoopError, ValueError):
    """The library refused an argument (ErrorCode.INVALID_ARGUMENT): a NaN
    time, an over-long mode name, a stopped thread, a port name in use..."""


class LoopGoneError(RunLoopError):
    """The loop's thread has exited (ErrorCode.LOOP_GONE): nothing can be
    added to or performed on it any more."""


_CLASSES = {ErrorCode.INVALID_ARGUMENT: InvalidArgumentError, ErrorCode.LOOP_GONE: LoopGoneError}


def error_for(code: int, function: str, message: str) -> RunLoopError:
    """The exception for one report of the library's error channel."""
    return _CLASSES.get(code, RunLoopError)(code, function, message)
