# Examples and the ecosystem tests: the installed package used from C
# (pkg-config, find_package) and from SwiftPM, the Python binding, libffi.
#
# Included by cmake/Packaging.cmake as a deferred call at the end of the
# top-level CMakeLists.txt, so that enable_testing() and RunLoopTests.cmake
# (runloop_add_memcheck) have been processed.
#
#   example_<name>        examples/<name>.c built and run; output must equal
#                         examples/expected/<name>.txt          (label examples)
#   ported_socky          examples/ported/socky, a CF program built through
#                         cfcompat.h, run and checked          (label examples)
#   ported_dispatch_cf_main  libdispatch's dispatch_cf_main, unchanged, against
#                         runloop (and the real CF when found) (label examples)
#   consumer_install      cmake --install into <build>/consumer/prefix
#   consumer_pkgconfig    Tests/consumer/c built with `pkg-config runloop`
#   consumer_find_package Tests/consumer/c built with find_package(runloop)
#   consumer_swiftpm      Tests/consumer/swiftpm (depends on runloop by path)
#                         built with swift build and run        (label consumer)
#   consumer_swiftpm_version  the same, depending on a tagged git copy with
#                         `from:` (no unsafe flags allowed)     (label consumer)
#   consumer_subproject   runloop added with add_subdirectory   (label consumer)
#   packaging_deb         cpack .deb/.tar.gz, consumer run with the toolchain
#                         hidden                                (label packaging)
#   packaging_wheel       the Python wheel, built, repaired, installed and run
#                         with the toolchain hidden             (label packaging)
#   python_pytest         python/tests under pytest, RUNLOOP_LIBRARY = the
#                         freshly built librunloop.so.0           (label python)
#   abi_python_prototypes Tests/abi/python_prototypes.py: every
#                         python/runloop/_capi.py prototype matches the
#                         header's declaration            (labels abi, python)
#   test_ffi              Tests/ffi/test_ffi.c: every call through ffi_call
#                         (+ memcheck_test_ffi)                      (label ffi)
set(_rl_src "${CMAKE_CURRENT_SOURCE_DIR}")

# ---- examples (built always; tests only with RUNLOOP_BUILD_TESTS) --------
file(GLOB RUNLOOP_EXAMPLES CONFIGURE_DEPENDS "${_rl_src}/examples/*.c")
if(NOT RUNLOOP_BUILD_EXAMPLES)
  set(RUNLOOP_EXAMPLES "")
