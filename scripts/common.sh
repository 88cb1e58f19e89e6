# Shared by scripts/test.sh and scripts/demo.sh (sourced, not run).
#
# RUNLOOP_BUILD_DIR   CMake build directory (default: build)
# RUNLOOP_NO_INSTALL  set to 1 to never call apt-get

RUNLOOP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
RUNLOOP_BUILD_DIR="${RUNLOOP_BUILD_DIR:-build}"
RUNLOOP_T0=$SECONDS

# stage <title>: a progress header.
stage() {
  printf '\n==== [%3ds] %s ====\n' "$((SECONDS - RUNLOOP_T0))" "$*"
}

# ensure_tools [TOOL...]: install cmake, ninja, pkg-config, valgrind and
# libffi-dev, libglib2.0-dev and libuv1-dev (Debian packages), and each TOOL (a command named like its
# package, e.g. doxygen), when any of them is missing.  Needs root or sudo.
ensure_tools() {
  local missing=() tool extra=("$@")
  for tool in cmake ninja valgrind pkg-config "${extra[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  if command -v pkg-config >/dev/null 2>&1 && ! pkg-config --exists libffi; then
    missing+=("libffi")
  fi
  # The adapters to other event loops (adapters/, cmake/Adapters.cmake)
  # are built and tested only when pkg-config finds their libraries.
  local libs=()
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists glib-2.0; then libs+=(libglib2.0-dev); fi
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libuv; then libs+=(libuv1-dev); fi
  missing+=("${libs[@]}")
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "tools present: cmake ninja valgrind pkg-config libffi glib-2.0 libuv${extra[*]:+ ${extra[*]}}"
    return 0
  fi
  echo "missing: ${missing[*]}"
  if [[ "${RUNLOOP_NO_INSTALL:-0}" == 1 ]]; then
    echo "RUNLOOP_NO_INSTALL=1: not installing"; return 1
  fi
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "not root and no sudo: install ${missing[*]} by hand"; return 1; }
    sudo=(sudo)
  fi
  command -v apt-get >/dev/null 2>&1 || { echo "no apt-get: install ${missing[*]} by hand"; return 1; }
  echo "+ apt-get update && apt-get install -y cmake ninja-build libffi-dev pkg-config valgrind ${libs[*]} ${extra[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q \
    && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
         cmake ninja-build libffi-dev pkg-config valgrind "${libs[@]}" "${extra[@]}" \
    || return 1
  for tool in cmake ninja valgrind pkg-config "${extra[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "still missing after install: $tool"; return 1; }
  done
}

# cmake_configure [extra -D args]: configure $RUNLOOP_BUILD_DIR with Ninja
# (re-runnable; a build directory made with another generator is reset).
cmake_configure() {
  local cache="$RUNLOOP_BUILD_DIR/CMakeCache.txt"
  if [[ -f "$cache" ]] && ! grep -qE '^CMAKE_GENERATOR:INTERNAL=Ninja' "$cache"; then
    echo "$RUNLOOP_BUILD_DIR was configured with another generator: resetting its cache"
    rm -rf "$cache" "$RUNLOOP_BUILD_DIR/CMakeFiles"
  fi
  cmake -S "$RUNLOOP_ROOT" -B "$RUNLOOP_BUILD_DIR" -G Ninja "$@"
}

# build_benchmarks: configures $RUNLOOP_BUILD_DIR in Release with the
# benchmark programs (no tests) and builds it, so what is measured is the
# tree as it is (scripts/bench.sh, scripts/costs.sh).  Prints what failed.
build_benchmarks() {
  cmake_configure -DCMAKE_BUILD_TYPE=Release -DRUNLOOP_BUILD_BENCHMARKS=ON -DRUNLOOP_BUILD_TESTS=OFF \
    >/dev/null || { echo "cmake configure failed"; return 1; }
  cmake --build "$RUNLOOP_BUILD_DIR" || { echo "build failed"; return 1; }
}
