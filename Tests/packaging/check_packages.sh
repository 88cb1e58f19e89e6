#!/usr/bin/env bash
# The packages a user installs without a Swift toolchain (ctest
# packaging_deb, issue 23):
#
#   check_packages.sh BUILD WORK CC
#
#   1. cpack makes librunloop0_*.deb, librunloop-dev_*.deb and
#      runloop-*.tar.gz from the build directory BUILD (static Swift runtime);
#   2. the runtime .deb depends on system libraries only (libc6 with a
#      version: an older glibc refuses it) and its library needs no libswift*
#      and has no RUNPATH; the -dev .deb holds the headers (with the CF
#      programs' include/runloop/compat/CoreFoundation/CoreFoundation.h),
#      runloop.pc, runloop-cf.pc and the CMake package; the tarball holds both;
#   3. both .debs are unpacked into WORK/root and Tests/consumer/c/consumer.c
#      is built with `pkg-config runloop` from that root and run; its output
#      must equal Tests/consumer/expected.txt; cf_consumer.c likewise with
#      `pkg-config runloop-cf` (expected_cf.txt);
#   4. the consumer runs again with the toolchain out of sight: in a private
#      mount namespace an empty directory is bind-mounted over the
#      toolchain's usr/ (`unshare -m`, root only; skipped with a note when the
#      kernel refuses the namespace), and LD_LIBRARY_PATH is unset.
set -euo pipefail
build="$1" work="$2" cc="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
consumer_dir="$here/../consumer"
fail() { echo "FAIL: $*"; exit 1; }

rm -rf "$work"
mkdir -p "$work/out" "$work/root" "$work/empty"
( cd "$build" && cpack -G "DEB;TGZ" -B "$work/out" >"$work/cpack.log" 2>&1 ) \
  || { cat "$work/cpack.log"; fail "cpack"; }
deb=("$work"/out/librunloop0_*.deb) dev=("$work"/out/librunloop-dev_*.deb) tgz=("$work"/out/runloop-*.tar.gz)
for f in "${deb[0]}" "${dev[0]}" "${tgz[0]}"; do [[ -f "$f" ]] || fail "cpack did not make $f"; done
echo "packages: $(cd "$work/out" && ls -1 ./*.deb ./*.tar.gz | tr '\n' ' ')"