endif()
foreach(_rl_example IN LISTS RUNLOOP_EXAMPLES)
  get_filename_component(_rl_name "${_rl_example}" NAME_WE)
  add_executable(example_${_rl_name} "${_rl_example}")
  set_target_properties(example_${_rl_name} PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
  target_compile_options(example_${_rl_name} PRIVATE -Wall -Wextra)
  target_link_libraries(example_${_rl_name} PRIVATE runloop Threads::Threads)
  if(RUNLOOP_BUILD_TESTS)
    add_test(NAME example_${_rl_name}
      COMMAND bash "${_rl_src}/examples/run_example.sh" "$<TARGET_FILE:example_${_rl_name}>"
        "${_rl_src}/examples/expected/${_rl_name}.txt")
    set_tests_properties(example_${_rl_name} PROPERTIES LABELS examples TIMEOUT 60)
  endif()
endforeach()
# ---- ported CF programs (examples/ported/, docs/porting.md) --------------
# Real programs written for CF's run loop, built against runloop through
# cfcompat.h (runloop::cfcompat, whose include/runloop/compat/CoreFoundation/
# CoreFoundation.h forwards to it).  The flags stand in for what Darwin's
# headers and Xcode's defaults gave the original (docs/porting.md lists them).
if(RUNLOOP_BUILD_EXAMPLES AND EXISTS "${_rl_src}/examples/ported/socky/main.c")
  add_executable(ported_socky "${_rl_src}/examples/ported/socky/main.c")
  set_target_properties(ported_socky PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
  target_compile_options(ported_socky PRIVATE -include arpa/inet.h -Wno-deprecated
    -Wno-incompatible-pointer-types)
  target_link_libraries(ported_socky PRIVATE runloop::cfcompat)
  if(RUNLOOP_BUILD_TESTS)
    add_test(NAME ported_socky
      COMMAND bash "${_rl_src}/examples/ported/socky/check_socky.sh" "$<TARGET_FILE:ported_socky>")
    set_tests_properties(ported_socky PROPERTIES LABELS examples TIMEOUT 120)
  endif()
endif()

# dispatch_cf_main (libdispatch's test of its main queue under CFRunLoopRun),
# unchanged: clang -fblocks, the toolchain's libdispatch, the harness shims
# of examples/ported/dispatch_cf_main/shims.  With the real CF available
# (cmake/Conformance.cmake) the same source is also built against it, and
# both must print expected.txt.
set(_rl_dcm "${_rl_src}/examples/ported/dispatch_cf_main")
if(RUNLOOP_BUILD_EXAMPLES AND RUNLOOP_BUILD_TESTS AND RUNLOOP_CLANG AND RUNLOOP_BLOCKS_RUNTIME
   AND EXISTS "${RUNLOOP_SWIFT_RUNTIME_DIR}/libdispatch.so" AND EXISTS "${_rl_dcm}/dispatch_cf_main.c")
  get_filename_component(_rl_dcm_blocks "${RUNLOOP_BLOCKS_RUNTIME}" DIRECTORY)
  get_filename_component(_rl_dcm_swift_inc "${RUNLOOP_SWIFT_RUNTIME_DIR}/.." ABSOLUTE)
  set(_rl_dcm_flags -std=gnu11 -fblocks -gdwarf-4 -O1 -Wall -Wextra "-I${_rl_dcm}/shims")
  set(_rl_dcm_libs "-L${RUNLOOP_SWIFT_RUNTIME_DIR}" "-L${_rl_dcm_blocks}" -ldispatch -lBlocksRuntime -lpthread)
  set(_rl_dcm_exe "${PROJECT_BINARY_DIR}/ported_dispatch_cf_main")
  add_custom_command(OUTPUT "${_rl_dcm_exe}"
    COMMAND "${RUNLOOP_CLANG}" ${_rl_dcm_flags} "-I${_rl_src}/include/runloop/compat" "-I${_rl_src}/include"
      -isystem "${_rl_dcm_swift_inc}" "${_rl_dcm}/dispatch_cf_main.c" -o "${_rl_dcm_exe}"
      "$<TARGET_FILE:runloop>" ${_rl_dcm_libs}
      "-Wl,-rpath,$<TARGET_FILE_DIR:runloop>:${RUNLOOP_SWIFT_RUNTIME_DIR}:${_rl_dcm_blocks}"
    DEPENDS "${_rl_dcm}/dispatch_cf_main.c" "${_rl_dcm}/shims/bsdtests.h" "${_rl_dcm}/shims/dispatch_test.h"
      "${_rl_src}/include/runloop/compat/CoreFoundation/CoreFoundation.h" runloop
    COMMENT "Building ported dispatch_cf_main against runloop (cfcompat.h)" VERBATIM)
  set(_rl_dcm_outputs "${_rl_dcm_exe}")
  set(_rl_dcm_cf_arg "")
  if(RUNLOOP_FOUNDATION_LIBRARY)
    set(_rl_dcm_cf_exe "${PROJECT_BINARY_DIR}/ported_dispatch_cf_main.cf")
    add_custom_command(OUTPUT "${_rl_dcm_cf_exe}"
      COMMAND "${RUNLOOP_CLANG}" ${_rl_dcm_flags} -isystem "${_rl_dcm_swift_inc}"
        "${_rl_dcm}/dispatch_cf_main.c" -o "${_rl_dcm_cf_exe}" -lFoundation ${_rl_dcm_libs}
        "-Wl,-rpath,${RUNLOOP_SWIFT_RUNTIME_DIR}:${_rl_dcm_blocks}"
      DEPENDS "${_rl_dcm}/dispatch_cf_main.c" "${_rl_dcm}/shims/bsdtests.h" "${_rl_dcm}/shims/dispatch_test.h"
      COMMENT "Building ported dispatch_cf_main against CoreFoundation" VERBATIM)
    list(APPEND _rl_dcm_outputs "${_rl_dcm_cf_exe}")
    set(_rl_dcm_cf_arg "${_rl_dcm_cf_exe}")
  endif()
  add_custom_target(ported_dispatch_cf_main_exe ALL DEPENDS ${_rl_dcm_outputs})
  add_test(NAME ported_dispatch_cf_main
    COMMAND bash "${_rl_dcm}/check_dispatch_cf_main.sh" "${_rl_dcm_exe}" "${_rl_dcm}/expected.txt" ${_rl_dcm_cf_arg})
  set_tests_properties(ported_dispatch_cf_main PROPERTIES LABELS examples TIMEOUT 120)
endif()

if(TEST example_jank_monitor)
  # it measures how long a pass takes: keep the other tests off the cores
  set_tests_properties(example_jank_monitor PROPERTIES RUN_SERIAL ON)
endif()

if(NOT RUNLOOP_BUILD_TESTS)
  return()
endif()

# ---- consumers of the installed tree -------------------------------------
set(_rl_consumer_work "${PROJECT_BINARY_DIR}/consumer")
file(MAKE_DIRECTORY "${_rl_consumer_work}")
set(_rl_consumer "${_rl_src}/Tests/consumer/check_consumer.sh")
find_program(RUNLOOP_PKG_CONFIG NAMES pkg-config)

add_test(NAME consumer_install
  COMMAND bash "${_rl_consumer}" install "${PROJECT_BINARY_DIR}" "${_rl_consumer_work}")
set_tests_properties(consumer_install PROPERTIES
  LABELS consumer TIMEOUT 120 FIXTURES_SETUP runloop_installed)

if(RUNLOOP_PKG_CONFIG)
  add_test(NAME consumer_pkgconfig
    COMMAND bash "${_rl_consumer}" pkgconfig "${_rl_consumer_work}" "${CMAKE_C_COMPILER}")
  set_tests_properties(consumer_pkgconfig PROPERTIES
    LABELS consumer TIMEOUT 120 FIXTURES_REQUIRED runloop_installed)
else()
  message(STATUS "pkg-config not found: no consumer_pkgconfig test")
endif()

add_test(NAME consumer_find_package
  COMMAND bash "${_rl_consumer}" cmake "${_rl_consumer_work}")
set_tests_properties(consumer_find_package PROPERTIES
  LABELS consumer TIMEOUT 300 FIXTURES_REQUIRED runloop_installed)

find_program(RUNLOOP_SWIFT NAMES swift HINTS "${_rl_swift_bin}")
if(RUNLOOP_SWIFT)
  add_test(NAME consumer_swiftpm
    COMMAND bash "${_rl_consumer}" swiftpm "${_rl_consumer_work}" "${PROJECT_VERSION}")
  # swift build uses both cores: run it alone
  set_tests_properties(consumer_swiftpm PROPERTIES
    LABELS consumer TIMEOUT 900 RUN_SERIAL ON
    ENVIRONMENT "PATH=${_rl_swift_bin}:$ENV{PATH}")
  # The same package depending on runloop by version (a tagged git copy of
  # this tree behind a remote URL), which SwiftPM refuses for a manifest
  # with unsafe build flags.
  find_program(RUNLOOP_GIT NAMES git)
  if(RUNLOOP_GIT)
    add_test(NAME consumer_swiftpm_version
      COMMAND bash "${_rl_consumer}" swiftpm-version "${_rl_consumer_work}" "${_rl_src}" "${PROJECT_VERSION}")
    set_tests_properties(consumer_swiftpm_version PROPERTIES
      LABELS consumer TIMEOUT 900 RUN_SERIAL ON
      ENVIRONMENT "PATH=${_rl_swift_bin}:$ENV{PATH}")
  endif()
else()
  message(STATUS "swift not found: no consumer_swiftpm test")
endif()

# ---- Python binding --------------------------------------------------------
find_package(Python3 COMPONENTS Interpreter)
set(_rl_have_pytest OFF)
if(Python3_Interpreter_FOUND)
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import pytest"
    RESULT_VARIABLE _rl_pytest_rc OUTPUT_QUIET ERROR_QUIET)
  if(_rl_pytest_rc EQUAL 0)
    set(_rl_have_pytest ON)
  endif()
endif()
if(_rl_have_pytest)
  add_test(NAME python_pytest
    COMMAND "${Python3_EXECUTABLE}" -m pytest -q -p no:cacheprovider -p no:benchmark
      "${_rl_src}/python/tests"
    WORKING_DIRECTORY "${PROJECT_BINARY_DIR}")
  set_tests_properties(python_pytest PROPERTIES
    LABELS python TIMEOUT 300
    ENVIRONMENT "RUNLOOP_LIBRARY=$<TARGET_FILE:runloop>;PYTHONPATH=${_rl_src}/python;PYTHONDONTWRITEBYTECODE=1")
else()
  message(STATUS "python3 with pytest not found: no python_pytest test "
    "(python3 -m pip install pytest)")
endif()

# The package's ctypes prototypes (_capi.py) match include/runloop/*.h.
if(Python3_Interpreter_FOUND)
  add_test(NAME abi_python_prototypes
    COMMAND "${Python3_EXECUTABLE}" "${_rl_src}/Tests/abi/python_prototypes.py"
      --include "${_rl_src}/include" --python "${_rl_src}/python" --cc "${CMAKE_C_COMPILER}")
  set_tests_properties(abi_python_prototypes PROPERTIES
    LABELS "abi;python" TIMEOUT 60
    ENVIRONMENT "RUNLOOP_LIBRARY=$<TARGET_FILE:runloop>;PYTHONDONTWRITEBYTECODE=1")
endif()

# ---- libffi ----------------------------------------------------------------
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(RUNLOOP_LIBFFI IMPORTED_TARGET libffi)
endif()
if(RUNLOOP_LIBFFI_FOUND)
  # Not linked with librunloop: it dlopen()s the path given on its command line.
  add_executable(test_ffi "${_rl_src}/Tests/ffi/test_ffi.c")
  set_target_properties(test_ffi PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
  target_compile_options(test_ffi PRIVATE -Wall -Wextra)
  target_include_directories(test_ffi PRIVATE "${_rl_src}/include")
  target_link_libraries(test_ffi PRIVATE PkgConfig::RUNLOOP_LIBFFI ${CMAKE_DL_LIBS})
  add_dependencies(test_ffi runloop)
  add_test(NAME test_ffi COMMAND test_ffi "$<TARGET_FILE:runloop>")
  set_tests_properties(test_ffi PROPERTIES LABELS ffi TIMEOUT 60)
  runloop_add_memcheck(test_ffi "$<TARGET_FILE:test_ffi>" "$<TARGET_FILE:runloop>")
else()
  message(STATUS "libffi not found (apt-get install libffi-dev): no test_ffi")
endif()

# runloop built as a subproject of another CMake project (add_subdirectory /
# FetchContent): runloop::runloop, and none of runloop's own targets.
add_test(NAME consumer_subproject
  COMMAND bash "${_rl_consumer}" subproject "${_rl_consumer_work}" "${_rl_src}")
set_tests_properties(consumer_subproject PROPERTIES LABELS consumer TIMEOUT 600)

# ---- packages: .deb and .tar.gz, used with the toolchain hidden ------------
#   packaging_deb   Tests/packaging/check_packages.sh: cpack, unpack, build a
#                   consumer with pkg-config, run it with the toolchain's usr/
#                   hidden behind an empty bind mount      (label packaging)
find_program(RUNLOOP_DPKG_DEB NAMES dpkg-deb)
if(RUNLOOP_STATIC_SWIFT_RUNTIME AND RUNLOOP_DPKG_DEB AND RUNLOOP_PKG_CONFIG)
  add_test(NAME packaging_deb
    COMMAND bash "${_rl_src}/Tests/packaging/check_packages.sh"
      "${PROJECT_BINARY_DIR}" "${PROJECT_BINARY_DIR}/packaging" "${CMAKE_C_COMPILER}")
  set_tests_properties(packaging_deb PROPERTIES LABELS packaging TIMEOUT 300)
else()
  message(STATUS "packaging_deb: skipped (needs the static Swift runtime, dpkg-deb and pkg-config)")
endif()

#   packaging_wheel  Tests/packaging/check_wheel.sh: build the Python wheel
#                    (scikit-build-core, tools from PyPI), auditwheel repair,
#                    install into a fresh venv, run it with the toolchain
#                    hidden; RUNLOOP_LIBRARY still overrides  (label packaging)
find_package(Python3 COMPONENTS Interpreter QUIET)
if(RUNLOOP_STATIC_SWIFT_RUNTIME AND Python3_FOUND)
  add_test(NAME packaging_wheel
    COMMAND bash "${_rl_src}/Tests/packaging/check_wheel.sh" "${_rl_src}" "${PROJECT_BINARY_DIR}/wheel")
  # the wheel's build compiles the library again, on both cores
  set_tests_properties(packaging_wheel PROPERTIES LABELS packaging TIMEOUT 900 RUN_SERIAL ON
    ENVIRONMENT "PATH=${_rl_swift_bin}:$ENV{PATH};PYTHON=${Python3_EXECUTABLE};RUNLOOP_OVERRIDE_LIBRARY=$<TARGET_FILE:runloop>")
endif()
