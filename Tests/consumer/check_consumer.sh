#!/usr/bin/env bash
# Consumer tests of an installed runloop (ctest consumer_*).
#
#   check_consumer.sh install    BUILD WORK   cmake --install BUILD into
#                                             WORK/prefix; check the tree
#   check_consumer.sh pkgconfig  WORK CC      build Tests/consumer/c/consumer.c
#                                             with `pkg-config runloop` and
#                                             cf_consumer.c with `pkg-config
#                                             runloop-cf`; run them
#   check_consumer.sh cmake      WORK         build both with find_package(runloop)
#                                             (a separate CMake project; the CF
#                                             program links runloop::cfcompat)
#   check_consumer.sh subproject WORK SRC    build Tests/consumer/subproject,
#                                             which adds runloop (SRC) with
#                                             add_subdirectory; run it
#   check_consumer.sh swiftpm-version WORK SRC VERSION  the same package
#                                             depending on a tagged git copy of
#                                             SRC with `from: VERSION`
#   check_consumer.sh swiftpm    WORK VERSION build Tests/consumer/swiftpm (a
#                                             package depending on this one by
#                                             path) with swift build; run it
#
# Each program runs with LD_LIBRARY_PATH unset: librunloop.so.0 is found
# through the program's rpath, the Swift runtime through librunloop's own
# RUNPATH.  Its output must equal Tests/consumer/expected.txt (@VERSION@ =
# the installed runloop.pc's version), or expected_cf.txt for cf_consumer
# (a CF program: #include <CoreFoundation/CoreFoundation.h>, CF names).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
fail() { echo "FAIL: $*"; exit 1; }

