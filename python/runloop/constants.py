"""Mode names, activities and run results (the C header's values)."""
import enum

DEFAULT_MODE = "kCFRunLoopDefaultMode"   # kRLRunLoopDefaultMode
COMMON_MODES = "kCFRunLoopCommonModes"   # kRLRunLoopCommonModes


class Activity(enum.IntFlag):
    """Points of a loop's pass that an Observer can watch."""
    ENTRY = 1 << 0
    BEFORE_TIMERS = 1 << 1
    BEFORE_SOURCES = 1 << 2
    BEFORE_WAITING = 1 << 5
    AFTER_WAITING = 1 << 6
    EXIT = 1 << 7
    ALL = 0x0FFFFFFF


class RunResult(enum.IntEnum):
    """What RunLoop.run() returns."""
    FINISHED = 1        # the mode has no sources and no timers
    STOPPED = 2         # stop() was called
    TIMED_OUT = 3       # the time limit passed
    HANDLED_SOURCE = 4  # a source was handled and return_after_source_handled was set
