"""What runloop.asyncio costs, against the native ways (not a test).

    RUNLOOP_LIBRARY=build/librunloop.so.0 PYTHONPATH=python python3 python/tests/bench_asyncio.py

RunLoopEventLoop against asyncio's own loop, running the same program:
  tcp ping-pong   one byte back and forth over loopback TCP (streams)
  sleep(0)        one task yielding (an iteration of the loop)
attach() against RunLoop.run(), driving the same run loop:
  cross-thread    a perform to a worker Thread and one back (two wake-ups)
  timer           a timer re-armed from its callout to fire at once
Medians of 5 runs, microseconds per operation.
"""
import asyncio
import statistics
import threading
import time

import runloop
import runloop.asyncio as rl_asyncio

MODE = "bench.asyncio"
RUNS = 5


def median_us(measure, count):
    return statistics.median(measure(count) for _ in range(RUNS)) / count * 1e6


# ---- asyncio programs -------------------------------------------------------------------

async def tcp_ping_pong(count):
    async def echo(reader, writer):
        while data := await reader.read(100):
            writer.write(data)
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
    start = time.perf_counter()
    for _ in range(count):
        writer.write(b"x")
        await reader.read(100)
    elapsed = time.perf_counter() - start
    writer.close()
    await writer.wait_closed()
    server.close()
    await server.wait_closed()
    return elapsed


async def yields(count):
    start = time.perf_counter()
    for _ in range(count):
        await asyncio.sleep(0)
    return time.perf_counter() - start


def on_loop(factory, program):
    def measure(count):
        loop = factory()
        try:
            return loop.run_until_complete(program(count))
        finally:
            loop.close()
    return measure


# ---- driving a run loop -------------------------------------------------------------------
# A driver runs the calling thread's run loop in MODE, calls begin(finish)
# from inside it, and returns once finish() was called.

def run_natively(begin):
    loop = runloop.RunLoop.current()
    keep = runloop.Source(lambda: None)  # the mode is never empty
    loop.add_source(keep, MODE)
    loop.perform(lambda: begin(loop.stop), MODE)
    result = loop.run(MODE, 60)
    keep.invalidate()
    assert result is runloop.RunResult.STOPPED, result


def run_attached(begin):
    async def drive():
        done = asyncio.Event()
        with rl_asyncio.attach(mode=MODE):
            runloop.RunLoop.current().perform(lambda: begin(done.set), MODE)
            await asyncio.wait_for(done.wait(), 60)
    asyncio.run(drive())


def cross_thread(driver):
    def measure(count):
        loop = runloop.RunLoop.current()
        left, times = [count], []
        with runloop.Thread("bench") as worker:
            def begin(finish):
                def ping():
                    left[0] -= 1
                    if left[0] == 0:
                        times.append(time.perf_counter())
                        finish()
                    else:
                        worker.perform(lambda: loop.perform(ping, MODE))
                times.append(time.perf_counter())
                ping()
            driver(begin)
        return times[1] - times[0]
    return measure


def timer_rounds(driver):
    def measure(count):
        loop = runloop.RunLoop.current()
        left, times = [count], []

        def begin(finish):
            def fired(timer):
                left[0] -= 1
                if left[0] == 0:
                    timer.invalidate()
                    times.append(time.perf_counter())
                    finish()
                else:
                    timer.next_fire_date = runloop.absolute_time()
            times.append(time.perf_counter())
            loop.add_timer(runloop.Timer(fired, interval=1000.0), MODE)
        driver(begin)
        return times[1] - times[0]
    return measure


def main():
    print(f"{'(us per operation, median of 5)':34} {'asyncio':>12} {'RunLoopEventLoop':>17}")
    for name, program, count in (("tcp ping-pong", tcp_ping_pong, 3000), ("sleep(0)", yields, 20000)):
        native = median_us(on_loop(asyncio.new_event_loop, program), count)
        ours = median_us(on_loop(rl_asyncio.new_event_loop, program), count)
        print(f"{name:34} {native:12.1f} {ours:17.1f}")
    if not rl_asyncio.available():
        print("attach(): the loaded library has no embed API")
        return
    print(f"{'':34} {'RunLoop.run':>12} {'attach()':>17}")
    for name, make, count in (("cross-thread perform and back", cross_thread, 3000),
                              ("timer fired and re-armed", timer_rounds, 5000)):
        native = median_us(make(run_natively), count)
        attached = median_us(make(run_attached), count)
        print(f"{name:34} {native:12.1f} {attached:17.1f}")


if __name__ == "__main__":
    main()
