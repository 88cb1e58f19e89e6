"""Message ports: request/reply between threads and processes of one user
(RLMessagePort, CF's CFMessagePort, over Unix sockets)."""
import ctypes
import weakref
from enum import IntEnum
from typing import Callable, Dict, Optional

from . import _callbacks, _capi
from ._handle import Handle
from .constants import DEFAULT_MODE
from .items import Source, _check_callable, _create, _item_context, _State


class PortStatus(IntEnum):
    """RLMessagePortSendRequest's results (CF's codes)."""
    SUCCESS = 0
    SEND_TIMEOUT = -1
    RECEIVE_TIMEOUT = -2
    IS_INVALID = -3
    TRANSPORT_ERROR = -4
    BECAME_INVALID = -5


class PortError(Exception):
    """A request that failed; `status` is the PortStatus."""

    def __init__(self, status: int) -> None:
        try:
            status = PortStatus(status)
        except ValueError:
            pass
        super().__init__(f"message port request failed: {status!r}")
        self.status = status


class MessagePort(Handle):
    """A local port (MessagePort.local) answers requests with a callable on
    the thread of the loop holding its source; a remote port
    (MessagePort.remote) sends them."""
    __slots__ = ()
    _invalidation_callbacks: Dict[int, Callable[[], None]] = {}

    @classmethod
    def local(cls, name: Optional[str],
              callback: Callable[["MessagePort", int, Optional[bytes]], Optional[bytes]]) -> "MessagePort":
        """A local port named `name` (None: unnamed).  callback(port, msgid,
        data) returns the reply's bytes, or None.  Schedule it with
        loop.add_source(port.source(), mode)."""
        _check_callable("MessagePort.local", "callback", callback)
        self = cls.__new__(cls)
        state = _State(callback, MessagePort)
        token = _callbacks.register(state)
        context = _item_context(token)
        encoded = name.encode("utf-8") if name is not None else None
        _create(MessagePort, self, state, token,
                lambda: _capi.RLMessagePortCreateLocal(None, encoded, _callbacks.port_request, context, None))
        return self

    @classmethod
    def remote(cls, name: str) -> Optional["MessagePort"]:
        """A remote port for the local port `name`, or None if none exists."""
        handle = _capi.RLMessagePortCreateRemote(None, name.encode("utf-8"))
        if not handle:
            return None
        self = cls.__new__(cls)
        Handle.__init__(self, handle)
        return self

    @property
    def name(self) -> Optional[str]:
        value = _capi.RLMessagePortGetName(self._handle)
        return value.decode("utf-8", "surrogateescape") if value is not None else None

    @property
    def is_remote(self) -> bool:
        return bool(_capi.RLMessagePortIsRemote(self._handle))

    @property
    def is_valid(self) -> bool:
        return bool(_capi.RLMessagePortIsValid(self._handle))

    def source(self, order: int = 0) -> Source:
        """The run-loop source of a local port."""
        source = Source.__new__(Source)
        Handle.__init__(source, _capi.RLMessagePortCreateRunLoopSource(None, self._handle, order))
        return source

    def send(self, msgid: int, data: Optional[bytes] = None, *, timeout: float = 1.0,
             reply_timeout: Optional[float] = 1.0, reply_mode: str = DEFAULT_MODE) -> Optional[bytes]:
        """Sends (msgid, data) on a remote port.  With reply_timeout=None it
        is one-way (returns None); otherwise waits for the reply, running
        the calling thread's loop in `reply_mode` meanwhile, and returns its
        bytes (None for none).  PortError when it fails."""
        request = None
        if data is not None:
            body = bytes(data)
            request = _capi.RLDataCreate(None, body, len(body))
        reply = ctypes.c_void_p()
        try:
            with _callbacks.waiting():
                status = _capi.RLMessagePortSendRequest(
                    self._handle, int(msgid), request, float(timeout),
                    float(reply_timeout or 0.0), reply_mode.encode("utf-8") if reply_timeout is not None else None,
                    ctypes.byref(reply) if reply_timeout is not None else None)
        finally:
            if request:
                _capi.RLRelease(request)
        if status != 0:
            raise PortError(status)
        if not reply.value:
            return None
        try:
            length = _capi.RLDataGetLength(reply.value)
            return ctypes.string_at(_capi.RLDataGetBytePtr(reply.value), length) if length else b""
        finally:
            _capi.RLRelease(reply.value)

    def on_invalidated(self, callback: Optional[Callable[[], None]]) -> None:
        """Calls callback() once when the port becomes invalid."""
        if callback is None:
            MessagePort._invalidation_callbacks.pop(self._handle, None)
            _capi.RLMessagePortSetInvalidationCallBack(self._handle, _capi.MessagePortInvalidationCallBack())
            return
        MessagePort._invalidation_callbacks[self._handle] = callback
        _capi.RLMessagePortSetInvalidationCallBack(self._handle, _callbacks.port_invalidated)

    def invalidate(self) -> None:
        _capi.RLMessagePortInvalidate(self._handle)
