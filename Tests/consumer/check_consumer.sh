#!/usr/bin/env bash
# Consumer tests of an installed runloop (ctest consumer_*).
#
#   check_consumer.sh install    BUILD WORK   cmake --install BUILD into
#                                             WORK/prefix; check the tree
#   check_consumer.sh pkgconfig  WORK CC      build Tests/consumer/c with
#                                             `pkg-config runloop`; run it
#   check_consumer.sh cmake      WORK         build it with find_package(runloop)
#                                             (a separate CMake project); run it
#   check_consumer.sh swiftpm    WORK VERSION build Tests/consumer/swiftpm (a
#                                             package depending on this one by
#                                             path) with swift build; run it
#
# Each program runs with LD_LIBRARY_PATH unset: librunloop.so.0 is found
# through the program's rpath, the Swift runtime through librunloop's own
# RUNPATH.  Its output must equal Tests/consumer/expected.txt (@VERSION@ =
# the installed runloop.pc's version).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
fail() { echo "FAIL: $*"; exit 1; }

# compare <program> <version>: run without LD_LIBRARY_PATH, diff the transcript.
compare() {
  local program="$1" version="$2" out rc=0
  out="$(env -u LD_LIBRARY_PATH "$program")" || rc=$?
  if ! diff -u <(sed "s/@VERSION@/$version/g" "$here/expected.txt") <(echo "$out"); then
    fail "$program: transcript differs from Tests/consumer/expected.txt"
  fi
  [[ $rc == 0 ]] || fail "$program exited $rc"
}

# run_and_compare <program>: compare, then check how the runtime is found.
run_and_compare() {
  local program="$1" version
  version="$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --modversion runloop)"
  compare "$program" "$version"
  # The Swift runtime comes from librunloop's RUNPATH, not the program's.
  local runpath
  runpath="$(readelf -d "$program" | sed -nE 's/.*\((RUNPATH|RPATH)\).*\[(.*)\].*/\2/p')"
  [[ "$runpath" != *swift* ]] || fail "$program has the Swift runtime in its own RUNPATH ($runpath)"
  env -u LD_LIBRARY_PATH ldd "$program" | grep -E 'librunloop|libswiftCore'
  echo "OK: $program (runloop $version, LD_LIBRARY_PATH unset, RUNPATH '${runpath}')"
}

mode="${1:-}"
case "$mode" in
  install)
    build="$2" work="$3" prefix="$3/prefix"
    rm -rf "$prefix"
    cmake --install "$build" --prefix "$prefix"
    version="$(sed -nE 's/^CMAKE_PROJECT_VERSION:STATIC=(.*)/\1/p' "$build/CMakeCache.txt")"
    major="${version%%.*}"
    for f in "lib/librunloop.so.$version" include/runloop/runloop.h include/runloop/version.h \
             lib/pkgconfig/runloop.pc lib/cmake/runloop/runloopConfig.cmake \
             lib/cmake/runloop/runloopConfigVersion.cmake lib/cmake/runloop/runloopTargets.cmake; do
      [[ -f "$prefix/$f" ]] || fail "not installed: $f"
    done
    [[ "$(readlink "$prefix/lib/librunloop.so.$major")" == "librunloop.so.$version" ]] \
      || fail "lib/librunloop.so.$major is not a link to librunloop.so.$version"
    [[ "$(readlink "$prefix/lib/librunloop.so")" == "librunloop.so.$major" ]] \
      || fail "lib/librunloop.so is not a link to librunloop.so.$major"
    soname="$(readelf -d "$prefix/lib/librunloop.so.$version" | sed -nE 's/.*\(SONAME\).*\[(.*)\].*/\1/p')"
    [[ "$soname" == "librunloop.so.$major" ]] || fail "SONAME is '$soname'"
    [[ ! -e "$prefix/include/module.modulemap" ]] || fail "include/module.modulemap was installed"
    echo "OK: installed runloop $version into $prefix (SONAME $soname)"
    ;;
  pkgconfig)
    work="$2" cc="$3" prefix="$2/prefix"
    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    cflags="$(pkg-config --cflags runloop)" libs="$(pkg-config --libs runloop)"
    libdir="$(cd "$(pkg-config --variable=libdir runloop)" && pwd -P)"
    [[ "$(cd "$libdir" && pwd -P)" == "$(cd "$prefix/lib" && pwd -P)" ]] \
      || fail "runloop.pc libdir is $libdir, expected $prefix/lib"
    mkdir -p "$work/pkgconfig"
    echo "+ $cc $cflags consumer.c $libs -Wl,-rpath,$libdir"
    # shellcheck disable=SC2086
    "$cc" -std=c11 -Wall -Wextra -Werror $cflags "$here/c/consumer.c" -o "$work/pkgconfig/consumer" \
      $libs "-Wl,-rpath,$libdir"
    run_and_compare "$work/pkgconfig/consumer"
    ;;
  cmake)
    work="$2" prefix="$2/prefix"
    rm -rf "$work/cmake"
    cmake -S "$here/c" -B "$work/cmake" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
    grep -q "runloop_DIR:PATH=$prefix/lib/cmake/runloop" "$work/cmake/CMakeCache.txt" \
      || fail "find_package(runloop) did not use $prefix: $(grep runloop_DIR "$work/cmake/CMakeCache.txt")"
    cmake --build "$work/cmake"
    run_and_compare "$work/cmake/consumer"
    ;;
  swiftpm)
    work="$2" version="$3"
    swift build --package-path "$here/swiftpm" --scratch-path "$work/swiftpm"
    compare "$(swift build --package-path "$here/swiftpm" --scratch-path "$work/swiftpm" --show-bin-path)/RunLoopConsumer" "$version"
    echo "OK: SwiftPM package depending on runloop by path built and ran"
    ;;
  *) sed -n '2,19p' "$0"; exit 2 ;;
esac
