"""Message ports (RLMessagePort, CF's CFMessagePort): request/reply between
threads or processes of the same user.

A LocalPort has a name and a callback; a RemotePort connects to the local
port of that name (in this process or another) and send()s it requests.
The local port's callback runs on the thread of a loop holding its
source(), and what it returns travels back as the reply.  A LocalPort can
send() to itself too: its callback then runs at once on the sending thread.
"""
import ctypes
import enum
import threading
import weakref
from typing import Callable, Optional, Union

from . import _callbacks, _capi
from ._handle import Handle, create
from .errors import ErrorCode, InvalidArgumentError, RunLoopError
from .items import Source, _State, _check_callable, _item_context

BytesLike = Union[bytes, bytearray, memoryview]
Reply = Optional[BytesLike]


class PortStatus(enum.IntEnum):
    """RLMessagePortSendRequest's results (kRLMessagePort...)."""
    SUCCESS = 0
    SEND_TIMEOUT = -1          # the request could not be written in time
    RECEIVE_TIMEOUT = -2       # no reply within receive_timeout
    IS_INVALID = -3            # the port was invalid before the send
    TRANSPORT_ERROR = -4       # the system refused
    BECAME_INVALID = -5        # the local side went away while we waited


_STATUS_TEXT = {
    PortStatus.SEND_TIMEOUT: "the request could not be written in time",
    PortStatus.RECEIVE_TIMEOUT: "no reply in time",
    PortStatus.IS_INVALID: "the port is invalid",
    PortStatus.TRANSPORT_ERROR: "the system refused the transfer",
    PortStatus.BECAME_INVALID: "the local port went away while we waited for the reply",
}


class MessagePortError(RunLoopError):
    """A send failed; .code is a PortStatus."""

    def __init__(self, code, function="RLMessagePortSendRequest", message=None, context=None):
        status = PortStatus(code)
        super().__init__(code, function, message or f"{function}: {_STATUS_TEXT.get(status, status.name)}",
                         context)
        self.code = status


class MessagePortTimeout(MessagePortError, TimeoutError):
    """SEND_TIMEOUT or RECEIVE_TIMEOUT."""


class PortNotFoundError(RunLoopError, LookupError):
    """No local port of that name exists (yet): RemotePort() may be retried."""

    def __init__(self, name, function="RLMessagePortCreateRemote", message=None, context=None):
        super().__init__(0, function, message or f"{function}: no local port named {name!r}", context)
        self.name = name

    def __reduce__(self):
        return (type(self), (self.name, self.function, self.message, self.context))


def _name_bytes(name, what):
    if not isinstance(name, str):
        raise TypeError(f"{what}: a port name must be a str, got {type(name).__name__}")
    encoded = name.encode("utf-8")
    if b"\0" in encoded:
        raise ValueError(f"{what}: a port name must not contain NUL")
    return encoded


def _data(payload, what):
    """An RLData handle (owned) for a bytes-like payload, or None."""
    if payload is None:
        return None
    if isinstance(payload, str):
        raise TypeError(f"{what}: data must be bytes-like, not str (encode it)")
    data = bytes(memoryview(payload))  # TypeError for what is not bytes-like
    return _capi.RLDataCreate(None, data, len(data))


def _bytes(data_handle):
    length = _capi.RLDataGetLength(data_handle)
    return ctypes.string_at(_capi.RLDataGetBytePtr(data_handle), length) if length else b""


# ---- the invalidation callback ------------------------------------------------
# C passes (port, info), and info is NULL for a remote port: the callables
# are kept here by handle, until the port becomes invalid (at the latest
# when it is destroyed) or the callback is replaced.

_invalidation_lock = threading.Lock()
_on_invalidate = {}  # port handle -> (callable, weakref to the wrapper, class)


@_capi.MessagePortInvalidationCallBack
def _port_invalidated(handle, info):
    with _invalidation_lock:
        entry = _on_invalidate.pop(handle, None)
    if entry is None:
        return
    function, wrapper, cls = entry
    port = wrapper()
    if port is None:  # Python dropped it: a wrapper lent for the call, if the port still lives
        borrowed, _ = _capi.call_quietly(_capi.RLRetain, handle)
        port = cls._adopt(borrowed) if borrowed else None
    _callbacks._call(function, port)


