"""Errors the library reports, as Python exceptions.

Every call into librunloop that can fail clears the calling thread's last
error, makes the call, and raises RunLoopError if the library recorded one
(see "Errors" in runloop/runloop.h).  The library's default error handler
also writes the error to stderr; RLSetErrorHandler (not wrapped) changes that
process-wide.
"""
from enum import IntEnum


class ErrorCode(IntEnum):
    """RLErrorCode values."""
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


class RunLoopError(Exception):
    """A call the library refused.

    Attributes:
        code: the ErrorCode (an int the enum does not know stays an int).
        function: the C function that failed, e.g. "RLRunLoopAddTimer".
        message: the library's description, "Function: problem: detail".
    """

    def __init__(self, code: int, function: str, message: str) -> None:
        try:
            code = ErrorCode(code)
        except ValueError:
            pass
        super().__init__(message or f"{function}: error {int(code)}")
        self.code = code
        self.function = function
        self.message = message


class InvalidArgumentError(RunLoopError, ValueError):
    """A bad argument (NaN time, over-long mode name, ...): also a ValueError."""


class StaleHandleError(RunLoopError, ReferenceError):
    """A released object, or one of another copy of the library."""


class LoopGoneError(RunLoopError):
    """The loop's thread has exited."""


_BY_CODE = {
    ErrorCode.INVALID_ARGUMENT: InvalidArgumentError,
    ErrorCode.NULL_HANDLE: InvalidArgumentError,
    ErrorCode.STALE_HANDLE: StaleHandleError,
    ErrorCode.LOOP_GONE: LoopGoneError,
}


def error_for(code: int, function: str, message: str) -> RunLoopError:
    """The exception for an RLErrorCode."""
    return _BY_CODE.get(code, RunLoopError)(code, function, message)