depends="$(dpkg-deb -f "${deb[0]}" Depends)"
echo "librunloop0 Depends: $depends"
[[ "$depends" =~ libc6\ \(\>=\ [0-9] ]] || fail "the runtime package does not depend on a libc6 version"
[[ "$depends" != *swift* ]] || fail "the runtime package depends on the Swift runtime"
[[ "$(dpkg-deb -f "${dev[0]}" Depends)" == *librunloop0* ]] || fail "librunloop-dev does not depend on librunloop0"

dpkg-deb -x "${deb[0]}" "$work/root"
dpkg-deb -x "${dev[0]}" "$work/root"
lib="$(find "$work/root" -name 'librunloop.so.*.*.*' | head -1)"
[[ -n "$lib" ]] || fail "no librunloop.so.X.Y.Z in the runtime package"
dyn="$(readelf -d "$lib")"
! grep -qE 'NEEDED.*(libswift|libdispatch|libBlocksRuntime)' <<<"$dyn" || fail "the packaged library needs the Swift runtime"
! grep -qE '\((RUNPATH|RPATH)\)' <<<"$dyn" || fail "the packaged library has a RUNPATH"
for f in include/runloop/runloop.h include/runloop/compat/CoreFoundation/CoreFoundation.h \
         lib/pkgconfig/runloop.pc lib/pkgconfig/runloop-cf.pc lib/cmake/runloop/runloopConfig.cmake \
         share/doc/runloop/LICENSE; do
  [[ -f "$work/root/usr/$f" ]] || fail "not in the packages: usr/$f"
done
[[ "$(dpkg-deb -c "${dev[0]}")" == *include/runloop/compat/CoreFoundation/CoreFoundation.h* ]] \
  || fail "librunloop-dev does not hold include/runloop/compat/CoreFoundation/CoreFoundation.h"
# The C API reference (cmake/Docs.cmake) goes into the -dev package when it
# was built (doxygen found); without doxygen the packages are made anyway.
if [[ -f "$build/docs/html/index.html" ]]; then
  [[ -f "$work/root/usr/share/doc/runloop/html/index.html" ]] || fail "the HTML reference is built but not in the packages"
  [[ "$(dpkg-deb -c "${dev[0]}")" == *share/doc/runloop/html/index.html* ]] || fail "the HTML reference is not in librunloop-dev"
  echo "librunloop-dev carries the C API reference (usr/share/doc/runloop/html)"
else
  echo "note: no HTML reference in $build/docs (no doxygen): packages made without it"
fi
listing="$(tar -tzf "${tgz[0]}")"
grep -q 'include/runloop/runloop.h' <<<"$listing" || fail "the tarball has no headers"
grep -q 'lib/librunloop.so' <<<"$listing" || fail "the tarball has no library"
echo "packaged library: $(stat -c %s "$lib") bytes, NEEDED $(sed -nE 's/.*\(NEEDED\).*\[(.*)\].*/\1/p' <<<"$dyn" | tr '\n' ' ')"

export PKG_CONFIG_PATH="$work/root/usr/lib/pkgconfig"
cflags="$(pkg-config --cflags runloop)" libs="$(pkg-config --libs runloop)"
libdir="$(pkg-config --variable=libdir runloop)"
version="$(pkg-config --modversion runloop)"
echo "+ $cc $cflags consumer.c $libs -Wl,-rpath,$libdir"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror $cflags "$consumer_dir/c/consumer.c" -o "$work/consumer" $libs "-Wl,-rpath,$libdir"
expected="$(sed "s/@VERSION@/$version/g" "$consumer_dir/expected.txt")"
out="$(env -u LD_LIBRARY_PATH "$work/consumer")" || fail "the consumer failed"
diff -u <(echo "$expected") <(echo "$out") || fail "the consumer's transcript differs from Tests/consumer/expected.txt"
echo "OK: consumer built from the unpacked .debs with pkg-config"
cfflags="$(pkg-config --cflags runloop-cf)" cflibs="$(pkg-config --libs runloop-cf)"
echo "+ $cc $cfflags cf_consumer.c $cflibs -Wl,-rpath,$libdir"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror $cfflags "$consumer_dir/c/cf_consumer.c" -o "$work/cf_consumer" $cflibs "-Wl,-rpath,$libdir"
out="$(env -u LD_LIBRARY_PATH "$work/cf_consumer")" || fail "the CF consumer failed"
diff -u "$consumer_dir/expected_cf.txt" <(echo "$out") || fail "the CF consumer's transcript differs from Tests/consumer/expected_cf.txt"
echo "OK: a CF program built from the unpacked .debs with pkg-config runloop-cf"

# The toolchain out of sight: swiftc's usr/ replaced by an empty directory.
toolchain="$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")"
if [[ $(id -u) -ne 0 ]] || ! unshare -m true 2>/dev/null; then
  echo "note: cannot make a mount namespace here (not root, or refused): the hidden-toolchain run is skipped"
  exit 0
fi
hidden="$(env -u LD_LIBRARY_PATH unshare -m sh -c \
  "mount --bind '$work/empty' '$toolchain' && ls '$toolchain' | wc -l && '$work/consumer'")" \
  || fail "the consumer failed with the toolchain ($toolchain) hidden"
[[ "$(head -1 <<<"$hidden")" == 0 ]] || fail "the toolchain was not hidden"
diff -u <(echo "$expected") <(tail -n +2 <<<"$hidden") || fail "the consumer's transcript differs with the toolchain hidden"
echo "OK: the consumer runs with $toolchain hidden (empty bind mount) and no LD_LIBRARY_PATH"