@_capi.MessagePortCallBack
def _port_request(handle, msgid, data, info):
    state = _callbacks._state(info)
    if state is None:
        return None
    reply = []

    def answer():
        payload = state.callback(state.wrapper(handle), msgid, _bytes(data) if data else None)
        reply.append(_data(payload, "LocalPort callback's reply"))

    _callbacks._call(answer)
    return reply[0] if reply else None  # the library releases it


class MessagePort(Handle):
    """What local and remote ports share."""
    __slots__ = ()

    @property
    def name(self) -> Optional[str]:
        name = _capi.RLMessagePortGetName(self._live)
        return None if name is None else name.decode("utf-8")

    @property
    def is_remote(self) -> bool:
        return bool(_capi.RLMessagePortIsRemote(self._live))

    @property
    def is_valid(self) -> bool:
        """Whether the port is valid.  For a remote port this also looks
        (without blocking) whether the local side has gone; if so the port
        becomes invalid now and its on_invalidate callback runs here."""
        with _callbacks.waiting():
            return bool(_capi.RLMessagePortIsValid(self._live))

    def invalidate(self) -> None:
        """Makes the port invalid (idempotent, any thread).  A local port
        frees its name, drops its connections and leaves every loop; then
        on_invalidate runs, on this thread."""
        with _callbacks.waiting():
            _capi.RLMessagePortInvalidate(self._live)

    def set_on_invalidate(self, callback: Optional[Callable[["MessagePort"], object]]) -> None:
        """callback(port) runs once when the port becomes invalid, on the
        thread that noticed: invalidate(), the other side going away, or
        the port being destroyed (then `port` is a wrapper lent for the
        call, or None).  If the port is already invalid it runs now.
        None removes it."""
        _check_callable(type(self).__name__, "on_invalidate", callback, optional=True)
        handle = self._live
        with _invalidation_lock:
            if callback is None:
                _on_invalidate.pop(handle, None)
            else:
                _on_invalidate[handle] = (callback, weakref.ref(self), type(self))
        with _callbacks.waiting():
            _capi.RLMessagePortSetInvalidationCallBack(
                handle, _port_invalidated if callback is not None
                else ctypes.cast(None, _capi.MessagePortInvalidationCallBack))

    def send(self, msgid: int, data: Optional[BytesLike] = None, *, send_timeout: float = 1.0,
             receive_timeout: float = 1.0, reply: bool = True) -> Optional[bytes]:
        """Sends (msgid, data) to the local port and, with reply=True,
        returns the bytes its callback returned (None if it returned None);
        reply=False returns None once the request is delivered.  Failures
        raise MessagePortError (.code: a PortStatus; timeouts are
        MessagePortTimeout, also a TimeoutError).

        Through a RemotePort: waits up to receive_timeout seconds for the
        reply.  The calling thread blocks (its own loop does not run
        meanwhile: never send to a port served by the calling thread's
        loop).

        To a LocalPort itself (CF's CFMessagePortSendRequest on a local
        port): its callback runs at once, on this thread, whether or not
        a loop serves the port; the timeouts do not apply, and an
        exception the callback raises is raised by send()."""
        what = f"{type(self).__name__}.send"
        if isinstance(msgid, bool) or not isinstance(msgid, int):
            raise TypeError(f"{what}: msgid must be an int, got {type(msgid).__name__}")
        if not -2**31 <= msgid < 2**31:
            raise ValueError(f"{what}: msgid {msgid} is not a 32-bit int")
        handle = self._live
        payload = _data(data, what)
        returned = ctypes.c_void_p()
        try:
            with _callbacks.waiting():  # a LocalPort's own callback runs in this call
                status = _capi.RLMessagePortSendRequest(
                    handle, msgid, payload, float(send_timeout), float(receive_timeout),
                    _capi.mode_bytes(_REPLY_MODE) if reply else None, ctypes.byref(returned))
        except BaseException:
            if returned.value:
                _capi.RLRelease(returned.value)
            raise
        finally:
            if payload:
                _capi.RLRelease(payload)
        if status != PortStatus.SUCCESS:
            error_type = (MessagePortTimeout if status in (PortStatus.SEND_TIMEOUT, PortStatus.RECEIVE_TIMEOUT)
                          else MessagePortError)
            raise error_type(status)
        if not returned.value:
            return None
        try:
            return _bytes(returned.value)
        finally:
            _capi.RLRelease(returned.value)

    def close(self) -> None:
        """invalidate(), then releases the port now; further use raises
        ValueError."""
        if self._handle:
            self.invalidate()
            self._release()

    def __enter__(self):
        self._live
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self):
        return f"<runloop.{type(self).__name__} {self.name if self._handle else '(closed)'!r}>"


