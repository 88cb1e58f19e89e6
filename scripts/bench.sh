#!/usr/bin/env bash
# Runs the side-by-side benchmarks (issue 6): runloop against the toolchain's
# CoreFoundation, GLib's GMainContext, libuv and the raw eventfd/epoll floor,
# all in the same run.
#   1. installs what is missing: cmake / ninja / pkg-config (scripts/common.sh)
#      and libglib2.0-dev libuv1-dev python3 (apt-get)
#   2. builds in Release with -DRUNLOOP_BUILD_BENCHMARKS=ON (build-bench/)
#   3. runs every workload several times (Benchmarks/bench_*.c)
#   4. prints the table of medians, spreads and ratios, the targets of issue
#      6 met or missed, and writes docs/bench/results.md, docs/bench/ratios.svg
#      and the raw RESULT lines (docs/bench/raw.txt)
#
#   bash scripts/bench.sh            full run (~4-6 min after the build)
#   bash scripts/bench.sh --quick    smaller sizes, ~1 min after the build;
#                                    writes to $RUNLOOP_BENCH_OUT or
#                                    build-bench/bench-quick/ (docs/ untouched)
#   RUNLOOP_BUILD_DIR=dir            another build directory (default build-bench)
#   RUNLOOP_NO_INSTALL=1             never call apt-get
# Exit status: 0 when every program ran (targets missed are reported, not
# failures), 1 otherwise.
set -uo pipefail
RUNLOOP_BUILD_DIR="${RUNLOOP_BUILD_DIR:-build-bench}"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$RUNLOOP_ROOT" || exit 1

quick=0
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    *) echo "usage: $0 [--quick]"; exit 2 ;;
  esac
done

# apt_install <packages...>: installs Debian packages (root or sudo).
apt_install() {
  [[ "${RUNLOOP_NO_INSTALL:-0}" == 1 ]] && { echo "RUNLOOP_NO_INSTALL=1: not installing $*"; return 1; }
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { echo "not root and no sudo: install $* by hand"; return 1; }
    sudo=(sudo)
  fi
  echo "+ apt-get install -y $*"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
}

