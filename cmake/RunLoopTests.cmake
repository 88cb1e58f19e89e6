# Tests of the CMake build (included from CMakeLists.txt when
# RUNLOOP_BUILD_TESTS is ON).
#
#   Tests/c/test_*.c         one program each, ctest name = file stem, 30 s
#                            timeout; built with the system C compiler (gcc).
#   Tests/c/test_*_blocks*.c built with the toolchain clang -fblocks and
#                            linked with BlocksRuntime (skipped without them).
#   Tests/c/*.c (others)     support code linked into every C test.
#   memcheck_<stem>          the same program under valgrind (label memcheck):
#                            definite/indirect leaks, memory errors and crashes
#                            fail (see cmake/memcheck.sh).
#   abi_*                    the header matches what the Swift core exports
#                            (Tests/abi).
#
# A program passes by exiting 0.  RL_TRACE_DIR is the Tests/traces directory.

set(_rl_src "${CMAKE_CURRENT_SOURCE_DIR}")
set(_rl_trace_dir "${_rl_src}/Tests/traces")
set(_rl_test_timeout 30)

find_program(RUNLOOP_VALGRIND NAMES valgrind)
if(NOT RUNLOOP_VALGRIND)
  message(STATUS "valgrind not found: no memcheck_* tests")
endif()

file(GLOB RUNLOOP_C_TESTS CONFIGURE_DEPENDS "${_rl_src}/Tests/c/test_*.c")
file(GLOB _rl_all_test_c CONFIGURE_DEPENDS "${_rl_src}/Tests/c/*.c")
file(GLOB RUNLOOP_C_TEST_HEADERS CONFIGURE_DEPENDS "${_rl_src}/Tests/c/*.h")
set(RUNLOOP_C_TEST_SUPPORT ${_rl_all_test_c})
if(RUNLOOP_C_TESTS)
  list(REMOVE_ITEM RUNLOOP_C_TEST_SUPPORT ${RUNLOOP_C_TESTS})
endif()
list(LENGTH RUNLOOP_C_TESTS _rl_n_tests)
message(STATUS "C tests: ${_rl_n_tests} (Tests/c/test_*.c)")

set(_rl_have_blocks OFF)
if(RUNLOOP_CLANG AND RUNLOOP_BLOCKS_RUNTIME)
  set(_rl_have_blocks ON)
endif()

