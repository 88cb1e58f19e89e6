"""Base of the Python wrappers: one owned reference to a C handle."""
from . import _capi
from .errors import RunLoopError


class Handle:
    """Owns one reference to a C object; gives it back when Python drops
    the wrapper (the C object lives on while the library still uses it)."""
    __slots__ = ("_handle", "__weakref__")

    def __init__(self, handle):
        if not handle:
            raise ValueError(f"{type(self).__name__}: the library refused to create it (see stderr)")
        self._handle = handle

    @classmethod
    def _borrow(cls, handle):
        """A new wrapper for a handle the library lent us (retained here)."""
        return cls._adopt(_capi.RLRetain(handle))

    @classmethod
    def _adopt(cls, handle):
        """A new wrapper taking over a reference the caller owns (a Create
        or Copy result)."""
        self = cls.__new__(cls)
        Handle.__init__(self, handle)
        return self

    def _release(self):
        """Gives our reference back now (idempotent); the wrapper is then
        closed: its methods raise ValueError."""
        handle = getattr(self, "_handle", None)
        if handle and _capi is not None:  # (None while the interpreter shuts down)
            self._handle = None
            _capi.call_quietly(_capi.RLRelease, handle)

    def __del__(self):
        self._release()

    @property
    def _live(self):
        """The handle, or ValueError if this wrapper was closed."""
        handle = self._handle
        if not handle:
            raise ValueError(f"{type(self).__name__} is closed")
        return handle

    @property
    def retain_count(self) -> int:
        """References to the C object, the library's own included."""
        return _capi.RLGetRetainCount(self._live)

    def __eq__(self, other):
        return other is self or (isinstance(other, Handle) and self._handle is not None
                                 and other._handle == self._handle)

    def __hash__(self):
        return hash(self._handle)


def handle_of(item, cls, what):
    """The live handle of `item`, which must be a `cls`; TypeError /
    ValueError (closed) otherwise, never a NULL passed to C."""
    if not isinstance(item, cls):
        names = " or ".join(c.__name__ for c in cls) if isinstance(cls, tuple) else cls.__name__
        raise TypeError(f"{what}: expected a {names}, got {type(item).__name__}")
    return item._live


def create(what, function, *args):
    """Calls a Create function; a NULL result or a reported error becomes
    an exception saying that `what` could not be created (a RunLoopError
    keeps the library's code and message)."""
    refused = f"{what}: the library refused to create it"
    try:
        handle = function(*args)
    except RunLoopError as error:
        error.context = refused
        raise
    if not handle:
        raise ValueError(refused)
    return handle
