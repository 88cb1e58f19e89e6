# Benchmark programs (Benchmarks/*.c), built with -DRUNLOOP_BUILD_BENCHMARKS=ON
# and run by scripts/bench.sh.  Programs, not tests: nothing here is added
# to ctest.
#
#   bench_runloop  bench_runloop_mem   runloop          (Benchmarks/bench_loop.c)
#   bench_cf       bench_cf_mem        toolchain CF     (same source, -DBENCH_CF)
#   bench_glib     bench_glib_mem      GLib GMainContext (libglib2.0-dev)
#   bench_uv       bench_uv_mem        libuv            (libuv1-dev)
#   bench_floor                        raw eventfd/epoll/timerfd
#   bench_runloop_glib, bench_runloop_uv   runloop driven from GLib / libuv
#                                      through adapters/ (same source,
#                                      -DBENCH_DRIVER_GLIB / _UV)
# The *_mem variants link Benchmarks/malloc_count.c (a counting malloc).
# Peers whose library is missing are skipped with a message.

option(RUNLOOP_BUILD_BENCHMARKS "Build the benchmark programs (scripts/bench.sh)" OFF)
if(NOT RUNLOOP_BUILD_BENCHMARKS)
  return()
endif()

set(_rlb_dir "${CMAKE_CURRENT_SOURCE_DIR}/Benchmarks")
# -falign-loops=64: the rows of a few ns per call (2b) time a loop of five
# instructions around one call, whose speed moved by ~12% with where the
# loop happened to fall (libuv's one call: 3.2 or 3.6 ns for the same code
# placed differently); aligned, every program's loop starts a line.
set(_rlb_flags -O2 -g -Wall -Wextra -falign-loops=64)

function(runloop_bench name source)
  cmake_parse_arguments(B "" "" "LIBS;INCLUDES;DEFS" ${ARGN})
  foreach(_v "" "_mem")
    set(_srcs "${source}")
    if(_v STREQUAL "_mem")
      list(APPEND _srcs "${_rlb_dir}/malloc_count.c")
    endif()
    add_executable(${name}${_v} ${_srcs})
    set_target_properties(${name}${_v} PROPERTIES C_STANDARD 11 C_EXTENSIONS ON
      RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bench")
    target_compile_options(${name}${_v} PRIVATE ${_rlb_flags})
    target_include_directories(${name}${_v} PRIVATE ${B_INCLUDES})
    target_compile_definitions(${name}${_v} PRIVATE ${B_DEFS})
    target_link_libraries(${name}${_v} PRIVATE ${B_LIBS} Threads::Threads)
  endforeach()
endfunction()

runloop_bench(bench_runloop "${_rlb_dir}/bench_loop.c" LIBS runloop)
# runloop driven through the adapters (cmake/Adapters.cmake): ping-pong and
# timers only (scripts/bench.sh), against bench_runloop.
if(TARGET rl_glib)
  runloop_bench(bench_runloop_glib "${_rlb_dir}/bench_loop.c" LIBS rl_glib DEFS BENCH_DRIVER_GLIB)
endif()
if(TARGET rl_uv)
  runloop_bench(bench_runloop_uv "${_rlb_dir}/bench_loop.c" LIBS rl_uv DEFS BENCH_DRIVER_UV)
endif()

add_executable(bench_floor "${_rlb_dir}/bench_floor.c")
set_target_properties(bench_floor PROPERTIES C_STANDARD 11 C_EXTENSIONS ON
  RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/bench")
target_compile_options(bench_floor PRIVATE ${_rlb_flags})
target_link_libraries(bench_floor PRIVATE Threads::Threads)

find_package(PkgConfig)
if(PkgConfig_FOUND)
  pkg_check_modules(RLB_GLIB IMPORTED_TARGET glib-2.0)
  pkg_check_modules(RLB_UV IMPORTED_TARGET libuv)
endif()
if(RLB_GLIB_FOUND)
  runloop_bench(bench_glib "${_rlb_dir}/bench_glib.c" LIBS PkgConfig::RLB_GLIB)
else()
  message(STATUS "benchmarks: glib-2.0 not found (apt-get install libglib2.0-dev): no bench_glib")
endif()
if(RLB_UV_FOUND)
  runloop_bench(bench_uv "${_rlb_dir}/bench_uv.c" LIBS PkgConfig::RLB_UV)
else()
  message(STATUS "benchmarks: libuv not found (apt-get install libuv1-dev): no bench_uv")
endif()

# CoreFoundation's headers build with clang -fblocks only: the CF programs
# are compiled by the toolchain's clang in custom commands.
get_filename_component(_rlb_swift_lib "${RUNLOOP_SWIFT_RUNTIME_DIR}" DIRECTORY)
if(RUNLOOP_CLANG AND EXISTS "${_rlb_swift_lib}/CoreFoundation/CoreFoundation.h"
   AND EXISTS "${RUNLOOP_SWIFT_RUNTIME_DIR}/libFoundation.so")
  foreach(_v "" "_mem")
    set(_out "${PROJECT_BINARY_DIR}/bench/bench_cf${_v}")
    set(_extra "")
    if(_v STREQUAL "_mem")
      set(_extra "${_rlb_dir}/malloc_count.c")
    endif()
    add_custom_command(
      OUTPUT "${_out}"
      COMMAND "${CMAKE_COMMAND}" -E make_directory "${PROJECT_BINARY_DIR}/bench"
      COMMAND "${RUNLOOP_CLANG}" -std=gnu11 -fblocks -DBENCH_CF ${_rlb_flags}
        -Wno-unused-parameter -gdwarf-4
        -isystem "${_rlb_swift_lib}"
        "${_rlb_dir}/bench_loop.c" ${_extra} -o "${_out}"
        "-L${RUNLOOP_SWIFT_RUNTIME_DIR}" "-Wl,-rpath,${RUNLOOP_SWIFT_RUNTIME_DIR}"
        -lFoundation -lBlocksRuntime -lpthread
      DEPENDS "${_rlb_dir}/bench_loop.c" "${_rlb_dir}/bench.h" "${_rlb_dir}/malloc_count.c"
      COMMENT "Building bench_cf${_v} against the toolchain's CoreFoundation"
      VERBATIM)
    add_custom_target(bench_cf${_v}_exe ALL DEPENDS "${_out}")
  endforeach()
else()
  message(STATUS "benchmarks: toolchain clang or CoreFoundation not found: no bench_cf")
endif()