if(RUNLOOP_C_TEST_SUPPORT)
  add_library(runloop_test_support STATIC ${RUNLOOP_C_TEST_SUPPORT})
  set_target_properties(runloop_test_support PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
  target_compile_definitions(runloop_test_support PUBLIC
    "RL_TRACE_DIR=\"${_rl_trace_dir}\"")
  target_include_directories(runloop_test_support PUBLIC
    "${_rl_src}/include" "${_rl_src}/Tests/c")
  target_link_libraries(runloop_test_support PUBLIC runloop Threads::Threads)
endif()

# memcheck_<stem>: run a test program under valgrind (cmake/memcheck.sh):
# fails on memory errors, definite/indirect leaks or a crash; a program
# whose own checks fail under valgrind but whose memory is clean is reported
# as skipped (its plain test judges behaviour).  Each run writes its outcome
# (clean / waived / fail) to <build>/memcheck/memcheck_<stem>.result, which
# cmake/memcheck_summary.sh counts (scripts/test.sh prints the count).
function(runloop_add_memcheck stem)
  if(NOT RUNLOOP_VALGRIND)
    return()
  endif()
  add_test(NAME memcheck_${stem}
    COMMAND bash "${_rl_src}/cmake/memcheck.sh" "${RUNLOOP_VALGRIND}"
      "${_rl_src}/Tests/valgrind.supp" ${ARGN})
  set_tests_properties(memcheck_${stem} PROPERTIES
    LABELS memcheck
    SKIP_RETURN_CODE 77
    TIMEOUT ${RUNLOOP_MEMCHECK_TIMEOUT}
    ENVIRONMENT "RUNLOOP_MEMCHECK_RESULT=${PROJECT_BINARY_DIR}/memcheck/memcheck_${stem}.result")
endfunction()

# runloop_add_c_test(name src [definitions...]): a C test program linked
# against the library, and its ctest (label c).
function(runloop_add_c_test name src)
  add_executable(${name} "${src}")
  set_target_properties(${name} PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
  target_compile_options(${name} PRIVATE -Wall -Wextra)
  target_compile_definitions(${name} PRIVATE "RL_TRACE_DIR=\"${_rl_trace_dir}\"" ${ARGN})
  target_include_directories(${name} PRIVATE "${_rl_src}/include" "${_rl_src}/Tests/c")
  target_link_libraries(${name} PRIVATE runloop Threads::Threads)
  if(TARGET runloop_test_support)
    target_link_libraries(${name} PRIVATE runloop_test_support)
  endif()
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS c TIMEOUT ${_rl_test_timeout})
endfunction()

foreach(_rl_test_src IN LISTS RUNLOOP_C_TESTS)
  get_filename_component(_rl_stem "${_rl_test_src}" NAME_WE)

  if(_rl_stem MATCHES "_blocks")
    if(NOT _rl_have_blocks)
      message(STATUS "${_rl_stem}: skipped (needs the toolchain clang and BlocksRuntime)")
      continue()
    endif()
    # The C compiler of the project is gcc (no blocks): compile this one
    # with the Swift toolchain's clang in a custom command (DWARF 4: the
    # valgrind 3.19 of Debian 12 cannot read clang's DWARF 5).
    set(_rl_exe "${PROJECT_BINARY_DIR}/${_rl_stem}")
    get_filename_component(_rl_blocks_dir "${RUNLOOP_BLOCKS_RUNTIME}" DIRECTORY)
    # RUNPATH applies to an object's own DT_NEEDED only: the test needs the
    # BlocksRuntime directory itself, librunloop's RUNPATH does not cover it.
    set(_rl_blocks_rpath "$<TARGET_FILE_DIR:runloop>:${_rl_blocks_dir}")
    add_custom_command(
      OUTPUT "${_rl_exe}"
      COMMAND "${RUNLOOP_CLANG}" -std=gnu11 -fblocks -gdwarf-4 -O1 -Wall -Wextra
        "-DRL_TRACE_DIR=\"${_rl_trace_dir}\""
        "-I${_rl_src}/include" "-I${_rl_src}/Tests/c"
        -MD -MF "${_rl_exe}.d"
        "${_rl_test_src}" ${RUNLOOP_C_TEST_SUPPORT}
        -o "${_rl_exe}"
        "$<TARGET_FILE:runloop>"
        "-L${_rl_blocks_dir}" -lBlocksRuntime -lpthread
        "-Wl,-rpath,${_rl_blocks_rpath}"
      DEPENDS "${_rl_test_src}" ${RUNLOOP_C_TEST_SUPPORT} runloop
      DEPFILE "${_rl_exe}.d"
      COMMENT "Building C test ${_rl_stem} with clang -fblocks"
      VERBATIM)
    add_custom_target(${_rl_stem}_exe ALL DEPENDS "${_rl_exe}")
    add_test(NAME ${_rl_stem} COMMAND "${_rl_exe}")
    set_tests_properties(${_rl_stem} PROPERTIES
      LABELS "c;blocks" TIMEOUT ${_rl_test_timeout})
    runloop_add_memcheck(${_rl_stem} "${_rl_exe}")
    continue()
  endif()

  runloop_add_c_test(${_rl_stem} "${_rl_test_src}")
  runloop_add_memcheck(${_rl_stem} "$<TARGET_FILE:${_rl_stem}>")
endforeach()

# It reads the library's symbol table: skipped when the library is stripped.
if(TARGET test_rl_callout_frames)
  set_tests_properties(test_rl_callout_frames PROPERTIES SKIP_RETURN_CODE 77)
endif()

# Stops from another thread racing the loop's sleep and its thread's exit,
# many rounds: a stress test as well as a C test.
if(TARGET test_rl_stop_race)
  set_tests_properties(test_rl_stop_race PROPERTIES LABELS "c;stress")
endif()

# The opt-in inline fast paths (<runloop/fastpath.h>) only skip calls that
# would change nothing: the scenarios that exercise those calls (stale,
# wrong-kind and NULL handles included) give the same trace with the fast
# paths included (RL_TEST_INLINE_FAST_PATHS, see harness.h) as with the
# library doing every check (the plain tests).
foreach(_rl_stem test_rl_signal_wake test_rl_signal_ring test_rl_errors)
  if(TARGET ${_rl_stem})
    runloop_add_c_test(${_rl_stem}_inline "${_rl_src}/Tests/c/${_rl_stem}.c" RL_TEST_INLINE_FAST_PATHS)
  endif()
endforeach()

# Spin-then-sleep waiting is on by default; the same scenario must give the
# same trace with it turned off.
if(TARGET test_rl_spin_wait)
  add_test(NAME test_rl_spin_wait_nospin COMMAND test_rl_spin_wait)
  set_tests_properties(test_rl_spin_wait_nospin PROPERTIES
    LABELS c ENVIRONMENT "RUNLOOP_SPIN_US=0" TIMEOUT ${_rl_test_timeout})
  # Pinned to one CPU, where the loop must not spin (nor lose anything).
  find_program(RUNLOOP_TASKSET taskset)
  if(RUNLOOP_TASKSET)
    add_test(NAME test_rl_spin_wait_onecpu COMMAND "${RUNLOOP_TASKSET}" -c 0 $<TARGET_FILE:test_rl_spin_wait>)
    set_tests_properties(test_rl_spin_wait_onecpu PROPERTIES LABELS c TIMEOUT ${_rl_test_timeout})
  endif()
endif()

# ---------------------------------------------------------------------------
# ABI checks (Tests/abi): the hand-written header and the Swift exports agree.
# ---------------------------------------------------------------------------
# The generated header declares block-typed parameters without a __BLOCKS__
# guard, so the type check needs clang -fblocks; gcc (with -isystem) is the
# fallback and only works while no block-taking function is exported.
if(RUNLOOP_CLANG)
  set(_rl_abi_cc "${RUNLOOP_CLANG}")
  set(_rl_abi_flags -std=gnu11 -fblocks -fsyntax-only)
else()
  message(WARNING "clang not found: ABI conflict check uses ${CMAKE_C_COMPILER} "
    "(fails if the core exports block-taking functions)")
  set(_rl_abi_cc "${CMAKE_C_COMPILER}")
  set(_rl_abi_flags -std=gnu11 -fsyntax-only)
endif()

# 1. Every signature Swift exports (generated RunLoopCore-Swift.h) is
#    compatible with the header's: drift fails with "conflicting types".
add_test(NAME abi_conflict_check
  COMMAND "${_rl_abi_cc}" ${_rl_abi_flags}
    "-I${_rl_src}/include" -isystem "${RUNLOOP_GENERATED_DIR}"
    "${_rl_src}/Tests/abi/conflict_check.c")
set_tests_properties(abi_conflict_check PROPERTIES LABELS abi TIMEOUT 60)

# 1b. The same compiler invocation does reject a drifted redeclaration (so a
#     flag change cannot silently disarm check 1).
add_test(NAME abi_conflict_selftest
  COMMAND "${_rl_abi_cc}" ${_rl_abi_flags}
    "-I${_rl_src}/include" -isystem "${RUNLOOP_GENERATED_DIR}"
    "${_rl_src}/Tests/abi/conflict_selftest.c")
set_tests_properties(abi_conflict_selftest PROPERTIES
  LABELS abi TIMEOUT 60
  PASS_REGULAR_EXPRESSION "conflicting types")

# 2. The functions declared in include/runloop/*.h (blocks ones included),
#    the functions Swift declares in the generated header, and the RL*
#    functions librunloop.so exports are the same set; nothing else is
#    exported; SONAME and RUNPATH are right.
add_test(NAME abi_symbols_check
  COMMAND bash "${_rl_src}/Tests/abi/symbols_check.sh"
    --lib "$<TARGET_FILE:runloop>"
    --include "${_rl_src}/include"
    --swift-header "${RUNLOOP_SWIFT_HEADER}"
    --cc "${_rl_abi_cc}"
    --strict-exports
    --soname "librunloop.so.${PROJECT_VERSION_MAJOR}"
    "$<IF:$<BOOL:${RUNLOOP_STATIC_SWIFT_RUNTIME}>,--self-contained,--runpath=${RUNLOOP_SWIFT_RUNTIME_DIR}>")
set_tests_properties(abi_symbols_check PROPERTIES LABELS abi TIMEOUT 60)

# 3. The public header alone is clean C99 for gcc (-Wall -Wextra -Wpedantic
#    -Werror) and C++.
add_test(NAME abi_header_c99
  COMMAND "${CMAKE_C_COMPILER}" -std=c99 -Wall -Wextra -Wpedantic -Werror
    -fsyntax-only "-I${_rl_src}/include" "${_rl_src}/Tests/abi/header_only.c")
set_tests_properties(abi_header_c99 PROPERTIES LABELS abi TIMEOUT 60)
find_program(RUNLOOP_CXX NAMES c++ g++ clang++)
if(RUNLOOP_CXX)
  add_test(NAME abi_header_cxx
    COMMAND "${RUNLOOP_CXX}" -x c++ -std=c++11 -Wall -Wextra -Werror
      -fsyntax-only "-I${_rl_src}/include" "${_rl_src}/Tests/abi/header_only.c")
  set_tests_properties(abi_header_cxx PROPERTIES LABELS abi TIMEOUT 60)
endif()
