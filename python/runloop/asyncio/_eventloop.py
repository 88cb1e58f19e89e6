"""RunLoopEventLoop: an asyncio event loop that runs on a runloop.

run_forever() is RunLoop.run() of the calling thread's run loop, in one
mode (DEFAULT_MODE unless told otherwise), so the loop's own timers,
sources and observers on that thread fire while asyncio runs, and asyncio
keeps running while runloop code runs the loop.  asyncio's machinery stays
the standard one (BaseEventLoop's ready queue and timer heap, the selector
event loop's transports, streams and servers); what waits and wakes is the
run loop:

- one version-0 source, the "tick": its perform runs one asyncio
  iteration (BaseEventLoop._run_once).  call_soon() signals it (with a
  wake-up) when it is not already pending; call_soon_threadsafe() and
  stop() signal it from any thread.
- one timer, set to the earliest call_at()/call_later() deadline;
- one RLFileDescriptor per descriptor asyncio watches (add_reader,
  add_writer, transports), through RunLoopSelector.

These items sit in the mode only while run_forever() runs (so outside it
asyncio leaves nothing in the run loop), in the run loop of the thread
that runs it.  After each iteration the tick is signalled again if work
is ready, else the timer is set to the next deadline; the run loop sleeps
in between.  An iteration never runs inside another: a callback that runs
the run loop (nested) sees runloop items fire but no asyncio callbacks
until it returns.
"""
import asyncio
import sys
import threading
import weakref
from asyncio import events

from .. import _callbacks, _capi, _signals
from ..constants import DEFAULT_MODE, RunResult
from ..items import Source, Timer
from ..watch import Signal
from ..loop import RunLoop
from ._selector import RunLoopSelector

_signal_and_wake_up = _capi.raw.RLRunLoopSourceSignalAndWakeUp
_set_next_fire_date = _capi.raw.RLRunLoopTimerSetNextFireDate
_now = _capi.raw.RLAbsoluteTimeGetCurrent

_FAR = 1.0e9        # seconds: "not armed" for the timer (it repeats, so it stays valid)
_FOREVER = 1.0e10   # seconds: a run's limit (RunLoop.run's default)


def _weak(method):
    """A callable calling `method` (a bound method) through a weak reference,
    so the run loop's items do not keep the event loop alive."""
    ref = weakref.WeakMethod(method)

    def call(*_):
        function = ref()
        if function is not None:
            function()
    return call


def _weak_2(method):
    """_weak for a method taking two arguments."""
    ref = weakref.WeakMethod(method)

    def call(first, second):
        function = ref()
        if function is not None:
            function(first, second)
    return call


def _weak_1(method):
    """_weak for a method taking one argument."""
    ref = weakref.WeakMethod(method)

    def call(argument):
        function = ref()
        if function is not None:
            function(argument)
    return call


