"""FileDescriptor: callbacks when a descriptor is readable or writable
(RLFileDescriptor, CF's CFFileDescriptor)."""
import weakref
from typing import Callable, Union

from . import _callbacks, _capi
from ._handle import Handle
from .items import Source, _check_callable, _create, _item_context, _State

READ = 1   # kRLFileDescriptorReadCallBack
WRITE = 2  # kRLFileDescriptorWriteCallBack


class FileDescriptor(Handle):
    """Calls callback(fd_object, types) on the loop's thread when the
    descriptor becomes readable (READ) or writable (WRITE), for the
    callbacks enabled with enable().  As in CF, each callback is one-shot:
    it is disabled before it is called; enable it again to hear more.

    Schedule it with loop.add_source(f.source(), mode).  The descriptor must
    stay open until the object is invalidated; close_on_invalidate=True
    makes invalidate() close it.  A descriptor epoll cannot watch (a
    regular file, /dev/null) is always ready, as with poll(2)."""
    __slots__ = ()

    def __init__(self, fd: Union[int, "object"], callback: Callable[["FileDescriptor", int], None], *,
                 close_on_invalidate: bool = False) -> None:
        _check_callable("FileDescriptor", "callback", callback)
        number = fd.fileno() if hasattr(fd, "fileno") else int(fd)
        state = _State(callback, FileDescriptor)
        token = _callbacks.register(state)
        context = _item_context(token)
        _create(FileDescriptor, self, state, token,
                lambda: _capi.RLFileDescriptorCreate(None, number, 1 if close_on_invalidate else 0,
                                                     _callbacks.descriptor_ready, context))

    def fileno(self) -> int:
        """The descriptor."""
        return _capi.RLFileDescriptorGetNativeDescriptor(self._handle)

    def enable(self, types: int = READ) -> None:
        """Enables callbacks (READ, WRITE or READ | WRITE)."""
        _capi.RLFileDescriptorEnableCallBacks(self._handle, types)

    def disable(self, types: int = READ | WRITE) -> None:
        _capi.RLFileDescriptorDisableCallBacks(self._handle, types)

    def source(self, order: int = 0) -> Source:
        """The run-loop source delivering its callbacks (the same one while
        it lives)."""
        source = Source.__new__(Source)
        Handle.__init__(source, _capi.RLFileDescriptorCreateRunLoopSource(None, self._handle, order))
        return source

    def invalidate(self) -> None:
        """Stops watching (closing the descriptor if asked to); the callable
        is released."""
        _capi.RLFileDescriptorInvalidate(self._handle)

    @property
    def is_valid(self) -> bool:
        return bool(_capi.RLFileDescriptorIsValid(self._handle))
