"""Base of the Python wrappers: one owned reference to a C handle."""
from . import _capi


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
        self = cls.__new__(cls)
        Handle.__init__(self, _capi.RLRetain(handle))
        return self

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and _capi is not None:  # (None while the interpreter shuts down)
            self._handle = None
            _capi.RLRelease(handle)

    @property
    def retain_count(self):
        """References to the C object, the library's own included."""
        return _capi.RLGetRetainCount(self._handle)

    def __eq__(self, other):
        return isinstance(other, Handle) and other._handle == self._handle

    def __hash__(self):
        return hash(self._handle)
