#!/usr/bin/env bash
# Runs one test program under valgrind for a memcheck_<stem> ctest.
#
#   memcheck.sh <valgrind> <suppressions> <program> [args...]
#
# The memcheck test judges memory, the plain <stem> test judges behaviour:
#   valgrind found memory errors or definite/indirect leaks  -> exit 1 (FAIL)
#   the program died from a signal                          -> exit 1 (FAIL)
#   clean, and the program passed                           -> exit 0 (pass)
#   clean, but the program's own checks failed             -> exit 77, which
#       ctest shows as "Skipped" (SKIP_RETURN_CODE): under valgrind's 20-50x
#       slowdown, traces that depend on a timer not being due yet can differ.
# RL_UNDER_VALGRIND=1 is set for the program, so a test may relax timing.
# With RUNLOOP_MEMCHECK_RESULT=<file> (set by ctest, see RunLoopTests.cmake)
# the outcome is also written there, one word: clean, waived or fail, and
# the seconds taken; cmake/memcheck_summary.sh counts them.
set -u
valgrind="$1" supp="$2"
shift 2
export RL_UNDER_VALGRIND=1
result_file="${RUNLOOP_MEMCHECK_RESULT:-}"
if [[ -n "$result_file" ]]; then
  mkdir -p "$(dirname "$result_file")" && rm -f "$result_file"
fi
# result <word>: records the outcome (no file: a timeout killed the run).
result() {
  [[ -n "$result_file" ]] && echo "$1 $((SECONDS - start))" > "$result_file"
  return 0
}
start=$SECONDS
"$valgrind" --error-exitcode=99 --leak-check=full \
  --errors-for-leak-kinds=definite,indirect \
  --show-leak-kinds=definite,indirect \
  --num-callers=40 --suppressions="$supp" "$@"
rc=$?
case $rc in
  0)  result clean; exit 0 ;;
  99) result fail
      echo "memcheck: FAIL: memory errors or definite/indirect leaks (see above)"; exit 1 ;;
  *)  if [[ $rc -ge 128 ]]; then
        result fail
        echo "memcheck: FAIL: the program died (status $rc) under valgrind"; exit 1
      fi
      result waived
      echo "memcheck: memory clean, but the program's own checks failed under valgrind" \
           "(exit $rc; timing under valgrind?): SKIPPED here (behaviour checks waived);" \
           "its plain test judges behaviour"
      exit 77 ;;
esac
