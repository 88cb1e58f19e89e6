"""Library errors become Python exceptions raised by the failing call, on
the thread that made it, with the library's code, function and message."""
import threading

import pytest

import runloop
from runloop import ErrorCode, InvalidArgumentError, LoopGoneError, RunLoopError, _capi


def test_a_refused_creation_carries_the_librarys_code_and_message():
    with pytest.raises(InvalidArgumentError) as caught:
        runloop.Timer(lambda t: None, fire_date=float("nan"))
    error = caught.value
    assert isinstance(error, ValueError) and isinstance(error, RunLoopError)
    assert error.code is ErrorCode.INVALID_ARGUMENT
    assert error.function == "RLRunLoopTimerCreate"
    assert error.message.startswith("RLRunLoopTimerCreate: invalid argument")
    assert "Timer: the library refused to create it" in str(error) and error.message in str(error)


def test_adding_to_the_loop_of_an_exited_thread_raises_loop_gone(mode, dead_loop):
    loop = dead_loop
    with pytest.raises(LoopGoneError, match="RLRunLoopAddTimer: the run loop's thread has exited") as caught:
        loop.add_timer(runloop.Timer(lambda t: None, delay=100), mode)
    assert caught.value.code is ErrorCode.LOOP_GONE
    with pytest.raises(LoopGoneError, match="RLRunLoopPerformFunction"):
        loop.perform(lambda: None, mode)


def test_a_timer_of_another_loop_raises_wrong_loop(mode, loop_thread):
    timer = runloop.Timer(lambda t: None, delay=100)
    runloop.RunLoop.current().add_timer(timer, mode)
    with loop_thread as worker:
        with pytest.raises(RunLoopError) as caught:
            worker.loop.add_timer(timer, worker.mode)
    assert caught.value.code is ErrorCode.WRONG_LOOP and caught.value.function == "RLRunLoopAddTimer"
    timer.invalidate()


def test_a_raised_error_is_not_also_written_to_stderr(mode, capfd, dead_loop):
    with pytest.raises(LoopGoneError):
        dead_loop.add_source(runloop.Source(lambda: None), mode)
    assert capfd.readouterr().err == ""


def test_an_error_outside_a_python_call_goes_to_stderr_as_before(capfd):
    _capi.raw.RLRunLoopStop(None)  # C code calling the library directly
    assert capfd.readouterr().err == "runloop: RLRunLoopStop: NULL handle\n"
    runloop.RunLoop.current().wake_up()  # the next call does not raise it


def test_an_error_in_a_callout_is_raised_inside_the_callout(mode, dead_loop):
    loop = runloop.RunLoop.current()
    gone = dead_loop
    caught = []

    def tick(timer):
        try:
            gone.perform(lambda: None)
        except LoopGoneError as error:
            caught.append(error.function)

    loop.add_timer(runloop.Timer(tick, delay=0), mode)
    assert loop.run(mode, 30) is runloop.RunResult.FINISHED  # the run itself did not fail
    assert caught == ["RLRunLoopPerformFunction"]


def test_errors_stay_with_the_thread_that_made_the_call(mode, dead_loop):
    gone = dead_loop
    failures, clean, start = [], [], threading.Barrier(2)

    def failing():
        start.wait()
        for _ in range(300):
            try:
                gone.wake_up()  # harmless no-op on a dead loop: no error
                gone.perform(lambda: None, mode)
            except LoopGoneError:
                failures.append(1)

    def succeeding():
        start.wait()
        loop = runloop.RunLoop.current()
        for _ in range(300):
            loop.wake_up()
            loop.add_common_mode(mode)
            clean.append(1)

    threads = [threading.Thread(target=failing), threading.Thread(target=succeeding)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(failures) == 300 and len(clean) == 300


def test_bad_items_and_closed_wrappers_are_python_errors(mode):
    loop = runloop.RunLoop.current()
    with pytest.raises(TypeError, match="add_timer: expected a Timer, got NoneType"):
        loop.add_timer(None, mode)
    with pytest.raises(TypeError, match="expected a Source, got Timer"):
        loop.add_source(runloop.Timer(lambda t: None), mode)
    timer = runloop.Timer(lambda t: None)
    timer._release()
    with pytest.raises(ValueError, match="Timer is closed"):
        loop.add_timer(timer, mode)


def test_error_pickles_with_its_fields():
    import pickle
    error = pickle.loads(pickle.dumps(RunLoopError(2, "RLRetain", "RLRetain: stale or unknown handle")))
    assert (error.code, error.function, str(error)) == (ErrorCode.STALE_HANDLE, "RLRetain",
                                                        "RLRetain: stale or unknown handle")
