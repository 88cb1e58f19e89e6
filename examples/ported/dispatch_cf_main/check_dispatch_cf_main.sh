#!/usr/bin/env bash
# ctest ported_dispatch_cf_main: runs libdispatch's dispatch_cf_main test
# program (unchanged, built against runloop through cfcompat.h) and
# compares what it prints (stdout and stderr) with expected.txt; with a
# second program (the same source built against the real CoreFoundation)
# that one must print the same.
#   check_dispatch_cf_main.sh RUNLOOP_EXE EXPECTED [CF_EXE]
set -uo pipefail
exe="$1" expected="$2" cf="${3:-}"
status=0
check() {
  local label="$1" program="$2" out rc=0
  out="$(timeout -k 5 30 "$program" 2>&1)" || rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "FAIL: the $label build exited with status $rc"; printf '%s\n' "$out"; status=1; return
  fi
  if ! diff -u "$expected" <(printf '%s\n' "$out"); then
    echo "FAIL: the $label build printed something else than $expected"; status=1; return
  fi
  echo "OK: the $label build printed $(wc -l < "$expected") expected lines"
}
check runloop "$exe"
[[ -n "$cf" ]] && check CoreFoundation "$cf"
exit $status
