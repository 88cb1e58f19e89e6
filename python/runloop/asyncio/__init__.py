"""asyncio and runloop together.

RunLoopEventLoop: an asyncio event loop that runs on the calling thread's
run loop (RunLoop.run() is its run_forever), so runloop timers, sources and
observers on that thread fire while asyncio code runs:

    import asyncio, runloop.asyncio

    async def main():
        await asyncio.sleep(0.1)
        return 42

    assert runloop.asyncio.run(main()) == 42
    asyncio.run(main(), loop_factory=runloop.asyncio.new_event_loop)   # Python 3.12+
    asyncio.set_event_loop_policy(runloop.asyncio.RunLoopEventLoopPolicy())  # any

attach() does the reverse: a running asyncio loop (any: the default one,
uvloop, ...) drives the calling thread's run loop, through the library's
poll descriptor, timeout and RLRunLoopRunPending (librunloop with the
drive-from-outside API: see available()):

    async def main():
        with runloop.asyncio.attach():          # this thread's run loop, DEFAULT_MODE
            runloop.RunLoop.current().add_timer(runloop.Timer(print, delay=0.1))
            await asyncio.sleep(0.2)            # the timer fires meanwhile
    asyncio.run(main())
"""
import asyncio as _asyncio

from ..constants import DEFAULT_MODE
from ._attach import Attachment, attach, available
from ._eventloop import RunLoopEventLoop

__all__ = ["RunLoopEventLoop", "RunLoopEventLoopPolicy", "new_event_loop", "run",
           "attach", "Attachment", "available"]


def new_event_loop(mode=DEFAULT_MODE) -> RunLoopEventLoop:
    """A new RunLoopEventLoop (a loop_factory for asyncio.run / Runner)."""
    return RunLoopEventLoop(mode)


def run(main, *, debug=None, mode=DEFAULT_MODE):
    """asyncio.run(main) on a new RunLoopEventLoop running `mode` of the
    calling thread's run loop; the loop is closed at the end."""
    if hasattr(_asyncio, "Runner"):  # Python 3.11+
        with _asyncio.Runner(debug=debug, loop_factory=lambda: RunLoopEventLoop(mode)) as runner:
            return runner.run(main)
    return _run_without_runner(main, debug, mode)


def _run_without_runner(main, debug, mode):
    """run() for Python < 3.11 (no asyncio.Runner): asyncio.run's steps."""
    if _asyncio._get_running_loop() is not None:
        raise RuntimeError("runloop.asyncio.run() cannot be called from a running event loop")
    loop = RunLoopEventLoop(mode)
    try:
        _asyncio.set_event_loop(loop)
        if debug is not None:
            loop.set_debug(debug)
        return loop.run_until_complete(main)
    finally:
        try:
            tasks = [task for task in _asyncio.all_tasks(loop) if not task.done()]
            for task in tasks:
                task.cancel()
            if tasks:
                loop.run_until_complete(_asyncio.gather(*tasks, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            if hasattr(loop, "shutdown_default_executor"):
                loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            _asyncio.set_event_loop(None)
            loop.close()


def __getattr__(name):
    # Made on first use: asyncio's policies are deprecated from Python 3.14.
    if name == "RunLoopEventLoopPolicy":
        class RunLoopEventLoopPolicy(_asyncio.DefaultEventLoopPolicy):
            """The default policy, making RunLoopEventLoop loops."""
            _loop_factory = RunLoopEventLoop
        RunLoopEventLoopPolicy.__module__ = __name__
        globals()[name] = RunLoopEventLoopPolicy
        return RunLoopEventLoopPolicy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
