#!/usr/bin/env bash
# memcheck_summary.sh — counts the outcomes of the memcheck_* ctests.
#
#   memcheck_summary.sh BUILD_DIR
#
# Every memcheck_<stem> test (cmake/memcheck.sh) writes
# BUILD_DIR/memcheck/memcheck_<stem>.result: "clean <s>", "waived <s>" (memory
# clean, but the program's own behaviour checks failed under valgrind and were
# waived: ctest shows it as Skipped) or "fail <s>".  A test without a file was
# not run, or its ctest timeout killed it.  Prints one line (also written to
# BUILD_DIR/memcheck/summary.txt):
#   memcheck: N tests: C clean, W with behaviour checks waived under valgrind, F failed, M without a result
# followed by the waived, failed and missing names and the slowest runs.
# Exit status 0 unless a test failed or has no result.
set -uo pipefail
build=${1:?usage: memcheck_summary.sh BUILD_DIR}
dir="$build/memcheck"
# The registered memcheck tests, from the CTest files (not `ctest -N`, which
# would overwrite Testing/Temporary/LastTest.log, the log of the run).
mapfile -t tests < <(find "$build" -name CTestTestfile.cmake -exec cat {} + 2>/dev/null |
  sed -nE 's/^add_test\((\[=*\[)?(memcheck_[A-Za-z0-9_]+).*/\2/p' | sort -u)
clean=() waived=() failed=() missing=() timed=()
for t in "${tests[@]}"; do
  if [[ ! -f "$dir/$t.result" ]]; then missing+=("$t"); continue; fi
  read -r word secs < "$dir/$t.result"
  timed+=("${secs:-0} $t")
  case "$word" in
    clean) clean+=("$t") ;;
    waived) waived+=("$t") ;;
    *) failed+=("$t") ;;
  esac
done
{
  echo "memcheck: ${#tests[@]} tests: ${#clean[@]} clean, ${#waived[@]} with behaviour checks waived under valgrind, ${#failed[@]} failed, ${#missing[@]} without a result"
  [[ ${#waived[@]} -gt 0 ]] && echo "  behaviour checks waived (memory clean; the plain test judges behaviour): ${waived[*]}"
  [[ ${#failed[@]} -gt 0 ]] && echo "  failed: ${failed[*]}"
  [[ ${#missing[@]} -gt 0 ]] && echo "  without a result (not run, or killed by the ctest timeout): ${missing[*]}"
  if [[ ${#timed[@]} -gt 0 ]]; then
    echo "  slowest: $(printf '%s\n' "${timed[@]}" | sort -rn | head -5 | awk '{ printf "%s%s %d s", sep, $2, $1; sep = ", " }')"
  fi
} | tee "$dir/summary.txt"
[[ ${#failed[@]} -eq 0 && ${#missing[@]} -eq 0 ]]
