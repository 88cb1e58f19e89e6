"""asyncio and runloop together.

RunLoopEventLoop: an asyncio event loop that runs on the calling thread's
run loop (RunLoop.run() is its run_forever), so runloop timers, sources and
observers on that thread fire while asyncio code runs:

    import asyncio, runloop.asyncio

    async def main():
        await asyncio.sleep(0.1)
        return 42

    assert runloop.asyncio.run(main()) == 42                 # Python 3.11+
    asyncio.run(main(), loop_factory=runloop.asyncio.new_event_loop)   # 3.12+
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


class RunLoopEventLoopPolicy(_asyncio.DefaultEventLoopPolicy):
    """The default policy, making RunLoopEventLoop loops."""
    _loop_factory = RunLoopEventLoop


def run(main, *, debug=None, mode=DEFAULT_MODE):
    """asyncio.run(main) on a new RunLoopEventLoop (closed at the end)."""
    with _asyncio.Runner(debug=debug, loop_factory=lambda: RunLoopEventLoop(mode)) as runner:
        return runner.run(main)
