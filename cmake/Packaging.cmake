# Install rules and the packages consumers find runloop with (included from
# CMakeLists.txt after the runloop target is defined).
#
#   cmake --install build --prefix P   installs
#     P/lib/librunloop.so.0.1.0, librunloop.so.0 (SONAME), librunloop.so
#     P/include/runloop/runloop.h, version.h, ...
#     P/include/runloop/compat/CoreFoundation/CoreFoundation.h  (CF programs)
#     P/lib/pkgconfig/runloop.pc                    pkg-config runloop
#     P/lib/pkgconfig/runloop-cf.pc                 pkg-config runloop-cf (+ compat/)
#     P/lib/cmake/runloop/runloopConfig.cmake,      find_package(runloop 0.1)
#       runloopConfigVersion.cmake, runloopTargets*.cmake  -> runloop::runloop,
#                                                    runloop::cfcompat (+ compat/)
# (include/module.modulemap is for the Swift build only; not installed.)
#
# The Swift runtime: with RUNLOOP_STATIC_SWIFT_RUNTIME (the default) it is
# linked into librunloop itself, hidden, and the library needs only libc,
# libm, libstdc++ and libgcc_s: installed copies do not depend on the
# toolchain.  With the option OFF, librunloop's RUNPATH is the toolchain's
# runtime directory (RUNLOOP_SWIFT_RUNTIME_DIR), unless CMAKE_INSTALL_RPATH
# says otherwise: the packager's choice.
#
# Packages (CPack, from the same build):
#   cpack -G DEB --config build/CPackConfig.cmake   librunloop0_<v>_<arch>.deb
#                                                 librunloop-dev_<v>_<arch>.deb
#   cpack -G TGZ --config build/CPackConfig.cmake   runloop-<v>-Linux.tar.gz
# The .deb dependencies come from dpkg-shlibdeps (libc6 (>= the glibc the
# library was linked against), libstdc++6, libgcc-s1), so a system whose
# glibc is too old refuses to install it.
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
    COMPONENT runtime NAMELINK_COMPONENT development
  PUBLIC_HEADER DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/runloop"
    COMPONENT development)
# The CoreFoundation.h that CF programs include, in a folder of its own
# (runloop::cfcompat, runloop-cf.pc add it to the include path).
install(TARGETS runloop_cfcompat EXPORT runloopTargets)
install(FILES include/runloop/compat/CoreFoundation/CoreFoundation.h
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/runloop/compat/CoreFoundation"
  COMPONENT development)
install(FILES LICENSE NOTICE
  DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT runtime)
# The Python wheel's copy (python/pyproject.toml, component `python`): the
# library alone under its SONAME (a wheel holds no symlinks) beside the
# license, installed into the `runloop` package by scikit-build-core.
install(FILES "$<TARGET_FILE:runloop>" RENAME "librunloop.so.${PROJECT_VERSION_MAJOR}"
  DESTINATION lib COMPONENT python EXCLUDE_FROM_ALL)
install(FILES LICENSE NOTICE DESTINATION . COMPONENT python EXCLUDE_FROM_ALL)
if(CMAKE_STRIP)
  # install --strip strips installed targets only, not this renamed copy.
  install(CODE "execute_process(COMMAND \"${CMAKE_STRIP}\" \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/librunloop.so.${PROJECT_VERSION_MAJOR}\")"
    COMPONENT python EXCLUDE_FROM_ALL)
endif()

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
configure_file(cmake/runloop.pc.in "${PROJECT_BINARY_DIR}/runloop.pc" @ONLY)
configure_file(cmake/runloop-cf.pc.in "${PROJECT_BINARY_DIR}/runloop-cf.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/runloop.pc" "${PROJECT_BINARY_DIR}/runloop-cf.pc"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig" COMPONENT development)

# ---- CMake package: find_package(runloop) -> runloop::runloop --------------
set(RUNLOOP_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/runloop")
install(EXPORT runloopTargets
  NAMESPACE runloop::
  FILE runloopTargets.cmake
  DESTINATION "${RUNLOOP_CMAKE_DIR}"
  COMPONENT development)
# The config file's template, written here to keep packaging in one file.
file(WRITE "${PROJECT_BINARY_DIR}/runloopConfig.cmake.in" [=[
# runloop's CMake package:
#
#   find_package(runloop 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE runloop::runloop)
#
# runloop::runloop is the shared library librunloop.so.0 with its headers
# (#include <runloop/runloop.h>).  Programs linking it need nothing more
# (the Swift runtime is linked into it, or found through its RUNPATH).
#
# runloop::cfcompat is runloop::runloop plus include/runloop/compat, where
# CoreFoundation/CoreFoundation.h includes <runloop/cfcompat.h>: a CF
# program's #include <CoreFoundation/CoreFoundation.h> then builds against
# runloop unchanged (docs/porting.md).
@PACKAGE_INIT@

include("${CMAKE_CURRENT_LIST_DIR}/runloopTargets.cmake")
check_required_components(runloop)
]=])
configure_package_config_file("${PROJECT_BINARY_DIR}/runloopConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/runloopConfig.cmake"
  INSTALL_DESTINATION "${RUNLOOP_CMAKE_DIR}")
# Compatible versions: while the major version is 0 the API may change at
# each minor version, so find_package(runloop 0.1) accepts 0.1.x only; from
# 1.0 on, the same major version (see version.h).
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_rl_compatibility SameMinorVersion)
else()
  set(_rl_compatibility SameMajorVersion)
endif()
write_basic_package_version_file("${PROJECT_BINARY_DIR}/runloopConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY ${_rl_compatibility})
install(FILES
  "${PROJECT_BINARY_DIR}/runloopConfig.cmake"
  "${PROJECT_BINARY_DIR}/runloopConfigVersion.cmake"
  DESTINATION "${RUNLOOP_CMAKE_DIR}"
  COMPONENT development)

# ---- CPack: .deb (runtime + -dev) and .tar.gz -------------------------------
set(CPACK_PACKAGE_NAME runloop)
set(CPACK_PACKAGE_VENDOR "runloop")
set(CPACK_PACKAGE_CONTACT "runloop maintainers <runloop@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "CFRunLoop for Linux: per-thread event loops with a C ABI")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_RESOURCE_FILE_LICENSE "${CMAKE_CURRENT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_FILE_NAME "runloop-${PROJECT_VERSION}-${CMAKE_SYSTEM_NAME}-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
# The tarball holds everything (lib/, include/, share/); the .deb is split.
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime development)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_LICENSE "Apache-2.0")
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/runloop/runloop")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME "librunloop${PROJECT_VERSION_MAJOR}")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME "librunloop-dev")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS
  "librunloop${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION})")
# Honest dependencies (libc6 (>= the glibc linked against), ...).
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# A parent project that builds runloop as a subproject packages itself.
if(PROJECT_IS_TOP_LEVEL)
  include(CPack)
endif()

# ---- examples and ecosystem tests ------------------------------------------
# Deferred to the end of the top-level CMakeLists.txt (after enable_testing()
# and the test helpers): see cmake/Ecosystem.cmake.
cmake_language(DEFER CALL include cmake/Ecosystem.cmake)