# compare <program> <version>: run without LD_LIBRARY_PATH, diff the
# transcript with expected.txt (expected_cf.txt for cf_consumer).
compare() {
  local program="$1" version="$2" out rc=0 expected=expected.txt
  [[ "$(basename "$program")" != cf_consumer ]] || expected=expected_cf.txt
  out="$(env -u LD_LIBRARY_PATH "$program")" || rc=$?
  if ! diff -u <(sed "s/@VERSION@/$version/g" "$here/$expected") <(echo "$out"); then
    fail "$program: transcript differs from Tests/consumer/$expected"
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
             include/runloop/cfcompat.h include/runloop/compat/CoreFoundation/CoreFoundation.h \
             lib/pkgconfig/runloop.pc lib/pkgconfig/runloop-cf.pc lib/cmake/runloop/runloopConfig.cmake \
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
    # The compat folder holds CoreFoundation/CoreFoundation.h only, and is
    # on no include path but runloop-cf's: it never shadows a real CF.
    compat="$(cd "$prefix/include/runloop/compat" && find . -type f)"
    [[ "$compat" == "./CoreFoundation/CoreFoundation.h" ]] || fail "include/runloop/compat holds: $compat"
    [[ ! -e "$prefix/include/CoreFoundation" ]] || fail "a CoreFoundation folder was installed on the include path"
    echo "OK: installed runloop $version into $prefix (SONAME $soname)"
    ;;
  subproject)
    work="$2" src="$3"
    rm -rf "$work/subproject"
    cmake -S "$here/subproject" -B "$work/subproject" -G Ninja -DRUNLOOP_SOURCE_DIR="$src" \
      || fail "configuring a project that adds runloop as a subproject"
    cmake --build "$work/subproject" || fail "building it"
    [[ -z "$(find "$work/subproject" -maxdepth 2 -name 'test_*' -type f)" ]] || fail "test programs were built"
    version="$(sed -nE 's/^#define RL_VERSION_STRING "(.*)"/\1/p' "$src/include/runloop/version.h")"
    compare "$work/subproject/consumer" "$version"
    compare "$work/subproject/cf_consumer" "$version"
    echo "OK: runloop::runloop and runloop::cfcompat from add_subdirectory, no tests, examples or packages of its own"
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
    # The CF program: runloop-cf adds include/runloop/compat (and runloop).
    [[ "$cflags" != */compat* ]] || fail "pkg-config runloop puts the compat folder on the include path: $cflags"
    cfflags="$(pkg-config --cflags runloop-cf)" cflibs="$(pkg-config --libs runloop-cf)"
    [[ "$cfflags" == *"-I$(pkg-config --variable=includedir runloop)/runloop/compat"* ]] \
      || fail "pkg-config --cflags runloop-cf lacks the compat folder: $cfflags"
    [[ "$(pkg-config --modversion runloop-cf)" == "$(pkg-config --modversion runloop)" ]] \
      || fail "runloop-cf's version differs from runloop's"
    echo "+ $cc $cfflags cf_consumer.c $cflibs -Wl,-rpath,$libdir"
    # shellcheck disable=SC2086
    "$cc" -std=c11 -Wall -Wextra -Werror $cfflags "$here/c/cf_consumer.c" -o "$work/pkgconfig/cf_consumer" \
      $cflibs "-Wl,-rpath,$libdir"
    run_and_compare "$work/pkgconfig/cf_consumer"
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
    run_and_compare "$work/cmake/cf_consumer"
    ;;
  swiftpm)
    work="$2" version="$3"
    # SwiftPM's incremental build of a path dependency misses files added
    # to it since the last build: start again when the list changes.
    sources=$(cd "$here/../.." && find Sources -name '*.swift' | sort | cksum)
    if [[ "$(cat "$work/swiftpm.sources" 2>/dev/null)" != "$sources" ]]; then
      rm -rf "$work/swiftpm"
      mkdir -p "$work"
      echo "$sources" > "$work/swiftpm.sources"
    fi
    swift build --package-path "$here/swiftpm" --scratch-path "$work/swiftpm"
    compare "$(swift build --package-path "$here/swiftpm" --scratch-path "$work/swiftpm" --show-bin-path)/RunLoopConsumer" "$version"
    echo "OK: SwiftPM package depending on runloop by path built and ran"
    ;;
  swiftpm-version)
    # runloop as a versioned dependency: a throwaway git repository of the
    # project's files (tracked and untracked, not ignored) tagged VERSION,
    # and a copy of Tests/consumer/swiftpm that asks for `from: "VERSION"`.
    # SwiftPM refuses a dependency with unsafe build flags this way.
    work="$2" src="$3" version="$4"
    # SwiftPM refuses unsafe flags in a version-based dependency whose
    # manifest says tools 6.1 (the defect this test was written for), but
    # allows them from tools 6.2 on: keep the manifest free of them anyway.
    ! grep -n 'unsafeFlags' "$src/Package.swift" || fail "Package.swift uses unsafeFlags"
    base="$work/swiftpm-version" repo="$work/swiftpm-version/runloop" pkg="$work/swiftpm-version/consumer"
    rm -rf "$base"
    mkdir -p "$repo" "$pkg"
    ( cd "$src" && git ls-files -z -co --exclude-standard ) | ( cd "$src" && xargs -0 cp --parents -t "$repo" )
    git -C "$repo" init -q
    git -C "$repo" add -A
    git -C "$repo" -c user.name=runloop-test -c user.email=test@localhost commit -q -m "runloop $version"
    git -C "$repo" tag "$version"
    cp -r "$here/swiftpm/Sources" "$pkg/"
    # A remote URL, which git maps to the repository: SwiftPM treats a
    # file:// URL as a local package and would allow unsafe flags there.
    url="https://runloop.invalid/runloop.git"
    export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0="url.$repo/.git.insteadOf" GIT_CONFIG_VALUE_0="$url"
    sed -e "s|\.package(name: \"runloop\", path: \"../../..\")|.package(url: \"$url\", from: \"$version\")|" \
      "$here/swiftpm/Package.swift" > "$pkg/Package.swift"
    grep -q "from: \"$version\"" "$pkg/Package.swift" || fail "could not point the consumer at the tagged repository"
    swift build --resolver-fingerprint-checking warn --package-path "$pkg" --scratch-path "$pkg/.build" || fail "swift build of a package depending on runloop from: $version"
    compare "$(swift build --package-path "$pkg" --scratch-path "$pkg/.build" --show-bin-path)/RunLoopConsumer" "$version"
    echo "OK: SwiftPM package depending on runloop by version ($version, a tagged git repository) built and ran"
    ;;
  *) sed -n '2,19p' "$0"; exit 2 ;;
esac
