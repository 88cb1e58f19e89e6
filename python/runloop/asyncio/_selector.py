"""A selectors.BaseSelector whose waiting is done by a runloop.

Each registered descriptor is a FileDescriptor (RLFileDescriptor); its
source sits in a run loop's mode while the owner (RunLoopEventLoop) is
attached to that loop, i.e. while asyncio runs.  The library reports
readiness one-shot (as CF does); the selector remembers what was reported
and select() hands it out, re-enabling each reported type the key still
wants, so the owner sees asyncio's level-triggered readers and writers:
a descriptor that stays readable is reported again on the next pass.

select() never blocks (its timeout is ignored): the run loop waits, and
calls `on_ready()` after each report.  All methods but close() run on the
thread that runs the event loop (as with any selector asyncio uses).
"""
import os
import selectors
import weakref
from collections.abc import Mapping

from .. import _capi
from ..errors import RunLoopError
from ..fd import FileDescriptor, FileEvent

_enable = _capi.raw.RLFileDescriptorEnableCallBacks

_EVENTS = selectors.EVENT_READ | selectors.EVENT_WRITE
# selectors' bits and FileEvent's are the same: READ = 1, WRITE = 2.
assert int(FileEvent.READ) == selectors.EVENT_READ and int(FileEvent.WRITE) == selectors.EVENT_WRITE


def _fileno(fileobj):
    if isinstance(fileobj, int) and not isinstance(fileobj, bool):
        fd = fileobj
    else:
        try:
            fd = int(fileobj.fileno())
        except (AttributeError, TypeError, ValueError):
            raise ValueError(f"Invalid file object: {fileobj!r}") from None
    if fd < 0:
        raise ValueError(f"Invalid file descriptor: {fd}")
    return fd


class _Map(Mapping):
    __slots__ = ("_selector",)

    def __init__(self, selector):
        self._selector = selector

    def __len__(self):
        return len(self._selector._keys)

    def __getitem__(self, fileobj):
        try:
            return self._selector._keys[self._selector._lookup(fileobj)]
        except (KeyError, ValueError):
            raise KeyError(f"{fileobj!r} is not registered") from None

    def __iter__(self):
        return iter(self._selector._keys)


def _reported(selector_ref, fd):
    def callback(f, events):
        selector = selector_ref()
        if selector is not None:
            selector._report(fd, f, int(events))
    return callback


class RunLoopSelector(selectors.BaseSelector):
    """See the module's doc."""

    def __init__(self, on_ready, on_problem):
        self._keys = {}       # fd -> SelectorKey
        self._watches = {}    # fd -> (FileDescriptor, its Source)
        self._reports = {}    # fd -> events reported and not handed out yet
        self._on_ready = on_ready
        self._on_problem = on_problem  # on_problem(RunLoopError): see _quietly
        self._loop = None     # (RunLoop, mode) while attached
        self._closed = False

    # ---- selectors.BaseSelector ------------------------------------------------

    def register(self, fileobj, events, data=None):
        if self._closed:
            raise RuntimeError("RunLoopSelector is closed")
        if not events or events & ~_EVENTS:
            raise ValueError(f"Invalid events: {events!r}")
        fd = _fileno(fileobj)
        if fd in self._keys:
            raise KeyError(f"{fileobj!r} (FD {fd}) is already registered")
        os.fstat(fd)  # OSError (EBADF) for a descriptor that is not open, as epoll's register
        f = FileDescriptor(fd, _reported(weakref.ref(self), fd))
        source = f.source()
        if self._loop is not None:
            self._quietly(self._loop[0].add_source, source, self._loop[1])
        key = selectors.SelectorKey(fileobj, fd, events, data)
        self._keys[fd] = key
        self._watches[fd] = (f, source)
        self._quietly(f.enable, FileEvent(events))
        return key

    def unregister(self, fileobj):
        fd = self._lookup(fileobj)
        try:
            key = self._keys.pop(fd)
        except KeyError:
            raise KeyError(f"{fileobj!r} is not registered") from None
        f, _ = self._watches.pop(fd)
        self._reports.pop(fd, None)
        self._quietly(f.invalidate)  # out of every loop; the descriptor stays open
        return key

    def modify(self, fileobj, events, data=None):
        if not events or events & ~_EVENTS:
            raise ValueError(f"Invalid events: {events!r}")
        fd = self._lookup(fileobj)
        try:
            key = self._keys[fd]
        except KeyError:
            raise KeyError(f"{fileobj!r} is not registered") from None
        if events != key.events:
            f = self._watches[fd][0]
            added, removed = events & ~key.events, key.events & ~events
            if removed:
                self._quietly(f.disable, FileEvent(removed))
                if fd in self._reports:
                    self._reports[fd] &= ~removed
            if added:
                self._quietly(f.enable, FileEvent(added))
        key = key._replace(events=events, data=data)
        self._keys[fd] = key
        return key

    def select(self, timeout=None):
        """What the run loop reported since the last call, as (key, events)
        pairs; never blocks."""
        if not self._reports:
            return []
        reports, self._reports = self._reports, {}
        ready = []
        for fd, events in reports.items():
            key = self._keys.get(fd)
            if key is None:
                continue
            events &= key.events
            if events:
                ready.append((key, events))
                # One-shot in the library: ask again, so a descriptor that
                # stays ready is reported on the next pass (level-triggered).
                _enable(self._watches[fd][0]._handle, events)  # bare: cannot fail on a held, valid handle
        return ready

    def close(self):
        self._closed = True
        watches, self._watches = self._watches, {}
        self._keys.clear()
        self._reports.clear()
        self._loop = None
        for f, _ in watches.values():
            self._quietly(f.invalidate)

    def get_map(self):
        return _Map(self)

    def _quietly(self, function, *args):
        """Calls a library function that cannot fail on our own handles;
        what the library reports meanwhile is about descriptors it met
        editing the wait set (one closed while watched: it drops it) and
        goes to on_problem, as asyncio tolerates closing a watched
        descriptor."""
        try:
            function(*args)
        except RunLoopError as error:
            self._on_problem(error)

    def _lookup(self, fileobj):
        """The descriptor number of `fileobj`; for a closed object that
        was registered (fileno() fails or is -1), the number it had."""
        try:
            return _fileno(fileobj)
        except ValueError:
            for key in self._keys.values():
                if key.fileobj is fileobj:
                    return key.fd
            raise

    # ---- the run loop's side ------------------------------------------------------

    def attach(self, loop, mode):
        """Puts every descriptor's source in `mode` of `loop` (a RunLoop)."""
        self._loop = (loop, mode)
        for _, source in self._watches.values():
            self._quietly(loop.add_source, source, mode)

    def detach(self):
        """Takes the sources out of the loop again (they keep their state)."""
        if self._loop is None:
            return
        loop, mode = self._loop
        self._loop = None
        for _, source in self._watches.values():
            self._quietly(loop.remove_source, source, mode)

    @property
    def has_reports(self):
        return bool(self._reports)

    def _report(self, fd, f, events):
        watch = self._watches.get(fd)
        if watch is None or watch[0] != f:
            return  # a descriptor unregistered since
        self._reports[fd] = self._reports.get(fd, 0) | events
        self._on_ready()
