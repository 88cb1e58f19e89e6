#!/usr/bin/env bash
# Runs every test of runloop, from a fresh clone or again:
#   1. installs cmake / ninja / valgrind / pkg-config / libffi-dev / doxygen
#      if missing
#   2. swift build, swift test          (SwiftPM: the Swift unit tests)
#   3. cmake configure + build (Ninja)  (librunloop.so.0, C tests, demo)
#   4. ctest: C tests, ABI checks, packaging and docs (C reference, DocC)
#   5. ctest: valgrind memcheck of every C test, and a count line:
#      "memcheck: N tests: C clean, W with behaviour checks waived under
#      valgrind, F failed, M without a result" (cmake/memcheck_summary.sh)
# The last line is `ALL TESTS PASSED` (exit 0) or `TESTS FAILED: <stage>`
# (exit 1).
#
#   bash scripts/test.sh
#   RUNLOOP_BUILD_DIR=build-x bash scripts/test.sh   # another build dir
#   RUNLOOP_SKIP_SWIFTPM=1 bash scripts/test.sh      # CMake side only
#   RUNLOOP_SKIP_MEMCHECK=1 bash scripts/test.sh     # no valgrind pass
#   RUNLOOP_SKIP_SANITIZERS=1 bash scripts/test.sh   # no TSan/ASan/fuzz stage
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$RUNLOOP_ROOT" || exit 1

failed() {
  echo
  echo "TESTS FAILED: $1"
  exit 1
}

jobs="$(nproc 2>/dev/null || echo 2)"

stage "1/5 tools"
ensure_tools doxygen || failed "installing tools"

if [[ "${RUNLOOP_SKIP_SWIFTPM:-0}" != 1 ]]; then
  stage "2/5 swift build"
  swift build || failed "swift build"
  stage "2/5 swift test"
  swift test || failed "swift test"
else
  stage "2/5 swift build/test skipped (RUNLOOP_SKIP_SWIFTPM=1)"
fi

stage "3/5 cmake configure ($RUNLOOP_BUILD_DIR)"
cmake_configure -DRUNLOOP_BUILD_TESTS=ON || failed "cmake configure"
stage "3/5 cmake build"
cmake --build "$RUNLOOP_BUILD_DIR" || failed "cmake build"

stage "4/5 ctest: C tests and ABI checks"
ctest --test-dir "$RUNLOOP_BUILD_DIR" --output-on-failure --no-tests=error \
  -j "$jobs" -LE memcheck || failed "ctest (C tests and ABI checks)"

if [[ -f "$RUNLOOP_BUILD_DIR/conformance/summary.txt" ]]; then
  stage "4/5 conformance with the real CoreFoundation"
  cat "$RUNLOOP_BUILD_DIR/conformance/summary.txt"
fi

if [[ "${RUNLOOP_SKIP_MEMCHECK:-0}" != 1 ]]; then
  stage "5/5 ctest: valgrind memcheck"
  if ctest --test-dir "$RUNLOOP_BUILD_DIR" -N -L memcheck | grep -q 'Total Tests: 0'; then
    echo "(no C tests yet: nothing to run under valgrind)"
  else
    rm -rf "$RUNLOOP_BUILD_DIR/memcheck"  # fresh outcomes (cmake/memcheck.sh)
    memcheck_rc=0
    ctest --test-dir "$RUNLOOP_BUILD_DIR" --output-on-failure \
      -j "$jobs" -L memcheck || memcheck_rc=$?
    # One count line: clean / behaviour checks waived under valgrind
    # (shown by ctest as Skipped) / failed / without a result.
    bash cmake/memcheck_summary.sh "$RUNLOOP_BUILD_DIR" || true
    [[ $memcheck_rc -eq 0 ]] || failed "ctest memcheck (valgrind)"
  fi
else
  stage "5/5 memcheck skipped (RUNLOOP_SKIP_MEMCHECK=1)"
fi

if [[ "${RUNLOOP_SKIP_SANITIZERS:-0}" != 1 ]]; then
  # TSan stress, ASan over the C tests, libFuzzer for RUNLOOP_FUZZ_SECONDS (60)
  stage "sanitizers: Tests/stress/sanitizers.sh"
  timeout 900 bash Tests/stress/sanitizers.sh || failed "sanitizers (TSan/ASan/fuzz)"
else
  stage "sanitizers skipped (RUNLOOP_SKIP_SANITIZERS=1)"
fi

echo
echo "(total $((SECONDS - RUNLOOP_T0)) s)"
echo "ALL TESTS PASSED"
