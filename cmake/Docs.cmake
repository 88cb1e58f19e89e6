# The C API reference: Doxygen HTML from the comments in include/runloop/*.h
# (included from CMakeLists.txt).
#
#   cmake --build build --target docs     -> build/docs/html/index.html
#
# The target exists only when doxygen is found (apt-get install doxygen);
# in a parent project (add_subdirectory, FetchContent) it is runloop_docs,
# so it cannot clash with the parent's own `docs`.
# The headers' plain /* */ comments are read as documentation through
# docs/api/doxy-filter.awk (docs/api/Doxyfile.in); doxygen's warnings go to
# build/docs/doxygen-warnings.log and never fail the build.
#
# RUNLOOP_BUILD_DOCS (ON for the top-level project when doxygen is found)
# puts `docs` in the default build, so `cpack` after `cmake --build` ships
# the HTML in the -dev package (usr/share/doc/runloop/html).  The install
# rule is OPTIONAL: without doxygen, or with the docs not built, install and
# cpack go on without them.
find_package(Doxygen QUIET)
find_program(RUNLOOP_AWK NAMES awk gawk mawk)

if(DOXYGEN_FOUND AND RUNLOOP_AWK)
  set(_rl_docs_default ${PROJECT_IS_TOP_LEVEL})
else()
  set(_rl_docs_default OFF)
endif()
option(RUNLOOP_BUILD_DOCS "Build the C API reference (Doxygen HTML) with the default target" ${_rl_docs_default})

set(RUNLOOP_DOCS_OUTPUT "${PROJECT_BINARY_DIR}/docs")
if(PROJECT_IS_TOP_LEVEL)
  set(RUNLOOP_DOCS_TARGET docs)
else()
  set(RUNLOOP_DOCS_TARGET runloop_docs)
endif()
if(DOXYGEN_FOUND AND RUNLOOP_AWK)
  set(RUNLOOP_DOCS_INPUT "${CMAKE_CURRENT_SOURCE_DIR}/include/runloop")
  set(RUNLOOP_DOCS_FILTER "${CMAKE_CURRENT_SOURCE_DIR}/docs/api/doxy-filter.awk")
  configure_file("${CMAKE_CURRENT_SOURCE_DIR}/docs/api/Doxyfile.in"
    "${RUNLOOP_DOCS_OUTPUT}/Doxyfile" @ONLY)
  file(GLOB _rl_docs_headers CONFIGURE_DEPENDS "${RUNLOOP_DOCS_INPUT}/*.h")
  add_custom_command(
    OUTPUT "${RUNLOOP_DOCS_OUTPUT}/html/index.html"
    COMMAND "${CMAKE_COMMAND}" -E rm -rf "${RUNLOOP_DOCS_OUTPUT}/html"
    COMMAND Doxygen::doxygen "${RUNLOOP_DOCS_OUTPUT}/Doxyfile"
    DEPENDS ${_rl_docs_headers} "${RUNLOOP_DOCS_FILTER}"
      "${CMAKE_CURRENT_SOURCE_DIR}/docs/api/Doxyfile.in"
    WORKING_DIRECTORY "${RUNLOOP_DOCS_OUTPUT}"
    COMMENT "Doxygen: C API reference -> ${RUNLOOP_DOCS_OUTPUT}/html"
    VERBATIM)
  if(RUNLOOP_BUILD_DOCS)
    set(_rl_docs_all ALL)
  else()
    set(_rl_docs_all "")
  endif()
  add_custom_target(${RUNLOOP_DOCS_TARGET} ${_rl_docs_all}
    DEPENDS "${RUNLOOP_DOCS_OUTPUT}/html/index.html")
  message(STATUS "docs: C API reference with doxygen ${DOXYGEN_VERSION} (target ${RUNLOOP_DOCS_TARGET})")
else()
  message(STATUS "docs: no doxygen (or awk): no docs target, packages carry no HTML reference")
endif()

# OPTIONAL: nothing to install (and no error) when the HTML was not built.
install(DIRECTORY "${RUNLOOP_DOCS_OUTPUT}/html/"
  DESTINATION "${CMAKE_INSTALL_DOCDIR}/html"
  COMPONENT development
  OPTIONAL)

# ---- tests (label docs) ------------------------------------------------------
#   docs_reference  builds the docs target and checks that key functions are
#                   in the HTML with their header comment text
#   docs_docc       builds the DocC catalogue of RunLoopKit with the
#                   toolchain's docc (docs/build-docc.sh), when docc exists
if(RUNLOOP_BUILD_TESTS)
  if(TARGET ${RUNLOOP_DOCS_TARGET})
    add_test(NAME docs_reference
      COMMAND bash "${CMAKE_CURRENT_SOURCE_DIR}/Tests/docs/check_reference.sh"
        "${PROJECT_BINARY_DIR}" "${RUNLOOP_DOCS_OUTPUT}/html" ${RUNLOOP_DOCS_TARGET})
    set_tests_properties(docs_reference PROPERTIES LABELS docs TIMEOUT 120)
  else()
    message(STATUS "docs_reference: skipped (no doxygen)")
  endif()
  get_filename_component(_rl_swift_bin_dir "${CMAKE_Swift_COMPILER}" REALPATH)
  get_filename_component(_rl_swift_bin_dir "${_rl_swift_bin_dir}" DIRECTORY)
  find_program(RUNLOOP_DOCC NAMES docc HINTS "${_rl_swift_bin_dir}" NO_DEFAULT_PATH)
  find_program(RUNLOOP_SWIFT NAMES swift HINTS "${_rl_swift_bin_dir}" NO_DEFAULT_PATH)
  if(RUNLOOP_DOCC AND RUNLOOP_SWIFT)
    add_test(NAME docs_docc
      COMMAND "${CMAKE_COMMAND}" -E env "DOCC=${RUNLOOP_DOCC}" "SWIFT=${RUNLOOP_SWIFT}"
        bash "${CMAKE_CURRENT_SOURCE_DIR}/docs/build-docc.sh" "${RUNLOOP_DOCS_OUTPUT}/docc")
    set_tests_properties(docs_docc PROPERTIES LABELS docs TIMEOUT 1200)
  else()
    message(STATUS "docs_docc: skipped (no docc next to ${CMAKE_Swift_COMPILER})")
  endif()
endif()
