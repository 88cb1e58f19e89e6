# Tests of include/runloop/insight.h and the main-queue integration, beyond
# what cmake/RunLoopTests.cmake gives every Tests/c/test_*.c (included from
# CMakeLists.txt after it, inside if(RUNLOOP_BUILD_TESTS)).
#
#   test_rl_tolerance, test_rl_stall   timing measurements: RUN_SERIAL
#   test_rl_mainqueue, _nofd           dlopen() the toolchain's libdispatch
#                                      (RL_DISPATCH_LIBRARY), no link flag
#   test_main_thread_run_dispatch      test_main_thread_run with libdispatch
#                                      preloaded: the same trace
#   trace_demo_json                    examples/trace_demo writes a trace;
#                                      python3 -m json.tool must accept it
foreach(_rl_t test_rl_tolerance test_rl_stall)
  if(TEST ${_rl_t})
    set_tests_properties(${_rl_t} PROPERTIES RUN_SERIAL ON)
  endif()
endforeach()

foreach(_rl_t test_rl_mainqueue test_rl_mainqueue_nofd)
  if(TARGET ${_rl_t})
    target_compile_definitions(${_rl_t} PRIVATE
      "RL_DISPATCH_LIBRARY=\"${RUNLOOP_SWIFT_RUNTIME_DIR}/libdispatch.so\"")
  endif()
endforeach()

# The main loop behaves the same with and without libdispatch in the
# process: test_main_thread_run checks it has none (the library's static
# runtime brings none), then runs again with libdispatch preloaded.
if(TARGET test_main_thread_run)
  set_tests_properties(test_main_thread_run PROPERTIES ENVIRONMENT "RL_EXPECT_DISPATCH=0")
endif()
if(TARGET test_main_thread_run AND EXISTS "${RUNLOOP_SWIFT_RUNTIME_DIR}/libdispatch.so")
  add_test(NAME test_main_thread_run_dispatch COMMAND test_main_thread_run)
  set_tests_properties(test_main_thread_run_dispatch PROPERTIES
    LABELS c TIMEOUT 30
    ENVIRONMENT "LD_PRELOAD=${RUNLOOP_SWIFT_RUNTIME_DIR}/libdispatch.so;RL_EXPECT_DISPATCH=1")
endif()

find_program(RUNLOOP_PYTHON3 NAMES python3)
if(EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/examples/trace_demo.c" AND RUNLOOP_PYTHON3)
  add_test(NAME trace_demo_json
    COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/scripts/trace-demo.sh"
      --program "$<TARGET_FILE:example_trace_demo>"
      --out "${PROJECT_BINARY_DIR}/trace-demo.json")
  set_tests_properties(trace_demo_json PROPERTIES LABELS "c;trace" TIMEOUT 60)
endif()
