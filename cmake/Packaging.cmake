# Install rules and the packages consumers find runloop with (included from
# CMakeLists.txt after the runloop target is defined).
#
#   cmake --install build --prefix P   installs
#     P/lib/librunloop.so.0.1.0, librunloop.so.0 (SONAME), librunloop.so
#     P/include/runloop/runloop.h, version.h
#     P/lib/pkgconfig/runloop.pc                    pkg-config runloop
#     P/lib/cmake/runloop/runloopConfig.cmake,      find_package(runloop 0.1)
#       runloopConfigVersion.cmake, runloopTargets*.cmake  -> runloop::runloop
# (include/module.modulemap is for the Swift build only; not installed.)
#
# The Swift runtime: librunloop's RUNPATH is the toolchain's runtime
# directory (RUNLOOP_SWIFT_RUNTIME_DIR, an absolute path, identical in the
# build tree and once installed), so a program linked against the installed
# library finds libswiftCore & co. through librunloop itself: it needs no
# LD_LIBRARY_PATH and no rpath of its own for them.  It only has to find
# librunloop.so.0 (an rpath to P/lib, or P/lib known to ld.so).  Moving or
# removing the toolchain breaks installed copies; a packager shipping the
# runtime elsewhere sets INSTALL_RPATH on the runloop target accordingly.
include(CMakePackageConfigHelpers)

# ---- the version in include/runloop/version.h is the project's ----------
file(STRINGS "${CMAKE_CURRENT_SOURCE_DIR}/include/runloop/version.h" _rl_version_lines
  REGEX "^#define RL_VERSION_(MAJOR|MINOR|PATCH|STRING) ")
foreach(_rl_part MAJOR MINOR PATCH)
  string(REGEX MATCH "#define RL_VERSION_${_rl_part} ([0-9]+)" _rl_m "${_rl_version_lines}")
  set(_rl_header_${_rl_part} "${CMAKE_MATCH_1}")
endforeach()
string(REGEX MATCH "#define RL_VERSION_STRING \"([^\"]*)\"" _rl_m "${_rl_version_lines}")
set(_rl_header_string "${CMAKE_MATCH_1}")
set(_rl_header_version "${_rl_header_MAJOR}.${_rl_header_MINOR}.${_rl_header_PATCH}")
if(NOT _rl_header_version STREQUAL PROJECT_VERSION OR NOT _rl_header_string STREQUAL PROJECT_VERSION)
  message(FATAL_ERROR
    "include/runloop/version.h says ${_rl_header_version} (RL_VERSION_STRING "
    "\"${_rl_header_string}\") but CMakeLists.txt says VERSION ${PROJECT_VERSION}: "
    "update both together")
endif()

# ---- library and headers ---------------------------------------------------
install(TARGETS runloop EXPORT runloopTargets
  LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
  PUBLIC_HEADER DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/runloop")

# ---- pkg-config: runloop.pc ------------------------------------------------
# Relocatable: prefix is found from the .pc file's own place (${pcfiledir}),
# so `cmake --install build --prefix DIR` gives a right one.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(RUNLOOP_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _rl_pc_up "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" _rl_pc_up "${_rl_pc_up}")
  set(RUNLOOP_PC_PREFIX "\${pcfiledir}/${_rl_pc_up}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(RUNLOOP_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(RUNLOOP_PC_LIBDIR "\${exec_prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(RUNLOOP_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(RUNLOOP_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(cmake/runloop.pc.in "${CMAKE_BINARY_DIR}/runloop.pc" @ONLY)
install(FILES "${CMAKE_BINARY_DIR}/runloop.pc"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# ---- CMake package: find_package(runloop) -> runloop::runloop --------------
set(RUNLOOP_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/runloop")
install(EXPORT runloopTargets
  NAMESPACE runloop::
  FILE runloopTargets.cmake
  DESTINATION "${RUNLOOP_CMAKE_DIR}")
# The config file's template, written here to keep packaging in one file.
file(WRITE "${CMAKE_BINARY_DIR}/runloopConfig.cmake.in" [=[
# runloop's CMake package:
#
#   find_package(runloop 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE runloop::runloop)
#
# runloop::runloop is the shared library librunloop.so.0 with its headers
# (#include <runloop/runloop.h>).  It finds the Swift runtime through its
# own RUNPATH: programs linking it need nothing more.
@PACKAGE_INIT@

include("${CMAKE_CURRENT_LIST_DIR}/runloopTargets.cmake")
check_required_components(runloop)
]=])
configure_package_config_file("${CMAKE_BINARY_DIR}/runloopConfig.cmake.in"
  "${CMAKE_BINARY_DIR}/runloopConfig.cmake"
  INSTALL_DESTINATION "${RUNLOOP_CMAKE_DIR}")
# Same major version = same SONAME = compatible (see version.h).
write_basic_package_version_file("${CMAKE_BINARY_DIR}/runloopConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMajorVersion)
install(FILES
  "${CMAKE_BINARY_DIR}/runloopConfig.cmake"
  "${CMAKE_BINARY_DIR}/runloopConfigVersion.cmake"
  DESTINATION "${RUNLOOP_CMAKE_DIR}")

# ---- examples and ecosystem tests ------------------------------------------
# Deferred to the end of the top-level CMakeLists.txt (after enable_testing()
# and the test helpers): see cmake/Ecosystem.cmake.
cmake_language(DEFER CALL include cmake/Ecosystem.cmake)