stage "1/4 tools"
ensure_tools || { echo "BENCH FAILED: tools"; exit 1; }
missing=()
pkg-config --exists glib-2.0 || missing+=(libglib2.0-dev)
pkg-config --exists libuv || missing+=(libuv1-dev)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [[ ${#missing[@]} -gt 0 ]]; then
  apt_install "${missing[@]}" || echo "could not install ${missing[*]}: those peers are skipped"
fi
command -v python3 >/dev/null 2>&1 || { echo "BENCH FAILED: python3 is needed for the report"; exit 1; }

stage "2/4 build (Release, $RUNLOOP_BUILD_DIR)"
build_benchmarks || { echo "BENCH FAILED: build"; exit 1; }

bin="$RUNLOOP_BUILD_DIR/bench"
if [[ $quick == 1 ]]; then
  out="${RUNLOOP_BENCH_OUT:-$RUNLOOP_BUILD_DIR/bench-quick}"
else
  out="${RUNLOOP_BENCH_OUT:-docs/bench}"
fi
mkdir -p "$out"
raw="$out/raw.txt"
: >"$raw"
impls=()
for i in runloop cf glib uv floor; do
  if [[ -x "$bin/bench_$i" ]]; then impls+=("$i"); else echo "no $bin/bench_$i: $i skipped"; fi
done
errors=0

# run <reps> <impls> <args...>: runs bench_<impl> <args> reps times for each
# impl (interleaved, so slow drift hits every impl alike).
run() {
  local reps=$1 which=$2 r i
  shift 2
  for ((r = 0; r < reps; r++)); do
    for i in $which; do
      [[ -x "$bin/bench_$i" ]] || continue
      if ! timeout 120 "$bin/bench_$i" "$@" >>"$raw"; then
        echo "  bench_$i $* failed (exit $?)"; errors=$((errors + 1))
      fi
    done
  done
}
# run_flood <reps> <impls> <workload> <producers>: a throughput workload,
# interleaved like run(), with FLOOD items per producer for the slow
# implementations (~1 M/s: CF, the floor, GLib's perform) and FAST_FLOOD
# for the others, so that every run lasts long enough (tens of ms) for the
# scheduler's start-up noise not to decide the rate.
run_flood() {
  local reps=$1 which=$2 w=$3 p=$4 r i n
  for ((r = 0; r < reps; r++)); do
    for i in $which; do
      [[ -x "$bin/bench_$i" ]] || continue
      case $i:$w in cf:* | floor:* | glib:perform) n=$FLOOD ;; *) n=$FAST_FLOOD ;; esac
      if ! timeout 120 "$bin/bench_$i" "$w" "$p" "$n" >>"$raw"; then
        echo "  bench_$i $w $p $n failed (exit $?)"; errors=$((errors + 1))
      fi
    done
  done
}
# run_mem <args...>: the malloc-counting builds, once each.
run_mem() {
  local i
  for i in runloop cf glib uv; do
    [[ -x "$bin/bench_${i}_mem" ]] || continue
    timeout 120 "$bin/bench_${i}_mem" "$@" >>"$raw" || { echo "  bench_${i}_mem $* failed"; errors=$((errors + 1)); }
  done
}

all="${impls[*]}"
loops="runloop cf glib uv"
if [[ $quick == 1 ]]; then
  R=3; PP=5000; FLOOD=20000; FAST_FLOOD=200000; HOT=1000000; EV1=5000; EV10K=300; FIRES=200; MEM=10000; FDONE=5000
  TIMERS="1000 10000"; BIG=""; HUGE=""; IDLE_IMPLS="runloop"
else
  R=5; PP=30000; FLOOD=200000; FAST_FLOOD=2000000; HOT=2000000; EV1=20000; EV10K=2000; FIRES=500; MEM=100000; FDONE=20000
  TIMERS="1000 10000 100000"; BIG=1000000; HUGE=10000000; IDLE_IMPLS="$loops"
fi

stage "3/4 run (results in $out)"
echo "1. ping-pong ($PP round trips x $R)"
run $R "$all" pingpong $PP
echo "2. throughput ($FAST_FLOOD items per producer; CF, the floor and GLib's perform $FLOOD; x $R)"
for p in 1 2; do
  run_flood $R "$all" perform $p
  # a capturing block through RLRunLoopPerformBlock + RLRunLoopWakeUp (CF:
  # the perform row's CFRunLoopPerformBlock again), next to the function
  run_flood $R "runloop cf" performblock $p
  run_flood $R "$all" signal $p
  run_flood $R "runloop cf glib uv" signalone $p
  # runloop through the library functions (no <runloop/fastpath.h>, what a
  # caller gets by default) against uv_async_send, interleaved
  run_flood $R "runloop uv" signalfn $p
  run_flood $R "runloop uv" signalonefn $p
done
echo "2b. the producer's floor: signal + wake-up already pending ($HOT items x $R; runloop, cf, uv)"
run $R "runloop cf uv" hotcall $HOT
run $R "runloop uv" hotone $HOT
run $R "runloop uv" hotcallfn $HOT
run $R "runloop uv" hotonefn $HOT
echo "3. timers (N = $TIMERS${BIG:+ $BIG}${HUGE:+ $HUGE}; CF capped at 100k; peak RSS from 1M)"
for n in $TIMERS; do run $R "$loops" timers $n; done
if [[ -n $BIG ]]; then run 2 "runloop glib uv" timers $BIG; fi
# 10M: ~2.5 GB for runloop, ~10 s each
if [[ -n $HUGE ]]; then run 1 "runloop glib uv" timers $HUGE; fi
echo "3b. timers due over the next 2 ms in shuffled order (N = $TIMERS${BIG:+ $BIG})"
for n in $TIMERS; do run $R "$loops" spread $n; done
if [[ -n $BIG ]]; then run 2 "runloop glib uv" spread $BIG; fi
echo "4. sources (1 and 10,000)"
run $R "$loops" sources 1 $EV1
run $R "$loops" sources 10000 $EV10K
echo "5. 1,000 fds ready at once (20 bursts x $R; no CF: it has no fd sources on Linux)"
run $R "runloop glib uv floor" fds 20
echo "5b. 1 fd ready among 1 and 10,000 registered ($FDONE rounds x $R; eventfds)"
run $R "runloop uv floor" fdone 1 $FDONE
run $R "runloop uv floor" fdone 10000 $FDONE
echo "5c. the same round as a CF program: RLFileDescriptor re-enabled in its callout, RunInMode per round (uv_poll_t + UV_RUN_ONCE)"
run $R "runloop uv floor" fdcf 1 $FDONE
run $R "runloop uv floor" fdcf 10000 $FDONE
echo "6. idle (3.25 s each, $IDLE_IMPLS)"
run 1 "$IDLE_IMPLS" idle 0
run 1 "$IDLE_IMPLS" idle 1
echo "7. timer lateness ($FIRES fires of a 2 ms timer x $R)"
run $R "$all" lateness $FIRES
echo "8. memory ($MEM timers and sources, 64 loops)"
run_mem memory $MEM
echo "9. runloop driven from GLib / libuv through adapters/ vs natively (ping-pong, timers, lateness)"
embed=""
for i in runloop runloop_glib runloop_uv; do [[ -x "$bin/bench_$i" ]] && embed+="$i "; done
run $R "$embed" pingpong $PP
for n in $TIMERS; do run $R "$embed" timers $n; done
run $R "$embed" lateness $FIRES
echo "10. Python: asyncio on a run loop (RunLoopEventLoop) vs asyncio's own loop; attach() vs RunLoop.run"
if ! RUNLOOP_LIBRARY="$RUNLOOP_BUILD_DIR/librunloop.so.0" PYTHONPATH="$RUNLOOP_ROOT/python" \
     timeout 300 python3 "$RUNLOOP_ROOT/python/tests/bench_asyncio.py"; then
  echo "  bench_asyncio.py failed"; errors=$((errors + 1))
fi

stage "4/4 report"
python3 "$RUNLOOP_ROOT/Benchmarks/report.py" "$raw" "$out" $([[ $quick == 1 ]] && echo --quick) ||
  { echo "BENCH FAILED: report"; exit 1; }
echo
echo "wrote $out/results.md $out/ratios.svg $out/raw.txt"
echo "(total $((SECONDS - RUNLOOP_T0)) s)"
if [[ $errors -gt 0 ]]; then echo "BENCH FAILED: $errors program runs failed"; exit 1; fi
echo "BENCH DONE"
