# Misuse, stress and model tests (issue 7 §3–§4); included from
# CMakeLists.txt when RUNLOOP_BUILD_TESTS is ON, after RunLoopTests.cmake
# (uses its runloop_add_memcheck).
#
#   test_misuse     bad values and wrong calls, exact trace (Tests/traces/misuse.trace)
#   stress_threads  threads add/remove/signal/wake/stop/perform/invalidate against
#                   running loops for RUNLOOP_STRESS_SECONDS, then invariants
#   stress_churn    10,000 threads with items scheduled exit; RSS and context
#                   retain/release counts stay flat
#   stress_ports    20,000 checksummed requests and one-way messages between
#                   processes (nothing lost, duplicated, corrupted); then the
#                   server killed with SIGKILL: every sender fails within 0.5 s
#   test_model      100,000 random operations checked against Tests/model/model.c
#                   (RUNLOOP_MODEL_OPS; seed printed on failure)
#   memcheck_test_misuse, memcheck_test_model   the same under valgrind
#
# The sanitizer builds (TSan stress, ASan C tests, libFuzzer) are not ctest
# tests: Tests/stress/sanitizers.sh, run by scripts/test.sh.

set(RUNLOOP_STRESS_SECONDS 2 CACHE STRING "Duration (s) of stress_threads")
set(RUNLOOP_MODEL_OPS 100000 CACHE STRING "Operations of test_model")

set(_rl_hard_src "${CMAKE_CURRENT_SOURCE_DIR}")

function(runloop_hardening_exe name)
  add_executable(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
  target_compile_options(${name} PRIVATE -Wall -Wextra)
  target_compile_definitions(${name} PRIVATE "RL_TRACE_DIR=\"${_rl_hard_src}/Tests/traces\"")
  target_include_directories(${name} PRIVATE "${_rl_hard_src}/include" "${_rl_hard_src}/Tests/c")
  target_link_libraries(${name} PRIVATE runloop Threads::Threads)
endfunction()

runloop_hardening_exe(test_misuse "${_rl_hard_src}/Tests/stress/test_misuse.c")
add_test(NAME test_misuse COMMAND test_misuse)
set_tests_properties(test_misuse PROPERTIES LABELS "c;stress" TIMEOUT 30)
runloop_add_memcheck(test_misuse "$<TARGET_FILE:test_misuse>")

runloop_hardening_exe(stress_threads "${_rl_hard_src}/Tests/stress/stress_threads.c")
add_test(NAME stress_threads COMMAND stress_threads ${RUNLOOP_STRESS_SECONDS})
set_tests_properties(stress_threads PROPERTIES LABELS stress TIMEOUT 60)

runloop_hardening_exe(stress_churn "${_rl_hard_src}/Tests/stress/stress_churn.c")
add_test(NAME stress_churn COMMAND stress_churn 10000)
set_tests_properties(stress_churn PROPERTIES LABELS stress TIMEOUT 120)

runloop_hardening_exe(stress_ports "${_rl_hard_src}/Tests/stress/stress_ports.c")
add_test(NAME stress_ports COMMAND stress_ports 20000)
set_tests_properties(stress_ports PROPERTIES LABELS stress TIMEOUT 120)

runloop_hardening_exe(test_model
  "${_rl_hard_src}/Tests/model/test_model.c" "${_rl_hard_src}/Tests/model/model.c")
add_test(NAME test_model COMMAND test_model --ops ${RUNLOOP_MODEL_OPS} --quiet)
set_tests_properties(test_model PROPERTIES LABELS "stress;model" TIMEOUT 120)
runloop_add_memcheck(test_model "$<TARGET_FILE:test_model>" --ops 5000 --quiet)
