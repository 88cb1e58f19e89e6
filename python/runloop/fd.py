"""FileDescriptor: a file descriptor's readiness, delivered on a loop
(RLFileDescriptor, CF's CFFileDescriptor)."""
import enum
from typing import Callable, Union

from . import _callbacks, _capi
from ._handle import Handle
from .items import Source, _create, _item_context, _State, _check_callable


class FileEvent(enum.IntFlag):
    """Callback types of a FileDescriptor (kRLFileDescriptor...CallBack)."""
    READ = 1 << 0
    WRITE = 1 << 1


def _events(events) -> int:
    value = int(events)
    if value & ~int(FileEvent.READ | FileEvent.WRITE):
        raise ValueError(f"FileDescriptor: events must be FileEvent.READ and/or WRITE, got {events!r}")
    return value


def _fileno(fd) -> int:
    if isinstance(fd, bool) or not isinstance(fd, int):
        fileno = getattr(fd, "fileno", None)
        if fileno is None:
            raise TypeError(f"FileDescriptor: expected an int or an object with fileno(), "
                            f"got {type(fd).__name__}")
        fd = fileno()
    if fd < 0:
        raise ValueError(f"FileDescriptor: negative descriptor {fd}")
    return fd


class FileDescriptor(Handle):
    """Watches a descriptor (pipe, socket, eventfd, ...; an int or any
    object with fileno()) and calls callback(file_descriptor, events) on
    the thread of a loop running a mode that holds its source().

    As in CF, callbacks are one-shot: enable(FileEvent.READ) asks for one
    callback when the descriptor is readable; the type is disabled again
    just before the callback, which calls enable() again to hear about the
    next readiness.  The library never reads or writes the descriptor.

    close_on_invalidate=True hands the descriptor to the library, which
    closes it at invalidate() (or when the object is destroyed while still
    valid): pass a descriptor nobody else will close (e.g. sock.detach()).
    Otherwise the library never closes it: invalidate() before you close it.

    Lifetime: while its source is in a loop, the loop keeps the object (and
    the callback) alive; invalidate() removes it from every loop and
    releases the callback.
    """
    __slots__ = ()

    READ = FileEvent.READ
    WRITE = FileEvent.WRITE

    def __init__(self, fd: Union[int, "object"], callback: Callable[["FileDescriptor", FileEvent], object],
                 *, close_on_invalidate: bool = False):
        number = _fileno(fd)
        _check_callable("FileDescriptor", "callback", callback)
        state = _State(callback, FileDescriptor)
        token = _callbacks.register(state)
        _create(FileDescriptor, self, state, token, _capi.RLFileDescriptorCreate, None, number,
                1 if close_on_invalidate else 0, _callbacks.descriptor_ready, _item_context(token))

    def fileno(self) -> int:
        """The descriptor it watches (the number, even once closed)."""
        return _capi.RLFileDescriptorGetNativeDescriptor(self._live)

    def enable(self, events: FileEvent = FileEvent.READ) -> None:
        """Asks for one callback per type in `events` (any thread)."""
        _capi.RLFileDescriptorEnableCallBacks(self._live, _events(events))

    def disable(self, events: FileEvent = FileEvent.READ | FileEvent.WRITE) -> None:
        _capi.RLFileDescriptorDisableCallBacks(self._live, _events(events))

    def source(self, order: int = 0) -> Source:
        """The run-loop source delivering the callbacks: add it to a loop's
        modes.  The same source each time while it lives (`order` counts
        only when it is made).  ValueError once invalid."""
        handle = _capi.RLFileDescriptorCreateRunLoopSource(None, self._live, order)
        if not handle:
            raise ValueError("FileDescriptor.source: the file descriptor is invalid")
        return Source._adopt(handle)

    def invalidate(self) -> None:
        """Removes its source from every loop, releases the callback, and
        closes the descriptor if close_on_invalidate was set.  Idempotent;
        safe from inside its own callback."""
        with _callbacks.waiting():
            _capi.RLFileDescriptorInvalidate(self._live)

    @property
    def is_valid(self) -> bool:
        return bool(_capi.RLFileDescriptorIsValid(self._live))

    def __repr__(self):
        return f"<FileDescriptor {self._handle or 0:#x}>"
