# Differential conformance against the real CoreFoundation (issue 4).
# Included from CMakeLists.txt when RUNLOOP_BUILD_TESTS is ON.
#
# Every Tests/conformance/sc_*.c is written against CF's names only and is
# built twice with the toolchain's clang -fblocks:
#   <stem>.cf   -DCONF_AGAINST_CF, <CoreFoundation/CoreFoundation.h> from the
#               toolchain, linked with libFoundation + BlocksRuntime
#   <stem>.rl   <runloop/cfcompat.h>, linked with librunloop + BlocksRuntime
# ctest conformance_<stem> (label conformance) runs both and compares their
# stdout byte for byte (Tests/conformance/compare.sh).  A scenario with a
# Tests/conformance/expected/<stem>.runloop file is a documented divergence
# (docs/conformance.md): only runloop runs, against that trace.
# conformance_cfcompat_* compile Tests/conformance/cfcompat_syntax.c with
# gcc -std=c99, g++, clang -fblocks (C, C++) and against the real CF;
# conformance_cfcompat_uncovered checks that CF names outside cfcompat.h's
# surface are compile-time errors (Tests/conformance/uncovered.sh).
# conformance_summary runs last and prints
#   conformance: N/N scenarios identical to CoreFoundation
# (also written to <build>/conformance/summary.txt).
#
# Options:
#   RUNLOOP_CONFORMANCE (ON)   build and run the suite when CF is available
#   RUNLOOP_CONFORMANCE_KNOWN_DIFFERENCES  scenarios where runloop still
#       differs from CF and CF is right: expected failures (WILL_FAIL) until
#       the engine is fixed; keep this list empty.

option(RUNLOOP_CONFORMANCE "Differential conformance tests against the toolchain's CoreFoundation" ON)
set(RUNLOOP_CONFORMANCE_KNOWN_DIFFERENCES "")
if(NOT RUNLOOP_CONFORMANCE)
  return()
endif()

set(_conf_src "${CMAKE_CURRENT_SOURCE_DIR}/Tests/conformance")
get_filename_component(_conf_cf_include "${RUNLOOP_SWIFT_RUNTIME_DIR}/.." ABSOLUTE)

# <runloop/cfcompat.h> compiles CF-style code with gcc (C99, no blocks),
# g++, and clang -fblocks in C and C++ (Tests/conformance/cfcompat_syntax.c).
set(_conf_syntax "${_conf_src}/cfcompat_syntax.c")
set(_conf_inc "-I${CMAKE_CURRENT_SOURCE_DIR}/include")
add_test(NAME conformance_cfcompat_c99
  COMMAND "${CMAKE_C_COMPILER}" -std=c99 -Wall -Wextra -Wpedantic -Werror
    -fsyntax-only "${_conf_inc}" "${_conf_syntax}")
set(_conf_syntax_tests conformance_cfcompat_c99)
find_program(RUNLOOP_CONF_CXX NAMES g++ c++)
if(RUNLOOP_CONF_CXX)
  add_test(NAME conformance_cfcompat_cxx
    COMMAND "${RUNLOOP_CONF_CXX}" -x c++ -std=c++11 -Wall -Wextra -Werror
      -fsyntax-only "${_conf_inc}" "${_conf_syntax}")
  list(APPEND _conf_syntax_tests conformance_cfcompat_cxx)
endif()
if(RUNLOOP_CLANG)
  add_test(NAME conformance_cfcompat_clang_blocks
    COMMAND "${RUNLOOP_CLANG}" -std=gnu11 -fblocks -Wall -Wextra -Werror
      -fsyntax-only "${_conf_inc}" "${_conf_syntax}")
  add_test(NAME conformance_cfcompat_clangxx_blocks
    COMMAND "${RUNLOOP_CLANG}" -x c++ -std=c++11 -fblocks -Wall -Wextra -Werror
      -fsyntax-only "${_conf_inc}" "${_conf_syntax}")
  list(APPEND _conf_syntax_tests conformance_cfcompat_clang_blocks
    conformance_cfcompat_clangxx_blocks)
  # the same file, unchanged, against the real CF headers
  if(EXISTS "${_conf_cf_include}/CoreFoundation/CoreFoundation.h")
    add_test(NAME conformance_cfcompat_real_cf
      COMMAND "${RUNLOOP_CLANG}" -std=gnu11 -fblocks -Wall -Wextra -Werror
        -fsyntax-only -isystem "${_conf_cf_include}"
        -include CoreFoundation/CoreFoundation.h "${_conf_inc}" "${_conf_syntax}")
    list(APPEND _conf_syntax_tests conformance_cfcompat_real_cf)
  endif()