class RunLoopEventLoop(asyncio.SelectorEventLoop):
    """An asyncio event loop whose run_forever() runs the calling thread's
    RunLoop in `mode` (see the module's doc).  Everything else is asyncio's:
    use it like any event loop, or through new_event_loop() / run() /
    RunLoopEventLoopPolicy.  add_signal_handler catches the signal with a
    runloop Signal whose source is in this loop's mode (any thread); Python
    handlers (Ctrl-C under asyncio.Runner) run on the main thread: the run
    loop lets Python's signal handling run while it sleeps (see
    runloop.RunLoop.run)."""

    def __init__(self, mode=DEFAULT_MODE):
        try:
            self._rl_mode_bytes = _capi.mode_bytes(mode)
            self._rl_mode = self._rl_mode_bytes.decode("utf-8")
        except (TypeError, UnicodeDecodeError):
            self._closed = True  # BaseEventLoop.__del__ runs on this half-made object
            raise
        self._rl_loop = None          # the RunLoop while run_forever runs
        self._rl_in_tick = False      # inside _run_once (no nesting)
        self._rl_pending = False      # the tick is signalled and has not run yet
        self._rl_stopping = False     # the tick stopped the run loop for stop()
        self._rl_armed = None         # the deadline (loop.time()) the timer is set to
        self._rl_timer = None         # made for the run loop it is added to
        self._rl_timer_loop = None
        self._rl_signals = {}         # signal number -> (Signal, asyncio Handle)
        self._rl_tick = Source(_weak(self._rl_tick_perform))
        self._rl_selector = RunLoopSelector(_weak(self._rl_descriptor_ready),
                                            _weak_1(self._rl_problem))
        super().__init__(selector=self._rl_selector)

    # ---- running ----------------------------------------------------------------------

    def run_forever(self):
        """Runs the calling thread's run loop in this loop's mode until
        stop().  RuntimeError if closed or already running (also from a
        callback of this loop)."""
        self._check_closed()
        self._check_running()
        loop = RunLoop.current()
        setup = getattr(self, "_run_forever_setup", None)   # Python 3.13+
        if setup is not None:
            setup()
        else:
            self._set_coroutine_origin_tracking(self._debug)
            old_hooks = sys.get_asyncgen_hooks()
            self._thread_id = threading.get_ident()
            sys.set_asyncgen_hooks(firstiter=self._asyncgen_firstiter_hook,
                                   finalizer=self._asyncgen_finalizer_hook)
            events._set_running_loop(self)
        try:
            self._rl_attach(loop)
            self._rl_signal()
            while True:
                result = self._rl_run(loop)
                if self._rl_stopping:
                    break
                if result is RunResult.FINISHED:  # our items were removed behind our back
                    raise RuntimeError("RunLoopEventLoop: the run loop's mode lost the "
                                       "event loop's items")
                # STOPPED by someone else's RunLoop.stop(): asyncio runs on.
        finally:
            self._rl_detach()
            self._rl_stopping = False
            if setup is not None:
                self._run_forever_cleanup()
            else:
                self._stopping = False
                self._thread_id = None
                events._set_running_loop(None)
                self._set_coroutine_origin_tracking(False)
                sys.set_asyncgen_hooks(*old_hooks)

    def stop(self):
        super().stop()
        if not self._rl_in_tick:
            self._rl_signal()

    def close(self):
        """Closes the loop (asyncio's close) and invalidates its runloop
        items.  Idempotent; RuntimeError while running."""
        super().close()
        for watch, _ in self._rl_signals.values():
            watch.invalidate()
        self._rl_signals.clear()
        self._rl_tick.invalidate()
        if self._rl_timer is not None:
            self._rl_timer.invalidate()
            self._rl_timer = None

    # ---- signals ----------------------------------------------------------------------------

    def add_signal_handler(self, sig, callback, *args):
        """asyncio's add_signal_handler on a runloop Signal (RLSignal): the
        signal is caught by the library's handler and delivered through a
        source in this loop's mode, so it works on any thread, with no
        wakeup fd and no Python-level handler.  RuntimeError for a signal
        that cannot be caught, ValueError for an invalid number (as
        asyncio)."""
        if asyncio.iscoroutine(callback) or asyncio.iscoroutinefunction(callback):
            raise TypeError("coroutines cannot be used with add_signal_handler()")
        self._check_signal(sig)
        self._check_closed()
        try:
            watch = Signal(sig, _weak_2(self._rl_signal_arrived))
        except ValueError as error:
            raise RuntimeError(f"sig {sig} cannot be caught") from error
        old = self._rl_signals.pop(sig, None)
        if old is not None:
            old[0].invalidate()
        self._rl_signals[sig] = (watch, events.Handle(callback, args, self, None))
        if self._rl_loop is not None:
            self._rl_loop.add_source(watch.source(), self._rl_mode)

    def remove_signal_handler(self, sig):
        """Removes the handler of `sig` (the disposition it replaced comes
        back); False if it had none."""
        self._check_signal(sig)
        entry = self._rl_signals.pop(sig, None)
        if entry is None:
            return False
        entry[0].invalidate()
        return True

    def _rl_signal_arrived(self, signo, count):
        entry = self._rl_signals.get(signo)
        if entry is not None and not entry[1]._cancelled:
            self._add_callback(entry[1])
            self._rl_signal()

    # ---- scheduling ----------------------------------------------------------------------

    def call_soon(self, callback, *args, context=None):
        handle = super().call_soon(callback, *args, context=context)
        if not self._rl_in_tick and not self._rl_pending:
            self._rl_signal()
        return handle

    def call_at(self, when, callback, *args, context=None):
        handle = super().call_at(when, callback, *args, context=context)
        if (not self._rl_in_tick and self._rl_loop is not None
                and (self._rl_armed is None or handle.when() < self._rl_armed)):
            self._rl_arm(handle.when())
        return handle

    def _write_to_self(self):
        # call_soon_threadsafe's wake-up (any thread): the tick, not the pipe.
        self._rl_signal()

    # ---- the run loop's side ---------------------------------------------------------------

    # The hot paths call the library's bare functions (_capi.raw): these
    # calls cannot fail (this object holds the handles; signalling an
    # invalidated source is a no-op), and the error-checking wrapper would
    # triple their cost.

    def _rl_signal(self):
        """Any thread."""
        self._rl_pending = True
        _signal_and_wake_up(self._rl_tick._handle)

    def _rl_arm(self, when):
        self._rl_armed = when
        _set_next_fire_date(self._rl_timer._handle, _now() + max(0.0, when - self.time()))

    def _rl_attach(self, loop):
        if self._rl_timer is None or self._rl_timer_loop != loop:
            if self._rl_timer is not None:
                self._rl_timer.invalidate()
            # A timer belongs to the first loop it is added to.
            self._rl_timer = Timer(_weak(self._rl_timer_fired), interval=_FAR, delay=_FAR)
            self._rl_timer_loop = loop
        self._rl_armed = None
        mode = self._rl_mode
        loop.add_timer(self._rl_timer, mode)
        try:
            loop.add_source(self._rl_tick, mode)
            self._rl_selector.attach(loop, mode)
            for watch, _ in self._rl_signals.values():
                loop.add_source(watch.source(), mode)
        except BaseException:
            loop.remove_timer(self._rl_timer, mode)
            loop.remove_source(self._rl_tick, mode)
            for watch, _ in self._rl_signals.values():
                if watch.is_valid:
                    loop.remove_source(watch.source(), mode)
            raise
        self._rl_loop = loop

    def _rl_detach(self):
        loop, self._rl_loop = self._rl_loop, None
        if loop is None:
            return
        mode = self._rl_mode
        self._rl_selector.detach()
        loop.remove_source(self._rl_tick, mode)
        for watch, _ in self._rl_signals.values():
            loop.remove_source(watch.source(), mode)
        if self._rl_timer is not None:
            self._rl_timer.next_fire_date = _capi.RLAbsoluteTimeGetCurrent() + _FAR
            loop.remove_timer(self._rl_timer, mode)
        self._rl_armed = None

    def _rl_problem(self, error):
        """What the library reported while running the loop or editing its
        wait set (a descriptor closed while watched: the library dropped
        it): the program's mistake, logged through the exception handler,
        as asyncio's own loop shrugs it off; the loop goes on."""
        self.call_exception_handler({"message": "runloop reported a problem while running "
                                                "the event loop", "exception": error})

    def _rl_run(self, loop):
        """RunLoop.run(mode) for ever, except that what the library reports
        during it goes to _rl_problem instead of being raised at its end;
        exceptions of callouts are raised as by RunLoop.run."""
        with _callbacks.waiting(), _signals.watching(loop._handle):
            result, error = _capi.call_quietly(_capi.RLRunLoopRunInMode, self._rl_mode_bytes,
                                               _FOREVER, 0)
        if error is not None:
            self._rl_problem(error)
        return RunResult(result) if result is not None else None

    def _rl_tick_perform(self):
        self._rl_pending = False
        self._rl_iterate()

    def _rl_timer_fired(self):
        self._rl_armed = None
        self._rl_iterate()

    def _rl_descriptor_ready(self):
        self._rl_iterate()

    def _rl_iterate(self):
        """One asyncio iteration, on the run loop's thread, then what makes
        the run loop come back: the tick if work is ready, the timer for
        the next deadline, or RunLoop.stop() for stop()."""
        if self._rl_in_tick or self._rl_loop is None or self._thread_id != threading.get_ident():
            return  # nested in an iteration, or not running here
        self._rl_in_tick = True
        try:
            reported = _capi.take_enclosing_error()
            if reported is not None:
                self._rl_problem(reported)
            self._run_once()
        finally:
            self._rl_in_tick = False
        if self._stopping:
            self._rl_stopping = True
            self._rl_loop.stop()
        elif self._ready or self._rl_selector.has_reports:
            self._rl_signal()
        elif self._scheduled:
            when = self._scheduled[0]._when
            if when != self._rl_armed:
                self._rl_arm(when)
