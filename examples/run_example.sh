#!/usr/bin/env bash
# ctest example_<name>: runs an example program and compares what it prints
# with examples/expected/<name>.txt (exit status must be 0 as well).
#   run_example.sh PROGRAM EXPECTED_FILE
set -uo pipefail
program="$1" expected="$2"
out="$("$program")"
rc=$?
if ! diff -u "$expected" <(printf '%s\n' "$out"); then
  echo "FAIL: $(basename "$program") printed something else than $expected"
  exit 1
fi
[[ $rc == 0 ]] || { echo "FAIL: $(basename "$program") exited $rc"; exit 1; }
echo "OK: $(basename "$program") printed $expected"
