#!/usr/bin/env bash
# Builds and runs the demo (examples/demo/demo.c) against librunloop.so.0:
#   bash scripts/demo.sh [demo arguments...]
# Installs cmake / ninja / pkg-config / valgrind / libffi-dev if missing,
# builds the `demo` target with CMake + Ninja in build/, runs build/demo.
# The last line is `DEMO OK` (exit 0) or `DEMO FAILED` (exit 1).
#   RUNLOOP_DEMO_TIMEOUT  seconds before the demo is killed (default 120)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$RUNLOOP_ROOT" || exit 1

failed() {
  echo
  echo "demo: $1"
  echo "DEMO FAILED"
  exit 1
}

stage "1/3 tools"
ensure_tools || failed "could not install the tools"

[[ -f examples/demo/demo.c ]] || failed "examples/demo/demo.c does not exist"

stage "2/3 build the demo ($RUNLOOP_BUILD_DIR)"
cmake_configure || failed "cmake configure failed"
cmake --build "$RUNLOOP_BUILD_DIR" --target demo || failed "build failed"

stage "3/3 run $RUNLOOP_BUILD_DIR/demo $*"
timeout "${RUNLOOP_DEMO_TIMEOUT:-120}" "$RUNLOOP_BUILD_DIR/demo" "$@"
rc=$?
[[ $rc -eq 124 ]] && failed "timed out after ${RUNLOOP_DEMO_TIMEOUT:-120} s"
[[ $rc -eq 0 ]] || failed "exited with status $rc"

echo
echo "DEMO OK"