endif()
# CF names cfcompat.h does not cover fail to compile with a message naming
# them (gcc and, when found, the toolchain clang; C and C++).
set(_conf_uncovered_cc "${CMAKE_C_COMPILER}")
if(RUNLOOP_CLANG)
  list(APPEND _conf_uncovered_cc "${RUNLOOP_CLANG}")
endif()
add_test(NAME conformance_cfcompat_uncovered
  COMMAND bash "${_conf_src}/uncovered.sh" "${CMAKE_CURRENT_SOURCE_DIR}/include" ${_conf_uncovered_cc})
list(APPEND _conf_syntax_tests conformance_cfcompat_uncovered)
set_tests_properties(${_conf_syntax_tests} PROPERTIES LABELS conformance TIMEOUT 60)

# The differential suite needs the real CF.
find_library(RUNLOOP_FOUNDATION_LIBRARY NAMES Foundation
  HINTS "${RUNLOOP_SWIFT_RUNTIME_DIR}" NO_DEFAULT_PATH)
set(_conf_missing "")
if(NOT RUNLOOP_CLANG)
  list(APPEND _conf_missing "the toolchain clang")
endif()
if(NOT RUNLOOP_BLOCKS_RUNTIME)
  list(APPEND _conf_missing "libBlocksRuntime")
endif()
if(NOT RUNLOOP_FOUNDATION_LIBRARY)
  list(APPEND _conf_missing "libFoundation.so in ${RUNLOOP_SWIFT_RUNTIME_DIR}")
endif()
if(NOT EXISTS "${_conf_cf_include}/CoreFoundation/CoreFoundation.h")
  list(APPEND _conf_missing "${_conf_cf_include}/CoreFoundation/CoreFoundation.h")
endif()
if(_conf_missing)
  message(STATUS "conformance tests skipped: missing ${_conf_missing}")
  return()
endif()

set(_conf_out "${PROJECT_BINARY_DIR}/conformance")
set(_conf_results "${_conf_out}/results")
file(MAKE_DIRECTORY "${_conf_out}")
get_filename_component(_conf_foundation_dir "${RUNLOOP_FOUNDATION_LIBRARY}" DIRECTORY)
get_filename_component(_conf_blocks_dir "${RUNLOOP_BLOCKS_RUNTIME}" DIRECTORY)
# DWARF 4 like the other clang-built tests; warnings are errors: the
# scenarios must stay clean against both headers.
set(_conf_cflags -std=gnu11 -fblocks -O1 -gdwarf-4 -Wall -Wextra -Werror
  "-I${_conf_src}")