class LocalPort(MessagePort):
    """A named port that answers requests:

        def answer(port, msgid, data):      # data: bytes, or None
            return b"reply"                  # bytes-like, or None for no data

        server = runloop.LocalPort("my.service", answer)
        loop.add_source(server.source(), runloop.DEFAULT_MODE)

    The callback runs on the thread of a loop running a mode that holds
    source(); an exception it raises stops that run and is raised by run()
    (the requester gets no data).  Names are unique per user (1 to 80
    bytes); a taken name raises InvalidArgumentError, also when a LocalPort
    of this process has it (where CF would hand back that port, with its
    own callback).  Keep the LocalPort: when Python drops it, it is
    invalidated (its source does not keep it).
    """
    __slots__ = ()

    def __init__(self, name: Optional[str], callback: Callable[["LocalPort", int, Optional[bytes]], Reply],
                 *, on_invalidate: Optional[Callable[[MessagePort], object]] = None):
        encoded = None if name is None else _name_bytes(name, "LocalPort")
        _check_callable("LocalPort", "callback", callback)
        _check_callable("LocalPort", "on_invalidate", on_invalidate, optional=True)
        state = _State(callback, LocalPort)
        token = _callbacks.register(state)
        should_free = _capi.RLBoolean(0)
        try:
            handle = create("LocalPort", _capi.RLMessagePortCreateLocal, None, encoded, _port_request,
                            _item_context(token), ctypes.byref(should_free))
        except BaseException:
            _callbacks.forget(token)
            raise
        if should_free.value:
            # The port of this process that has the name (the library
            # kept nothing of ours): not a port with this callback.
            _capi.RLRelease(handle)
            _callbacks.forget(token)
            raise InvalidArgumentError(
                ErrorCode.INVALID_ARGUMENT, "RLMessagePortCreateLocal",
                f"LocalPort: the name {name!r} is in use by another LocalPort of this process")
        Handle.__init__(self, handle)
        state._wrapper = weakref.ref(self)
        if on_invalidate is not None:
            self.set_on_invalidate(on_invalidate)

    @MessagePort.name.setter
    def name(self, new_name: str) -> None:
        """Renames the port (the new name is claimed first)."""
        if not _capi.RLMessagePortSetName(self._live, _name_bytes(new_name, "LocalPort.name")):
            raise ValueError(f"LocalPort.name: cannot rename to {new_name!r} "
                             "(name in use, or the port is invalid)")

    def source(self, order: int = 0) -> Source:
        """The source through which the port receives: add it to one or
        more modes of one or more loops.  The same source while it lives.
        ValueError once the port is invalid."""
        handle = _capi.RLMessagePortCreateRunLoopSource(None, self._live, order)
        if not handle:
            raise ValueError("LocalPort.source: the port is invalid")
        return Source._adopt(handle)

    def __del__(self):
        # The last reference invalidates the port: do it while the wrapper
        # is whole, so on_invalidate gets it.
        handle = getattr(self, "_handle", None)
        if handle and _capi is not None and _capi.call_quietly(_capi.RLGetRetainCount, handle)[0] == 1:
            _capi.call_quietly(_capi.RLMessagePortInvalidate, handle)
        Handle.__del__(self)


class RemotePort(MessagePort):
    """A connection to the local port named `name`:

        client = runloop.RemotePort("my.service")
        reply = client.send(1, b"request")          # bytes, or None

    Raises PortNotFoundError when no such port exists (yet).
    """
    __slots__ = ()

    def __init__(self, name: str, *, on_invalidate: Optional[Callable[[MessagePort], object]] = None):
        encoded = _name_bytes(name, "RemotePort")
        _check_callable("RemotePort", "on_invalidate", on_invalidate, optional=True)
        try:
            handle = _capi.RLMessagePortCreateRemote(None, encoded)
        except RunLoopError as error:
            error.context = "RemotePort: cannot connect"
            raise
        if not handle:
            raise PortNotFoundError(name)
        Handle.__init__(self, handle)
        if on_invalidate is not None:
            self.set_on_invalidate(on_invalidate)


_REPLY_MODE = "runloop.python.reply"  # any non-NULL mode asks for a reply (the library does not run it)
