#!/bin/sh
# Builds every Tests/c/test_*.c (including the runloop-only test_rl_*.c)
# against librunloop and runs it, comparing with Tests/traces.
#
#   Tests/c/build_against_runloop.sh [--builddir DIR] [--repeat N] [test_x ...]
#
# DIR holds librunloop.so (default: the first of .build/debug, .build/release
# that has it).  CC defaults to cc; run once with CC=gcc and once with
# CC=clang to check both compilers.  Exit status: number of failing programs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
traces="$repo/Tests/traces"
CC=${CC:-cc}
out=${RL_BUILD_DIR:-/tmp/runloop-rl-tests}
builddir=""
repeat=1
names=""
while [ $# -gt 0 ]; do
    case "$1" in
        --builddir) builddir=$2; shift ;;
        --repeat) repeat=$2; shift ;;
        *) names="$names $(basename "$1" .c)" ;;
    esac
    shift
done
if [ -z "$builddir" ]; then
    for d in "$repo/.build/debug" "$repo/.build/release"; do
        [ -e "$d/librunloop.so" ] && { builddir=$d; break; }
    done
fi
[ -n "$builddir" ] && [ -e "$builddir/librunloop.so" ] || { echo "librunloop.so not found (use --builddir)"; exit 100; }
builddir=$(cd "$builddir" && pwd)
if [ -z "$names" ]; then
    for f in "$here"/test_*.c; do names="$names $(basename "$f" .c)"; done
fi
mkdir -p "$out"
fails=0
for n in $names; do
    if ! "$CC" -std=gnu11 -Wall -Wextra -I "$repo/include" -I "$here" \
        -DRL_TRACE_DIR="\"$traces\"" "$here/$n.c" -o "$out/$n" \
        -L"$builddir" -Wl,-rpath,"$builddir" -lrunloop -lpthread; then
        echo "BUILD FAIL $n"; fails=$((fails + 1)); continue
    fi
    i=0
    while [ $i -lt "$repeat" ]; do
        timeout 10 "$out/$n" || { echo "FAIL $n (run $((i + 1)), exit $?)"; fails=$((fails + 1)); break; }
        i=$((i + 1))
    done
done
echo "$fails failing"
exit $fails