file(GLOB _conf_scenarios CONFIGURE_DEPENDS "${_conf_src}/sc_*.c")
file(GLOB _conf_headers CONFIGURE_DEPENDS "${_conf_src}/*.h")
set(_conf_outputs "")
set(_conf_differential "")
set(_conf_divergent "")
foreach(_conf_c IN LISTS _conf_scenarios)
  get_filename_component(_conf_stem "${_conf_c}" NAME_WE)
  set(_conf_cf_exe "${_conf_out}/${_conf_stem}.cf")
  set(_conf_rl_exe "${_conf_out}/${_conf_stem}.rl")
  add_custom_command(
    OUTPUT "${_conf_cf_exe}"
    COMMAND "${RUNLOOP_CLANG}" ${_conf_cflags} -DCONF_AGAINST_CF
      -isystem "${_conf_cf_include}" "-I${CMAKE_CURRENT_SOURCE_DIR}/include"
      -MD -MF "${_conf_cf_exe}.d"
      "${_conf_c}" -o "${_conf_cf_exe}"
      "-L${_conf_foundation_dir}" "-L${_conf_blocks_dir}"
      -lFoundation -lBlocksRuntime -lpthread
      "-Wl,-rpath,${_conf_foundation_dir}:${_conf_blocks_dir}"
    DEPENDS "${_conf_c}" ${_conf_headers}
    DEPFILE "${_conf_cf_exe}.d"
    COMMENT "Building conformance ${_conf_stem} against CoreFoundation"
    VERBATIM)
  add_custom_command(
    OUTPUT "${_conf_rl_exe}"
    COMMAND "${RUNLOOP_CLANG}" ${_conf_cflags}
      "-I${CMAKE_CURRENT_SOURCE_DIR}/include"
      -MD -MF "${_conf_rl_exe}.d"
      "${_conf_c}" -o "${_conf_rl_exe}"
      "$<TARGET_FILE:runloop>" "-L${_conf_blocks_dir}" -lBlocksRuntime -lpthread
      "-Wl,-rpath,$<TARGET_FILE_DIR:runloop>:${_conf_blocks_dir}"
    DEPENDS "${_conf_c}" ${_conf_headers} runloop
    DEPFILE "${_conf_rl_exe}.d"
    COMMENT "Building conformance ${_conf_stem} against runloop (cfcompat.h)"
    VERBATIM)
  list(APPEND _conf_outputs "${_conf_cf_exe}" "${_conf_rl_exe}")

  set(_conf_expect "${_conf_src}/expected/${_conf_stem}.runloop")
  if(EXISTS "${_conf_expect}")
    set(_conf_mode --expect "${_conf_expect}")
    list(APPEND _conf_divergent ${_conf_stem})
  else()
    set(_conf_mode --cf "${_conf_cf_exe}")
    list(APPEND _conf_differential ${_conf_stem})
  endif()
  add_test(NAME conformance_${_conf_stem}
    COMMAND bash "${_conf_src}/compare.sh" --name ${_conf_stem}
      --rl "${_conf_rl_exe}" ${_conf_mode} --results "${_conf_results}")
  set_tests_properties(conformance_${_conf_stem} PROPERTIES
    LABELS conformance TIMEOUT 120
    FIXTURES_REQUIRED runloop_conformance)
  if(_conf_stem IN_LIST RUNLOOP_CONFORMANCE_KNOWN_DIFFERENCES)
    set_tests_properties(conformance_${_conf_stem} PROPERTIES WILL_FAIL TRUE)
  endif()
endforeach()
add_custom_target(conformance_exes ALL DEPENDS ${_conf_outputs})

list(LENGTH _conf_differential _conf_n)
list(LENGTH _conf_divergent _conf_nd)
message(STATUS "conformance scenarios: ${_conf_n} compared with CoreFoundation, ${_conf_nd} documented divergences")

# Fresh results for every ctest run, and the summary after every scenario.
add_test(NAME conformance_reset
  COMMAND "${CMAKE_COMMAND}" -E rm -rf "${_conf_results}")
set_tests_properties(conformance_reset PROPERTIES
  LABELS conformance FIXTURES_SETUP runloop_conformance)
string(REPLACE ";" " " _conf_differential_s "${_conf_differential}")
string(REPLACE ";" " " _conf_divergent_s "${_conf_divergent}")
string(REPLACE ";" " " _conf_known_s "${RUNLOOP_CONFORMANCE_KNOWN_DIFFERENCES}")
add_test(NAME conformance_summary
  COMMAND bash "${_conf_src}/summary.sh" --results "${_conf_results}"
    --scenarios "${_conf_differential_s}" --divergences "${_conf_divergent_s}"
    --known "${_conf_known_s}" --out "${_conf_out}/summary.txt")
set_tests_properties(conformance_summary PROPERTIES
  LABELS conformance FIXTURES_CLEANUP runloop_conformance)
