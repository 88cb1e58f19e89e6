"""The standard library's asyncio tests, run on runloop.asyncio.RunLoopEventLoop.

    RUNLOOP_LIBRARY=build/librunloop.so.0 PYTHONPATH=python \\
        python3 python/tests/stdlib_asyncio.py [--policy] [-v] [-k pattern]

Needs a Python that ships its test suite (test.test_asyncio; Debian/Ubuntu:
package libpython3.X-testsuite).  Two parts:

  loop     the event-loop test mixins that take a loop factory
           (test_events.EventLoopTestsMixin with SubprocessTestsMixin,
           test_sock_lowlevel, test_sendfile), subclassed with
           create_event_loop() returning a RunLoopEventLoop: the same tests
           CPython runs against each of its selector loops;
  --policy also whole modules whose tests make their loops with
           asyncio.new_event_loop() (tasks, streams, locks, queues, ...),
           with RunLoopEventLoopPolicy as the default policy.

Not part of ctest (it takes a few minutes); python/README.md records the
last counts.  Exit status 0 when nothing failed.
"""
import argparse
import asyncio
import sys
import unittest

import runloop.asyncio as rl_asyncio

try:
    from test.test_asyncio import test_events, test_sendfile, test_sock_lowlevel
    from test.test_asyncio import utils as test_utils
except ImportError as error:  # pragma: no cover - depends on the Python build
    sys.exit(f"stdlib_asyncio: this Python has no test.test_asyncio ({error})")


class RunLoopEventLoopTests(test_events.UnixEventLoopTestsMixin,
                            test_events.SubprocessTestsMixin,
                            test_utils.TestCase):
    def create_event_loop(self):
        return _CountingLoop()


class RunLoopSockTests(test_sock_lowlevel.BaseSockTestsMixin, test_utils.TestCase):
    def create_event_loop(self):
        return _CountingLoop()


class RunLoopSendfileTests(test_sendfile.SendfileTestsBase, test_utils.TestCase):
    def create_event_loop(self):
        return _CountingLoop()


_made = []


class _CountingLoop(rl_asyncio.RunLoopEventLoop):
    """Counts the loops made, to show the tests ran on RunLoopEventLoop."""

    def __init__(self, *args, **kwargs):
        _made.append(1)
        super().__init__(*args, **kwargs)


rl_asyncio.RunLoopEventLoopPolicy._loop_factory = _CountingLoop


# Modules whose tests use asyncio.new_event_loop() (through the policy).
POLICY_MODULES = ["test_tasks", "test_futures", "test_futures2", "test_locks", "test_queues",
                  "test_streams", "test_server", "test_taskgroups", "test_timeouts",
                  "test_waitfor", "test_runners", "test_context", "test_pep492",
                  "test_buffered_proto", "test_threads", "test_subprocess"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", action="store_true", help="also run POLICY_MODULES")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("-k", dest="pattern", action="append", help="only tests matching")
    args = parser.parse_args()

    loader = unittest.TestLoader()
    if args.pattern:
        loader.testNamePatterns = [f"*{p}*" for p in args.pattern]
    suite = unittest.TestSuite()
    for case in (RunLoopEventLoopTests, RunLoopSockTests, RunLoopSendfileTests):
        suite.addTests(loader.loadTestsFromTestCase(case))
    if args.policy:
        # The modules' tearDownModule() resets the policy to None; the
        # default one is then made from asyncio.DefaultEventLoopPolicy.
        asyncio.DefaultEventLoopPolicy = rl_asyncio.RunLoopEventLoopPolicy
        asyncio.set_event_loop_policy(None)
        for name in POLICY_MODULES:
            try:
                module = __import__(f"test.test_asyncio.{name}", fromlist=["_"])
            except ImportError:
                continue
            suite.addTests(loader.loadTestsFromModule(module))
    result = unittest.TextTestRunner(verbosity=2 if args.verbose else 1).run(suite)
    print(f"stdlib_asyncio: ran {result.testsRun}, failures {len(result.failures)}, "
          f"errors {len(result.errors)}, skipped {len(result.skipped)}, "
          f"expected failures {len(result.expectedFailures)}; "
          f"{len(_made)} RunLoopEventLoop made")
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
