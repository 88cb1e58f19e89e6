#!/usr/bin/env bash
# Sanitizer runs of runloop (issue 7 §4), bounded in time; run by
# scripts/test.sh.  Three parts, each against its own SwiftPM build of the
# library (scratch paths .build-tsan / .build-asan, git-ignored):
#
#   tsan  librunloop.so built with --sanitize=thread; the stress programs
#         (Tests/stress/stress_*.c), the misuse test and the model test
#         built with clang -fsanitize=thread: zero ThreadSanitizer reports.
#   asan  librunloop.so built with --sanitize=address (plus libFuzzer's
#         coverage, -sanitize=fuzzer); every C test (Tests/c/test_*.c) and
#         Tests/stress/test_misuse.c built with -fsanitize=address and run:
#         zero AddressSanitizer reports (leak checking off: the Swift
#         runtime's caches are reachable at exit; valgrind memcheck judges
#         leaks).
#   fuzz  Tests/fuzz/fuzz_api.c with -fsanitize=fuzzer,address, seeded with
#         Tests/fuzz/corpus, for RUNLOOP_FUZZ_SECONDS (60): no crash.
#
#   bash Tests/stress/sanitizers.sh [tsan] [asan] [fuzz]     (default: all)
#   RUNLOOP_FUZZ_SECONDS=600 bash Tests/stress/sanitizers.sh fuzz
# Exit 0 when every part passed; the last line says which part failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
cd "$root" || exit 1
parts=("$@")
[[ ${#parts[@]} -eq 0 ]] && parts=(tsan asan fuzz)

swift_bin="$(dirname "$(readlink -f "$(command -v swift)")")"
clang="${RUNLOOP_SAN_CLANG:-$swift_bin/clang}"
rtdir="$(dirname "$(find "$swift_bin/../lib/clang" -name 'libclang_rt.tsan-x86_64.so' | head -1)")"
swiftrt="$swift_bin/../lib/swift/linux"
out="$root/.build-sanitizers"
mkdir -p "$out"
fuzz_seconds="${RUNLOOP_FUZZ_SECONDS:-60}"
trace_def="-DRL_TRACE_DIR=\"$root/Tests/traces\""

fail() { echo "SANITIZERS FAILED: $*"; exit 1; }
step() { printf '\n---- [sanitizers %3ds] %s\n' "$SECONDS" "$*"; }

# run_checked <log> <kind> <timeout> <program> [args]: runs it, fails on a
# nonzero exit or any sanitizer report in its output.
run_checked() {
  local log="$1" kind="$2" limit="$3"
  shift 3
  timeout "$limit" "$@" >"$log" 2>&1
  local rc=$?
  local reports
  reports=$(grep -c "WARNING: ThreadSanitizer\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer" "$log")
  echo "  $(basename "$1") ${*:2}: exit $rc, $reports $kind reports; $(grep -E '^(ok|FAIL)' "$log" | tail -1)"
  if [[ $rc -ne 0 || $reports -ne 0 ]]; then
    sed -n '1,80p' "$log"
    return 1
  fi
}

if [[ " ${parts[*]} " == *" tsan "* ]]; then
  step "tsan: swift build --sanitize=thread (.build-tsan)"
  swift build -c debug --product runloop --sanitize=thread --scratch-path .build-tsan 2>&1 | tail -1
  lib="$root/.build-tsan/debug/librunloop.so"
  [[ -f "$lib" ]] || fail "tsan build"
  export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1"
  build_tsan() {  # name sources...
    local name="$1"
    shift
    "$clang" -std=gnu11 -g -O1 -fsanitize=thread -shared-libsan -I include -I Tests/c -I Tests/model "$trace_def" \
      "$@" -o "$out/$name-tsan" "$lib" -Wl,-rpath,"$root/.build-tsan/debug:$rtdir" -lpthread || fail "tsan: compiling $name"
  }
  build_tsan stress_threads Tests/stress/stress_threads.c
  build_tsan stress_churn Tests/stress/stress_churn.c
  build_tsan test_misuse Tests/stress/test_misuse.c
  build_tsan test_model Tests/model/test_model.c Tests/model/model.c
  build_tsan test_rl_inbox Tests/c/test_rl_inbox.c
  build_tsan test_rl_signal_ring Tests/c/test_rl_signal_ring.c
  build_tsan test_rl_signal_wake Tests/c/test_rl_signal_wake.c
  build_tsan test_rl_wake_pingpong Tests/c/test_rl_wake_pingpong.c
  build_tsan test_rl_callout_release Tests/c/test_rl_callout_release.c
  build_tsan test_rl_timer_extras Tests/c/test_rl_timer_extras.c
  build_tsan test_rl_lazy_poller Tests/c/test_rl_lazy_poller.c
  build_tsan test_rl_stop_race Tests/c/test_rl_stop_race.c
  build_tsan test_rl_ports_local Tests/c/test_rl_ports_local.c
  build_tsan test_rl_fd_lazy Tests/c/test_rl_fd_lazy.c
  step "tsan: run (zero reports required)"
  ok=1
  run_checked "$out/stress_threads-tsan.log" TSan 300 "$out/stress_threads-tsan" 5 || ok=0
  run_checked "$out/stress_churn-tsan.log" TSan 300 "$out/stress_churn-tsan" 2000 || ok=0
  # test_misuse forks.  The fork handler's prepare holds every library lock
  # across fork() (the 128 stripes among them, Fork.swift); TSan's deadlock
  # detector tracks at most 64 locks held by one thread and aborts with a
  # CHECK failure, so it is off for this program (race detection stays on).
  TSAN_OPTIONS="$TSAN_OPTIONS detect_deadlocks=0" \
    run_checked "$out/test_misuse-tsan.log" TSan 120 "$out/test_misuse-tsan" || ok=0
  run_checked "$out/test_model-tsan.log" TSan 300 "$out/test_model-tsan" --ops 20000 --quiet || ok=0
  run_checked "$out/test_rl_inbox-tsan.log" TSan 300 "$out/test_rl_inbox-tsan" || ok=0
  run_checked "$out/test_rl_signal_ring-tsan.log" TSan 300 "$out/test_rl_signal_ring-tsan" || ok=0
  run_checked "$out/test_rl_signal_wake-tsan.log" TSan 300 "$out/test_rl_signal_wake-tsan" || ok=0
  # Lost wake-ups and late callouts: every signalling path, and
  # items taken away while their callouts are due.
  run_checked "$out/test_rl_wake_pingpong-tsan.log" TSan 300 "$out/test_rl_wake_pingpong-tsan" || ok=0
  run_checked "$out/test_rl_callout_release-tsan.log" TSan 300 "$out/test_rl_callout_release-tsan" || ok=0
  # A timer's extras, made by whichever of three threads needs them first.
  run_checked "$out/test_rl_timer_extras-tsan.log" TSan 300 "$out/test_rl_timer_extras-tsan" || ok=0
  # A loop's poller and insight, made by its first run while others wake it.
  run_checked "$out/test_rl_lazy_poller-tsan.log" TSan 300 "$out/test_rl_lazy_poller-tsan" || ok=0
  # Stops from another thread racing the loop's sleep and its thread's exit.
  run_checked "$out/test_rl_stop_race-tsan.log" TSan 300 "$out/test_rl_stop_race-tsan" 5000 1000 || ok=0
  # Local ports of one name made, sent to and freed by four threads; it
  # forks too (deadlock detector off, as for test_misuse).
  TSAN_OPTIONS="$TSAN_OPTIONS detect_deadlocks=0" \
    run_checked "$out/test_rl_ports_local-tsan.log" TSan 300 "$out/test_rl_ports_local-tsan" || ok=0
  # RLFileDescriptor's callbacks enabled and disabled by two threads while
  # its callouts re-enable them (the lazy disable).
  run_checked "$out/test_rl_fd_lazy-tsan.log" TSan 300 "$out/test_rl_fd_lazy-tsan" || ok=0
  [[ $ok == 1 ]] || fail "tsan"
fi

if [[ " ${parts[*]} " == *" asan "* || " ${parts[*]} " == *" fuzz "* ]]; then
  step "asan: swift build --sanitize=address -sanitize=fuzzer (.build-asan)"
  swift build -c debug --product runloop --sanitize=address -Xswiftc -sanitize=fuzzer --scratch-path .build-asan 2>&1 | tail -1
  alib="$root/.build-asan/debug/librunloop.so"
  [[ -f "$alib" ]] || fail "asan build"
fi

if [[ " ${parts[*]} " == *" asan "* ]]; then
  step "asan: C tests with -fsanitize=address"
  export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0"
  support=()
  for f in Tests/c/*.c; do [[ "$(basename "$f")" == test_* ]] || support+=("$f"); done
  ok=1 n=0
  for t in Tests/c/test_*.c Tests/stress/test_misuse.c; do
    name="$(basename "$t" .c)"
    extra=()
    [[ "$name" == *_blocks* ]] && extra=(-fblocks -L"$swiftrt" -lBlocksRuntime)
    "$clang" -std=gnu11 -g -O1 -fsanitize=address -I include -I Tests/c "$trace_def" "${extra[@]:0:1}" \
      "$t" "${support[@]}" -o "$out/$name-asan" "$alib" "${extra[@]:1}" \
      -Wl,-rpath,"$root/.build-asan/debug:$swiftrt" -lpthread || { echo "  $name: does not compile"; ok=0; continue; }
    run_checked "$out/$name-asan.log" ASan 60 "$out/$name-asan" || ok=0
    n=$((n + 1))
  done
  echo "  $n C test programs under ASan"
  [[ $ok == 1 ]] || fail "asan"
fi

if [[ " ${parts[*]} " == *" fuzz "* ]]; then
  step "fuzz: fuzz_api for ${fuzz_seconds}s"
  "$clang" -std=gnu11 -g -O1 -fsanitize=fuzzer,address -I include Tests/fuzz/fuzz_api.c -o "$out/fuzz_api" "$alib" \
    -Wl,-rpath,"$root/.build-asan/debug:$swiftrt" -lpthread || fail "fuzz: compiling fuzz_api"
  work="$out/fuzz-corpus"
  mkdir -p "$work"
  # new inputs go to $work (not the committed seed corpus); crashes to $out
  ( cd "$out" && ASAN_OPTIONS="detect_leaks=0" timeout $((fuzz_seconds + 120)) ./fuzz_api \
      -max_total_time="$fuzz_seconds" -detect_leaks=0 -rss_limit_mb=3000 -print_final_stats=1 \
      "$work" "$root/Tests/fuzz/corpus" ) >"$out/fuzz.log" 2>&1
  rc=$?
  grep -E "DONE|stat::number_of_executed_units|stat::peak_rss_mb" "$out/fuzz.log" | sed 's/^/  /'
  if [[ $rc -ne 0 ]]; then
    grep -A40 -E "ERROR: (AddressSanitizer|libFuzzer)|deadly signal" "$out/fuzz.log" | head -60
    ls "$out"/crash-* "$out"/timeout-* "$out"/oom-* 2>/dev/null
    fail "fuzz (exit $rc; reproduce: $out/fuzz_api <crash file>)"
  fi
fi

echo
echo "SANITIZERS PASSED (${parts[*]}) in ${SECONDS}s"
