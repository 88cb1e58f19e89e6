#!/usr/bin/env bash
# Counts where each implementation's instructions go, per timer or per
# ready descriptor (issue 25's cost accounting): runs a workload at two
# sizes under callgrind for runloop and its peers, subtracts (setup
# cancels out), and prints a table by category (Benchmarks/costs.py).
# Instruction counts are reproducible on a noisy machine; times are not.
#   bash scripts/costs.sh timers     one-shot timers, all due (10k and 20k)
#   bash scripts/costs.sh fds        1,000 ready descriptors (20 and 40 bursts)
#   bash scripts/costs.sh fdcf [N]   one round of a CF program: one
#                                    RLFileDescriptor of N (default 10,000)
#                                    ready, read and re-enabled in its callout,
#                                    RunInMode per round; libuv's uv_poll_t +
#                                    UV_RUN_ONCE and the epoll floor
#                                    (2,000 and 4,000 rounds)
# Builds and uses the Release build of scripts/bench.sh (build-bench/).
set -uo pipefail
RUNLOOP_BUILD_DIR="${RUNLOOP_BUILD_DIR:-build-bench}"
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$RUNLOOP_ROOT" || exit 1

case "${1:-}" in
  timers) args=(timers); small=10000; large=20000; units=10000; impls="runloop glib uv"; what="timer" ;;
  fds) args=(fds); small=20; large=40; units=20000; impls="runloop glib uv floor"; what="ready descriptor" ;;
  fdcf) args=(fdcf "${2:-10000}"); small=2000; large=4000; units=2000; impls="runloop uv floor"
        what="round (1 ready of ${2:-10000})" ;;
  *) echo "usage: $0 timers|fds|fdcf [N]"; exit 2 ;;
esac

ensure_tools || { echo "COSTS FAILED: tools"; exit 1; }
command -v callgrind_annotate >/dev/null 2>&1 || { echo "COSTS FAILED: no callgrind_annotate (valgrind)"; exit 1; }
build_benchmarks || { echo "COSTS FAILED: build"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
columns=()
for impl in $impls; do
  bin="$RUNLOOP_BUILD_DIR/bench/bench_$impl"
  [[ -x $bin ]] || { echo "no $bin: $impl skipped"; continue; }
  for n in $small $large; do
    echo "callgrind: bench_$impl ${args[*]} $n"
    valgrind --tool=callgrind --callgrind-out-file="$work/$impl.$n" "$bin" "${args[@]}" "$n" >/dev/null 2>&1 ||
      { echo "COSTS FAILED: bench_$impl ${args[*]} $n"; exit 1; }
  done
  columns+=("$impl=$work/$impl.$small,$work/$impl.$large")
done
echo
echo "Instructions per $what (callgrind, $large minus $small, own counts by category):"
echo
python3 "$RUNLOOP_ROOT/Benchmarks/costs.py" "$units" "${columns[@]}" || { echo "COSTS FAILED: report"; exit 1; }
echo
echo "COSTS DONE"
