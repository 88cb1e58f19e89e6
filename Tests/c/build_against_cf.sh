#!/bin/sh
# Builds every Tests/c/test_*.c (except the runloop-only test_rl_*.c)
# against Apple's real CoreFoundation from the Swift toolchain and runs it.
#
#   Tests/c/build_against_cf.sh              check against Tests/traces
#   Tests/c/build_against_cf.sh --record     (re)record Tests/traces from CF
#   Tests/c/build_against_cf.sh --repeat N   run each test N times (check mode)
#   Tests/c/build_against_cf.sh ... test_x   only the named tests
#
# Exit status: number of failing programs (0 = all ok).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
traces="$repo/Tests/traces"
out=${RL_CF_BUILD_DIR:-/tmp/runloop-cf-tests}
CLANG=${CLANG:-/opt/swift/usr/bin/clang}
SWIFTLIB=${SWIFTLIB:-/opt/swift/usr/lib/swift}
mode=check
repeat=1
names=""
while [ $# -gt 0 ]; do
    case "$1" in
        --record) mode=record ;;
        --repeat) repeat=$2; shift ;;
        *) names="$names $(basename "$1" .c)" ;;
    esac
    shift
done
if [ -z "$names" ]; then
    for f in "$here"/test_*.c; do
        n=$(basename "$f" .c)
        case "$n" in test_rl_*) continue ;; esac
        names="$names $n"
    done
fi
mkdir -p "$out"
fails=0
for n in $names; do
    if ! "$CLANG" -std=gnu11 -fblocks -Wall -Wextra -Wno-unused-parameter \
        -isystem "$SWIFTLIB" -DRL_TEST_AGAINST_CF -DRL_TRACE_DIR="\"$traces\"" \
        -I "$here" "$here/$n.c" -o "$out/$n" \
        -L"$SWIFTLIB/linux" -Wl,-rpath,"$SWIFTLIB/linux" \
        -lFoundation -lBlocksRuntime -lpthread; then
        echo "BUILD FAIL $n"; fails=$((fails + 1)); continue
    fi
    if [ "$mode" = record ]; then
        RL_TRACE_WRITE=1 "$out/$n" || { echo "FAIL $n (exit $?)"; fails=$((fails + 1)); }
    else
        i=0
        while [ $i -lt "$repeat" ]; do
            "$out/$n" || { echo "FAIL $n (run $((i + 1)), exit $?)"; fails=$((fails + 1)); break; }
            i=$((i + 1))
        done
    fi
done
echo "$fails failing"
exit $fails
