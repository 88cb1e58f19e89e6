# Adapters between runloop and other event loops (adapters/, issue 26),
# each a small static library with its ctest, built when pkg-config finds
# the other loop (scripts/test.sh and .ci/run install libglib2.0-dev and
# libuv1-dev, so CI always builds them):
#   rl_glib    adapters/glib: runloop driven by a GMainContext, and a
#              GMainContext hosted on a runloop   (test_glib_adapter)
#   rl_uv      adapters/libuv: runloop driven by a libuv loop
#                                                  (test_libuv_adapter)
# Each test gets a memcheck_ twin, like the C tests.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(RUNLOOP_GLIB IMPORTED_TARGET glib-2.0)
  pkg_check_modules(RUNLOOP_LIBUV IMPORTED_TARGET libuv)
endif()

function(runloop_add_adapter_test name lib)
  add_executable(${name} "${CMAKE_CURRENT_SOURCE_DIR}/Tests/adapters/${name}.c")
  set_target_properties(${name} PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
  target_compile_options(${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  # Tests/c/harness.h (CHECK and its failure count), as the C tests use it.
  target_compile_definitions(${name} PRIVATE "RL_TRACE_DIR=\"${CMAKE_CURRENT_SOURCE_DIR}/Tests/traces\"")
  target_include_directories(${name} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/Tests/c")
  target_link_libraries(${name} PRIVATE ${lib} Threads::Threads m)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "c;adapters" TIMEOUT 120)
  if(COMMAND runloop_add_memcheck)
    runloop_add_memcheck(${name} "$<TARGET_FILE:${name}>")
  endif()
endfunction()

if(RUNLOOP_GLIB_FOUND)
  add_library(rl_glib STATIC "${CMAKE_CURRENT_SOURCE_DIR}/adapters/glib/rl_glib.c")
  target_include_directories(rl_glib PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/adapters/glib")
  target_link_libraries(rl_glib PUBLIC runloop PkgConfig::RUNLOOP_GLIB m)
  target_compile_options(rl_glib PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(RUNLOOP_BUILD_TESTS)
    runloop_add_adapter_test(test_glib_adapter rl_glib)
  endif()
else()
  message(STATUS "glib-2.0 not found: no GLib adapter (install libglib2.0-dev)")
endif()

if(RUNLOOP_LIBUV_FOUND AND EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/adapters/libuv/rl_uv.c")
  add_library(rl_uv STATIC "${CMAKE_CURRENT_SOURCE_DIR}/adapters/libuv/rl_uv.c")
  target_include_directories(rl_uv PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/adapters/libuv")
  target_link_libraries(rl_uv PUBLIC runloop PkgConfig::RUNLOOP_LIBUV m)
  target_compile_options(rl_uv PRIVATE -Wall -Wextra -Wno-unused-parameter)
  if(RUNLOOP_BUILD_TESTS)
    runloop_add_adapter_test(test_libuv_adapter rl_uv)
  endif()
elseif(NOT RUNLOOP_LIBUV_FOUND)
  message(STATUS "libuv not found: no libuv adapter (install libuv1-dev)")
endif()
