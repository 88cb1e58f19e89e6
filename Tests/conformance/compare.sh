#!/usr/bin/env bash
# compare.sh — one differential conformance test.
#
#   compare.sh --name N --rl RL_EXE --results DIR (--cf CF_EXE | --expect FILE)
#              [--repeat K] [--timeout S]
#
# --cf      run the scenario built against the real CoreFoundation and the
#           one built against runloop (cfcompat.h); pass when both exit 0 and
#           their stdout is byte for byte identical.  Result: "identical".
# --expect  a documented divergence (docs/conformance.md): CF on Linux is
#           wrong there, so only runloop runs and its stdout must equal FILE
#           (Apple's documented behaviour).  Result: "divergence".
# --repeat  run everything K times (default 1, or $CONF_REPEAT); every run
#           must give the same trace.
# Writes DIR/N.result (read by summary.sh); exit 0 = pass, 1 = fail.
set -uo pipefail
name="" rl="" cf="" expect="" results="" repeat="${CONF_REPEAT:-1}" limit=30
while [[ $# -gt 0 ]]; do
  case "$1" in
    --name) name=$2; shift 2 ;;
    --rl) rl=$2; shift 2 ;;
    --cf) cf=$2; shift 2 ;;
    --expect) expect=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) echo "compare.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ -n "$name" && -n "$rl" && -n "$results" && ( -n "$cf" || -n "$expect" ) ]] \
  || { echo "compare.sh: need --name, --rl, --results and --cf or --expect" >&2; exit 2; }
mkdir -p "$results"
rm -f "$results/$name.result"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_one LABEL EXE OUT: runs EXE with a time limit, stdout to OUT.
run_one() {
  local rc=0
  timeout -k 5 "$limit" "$2" > "$3" 2> "$3.err" || rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "FAIL $name: $1 build exited with status $rc$( [[ $rc -eq 124 ]] && echo ' (timed out)')"
    echo "--- $1 stdout"; cat "$3"
    echo "--- $1 stderr"; cat "$3.err"
    return 1
  fi
  [[ -s "$3.err" ]] && { echo "($1 stderr:)"; sed 's/^/  /' "$3.err"; }
  return 0
}

for ((i = 1; i <= repeat; i++)); do
  run_one runloop "$rl" "$tmp/rl.$i" || exit 1
  if [[ -n "$expect" ]]; then
    if ! cmp -s "$expect" "$tmp/rl.$i"; then
      echo "FAIL $name (run $i): runloop's trace differs from the expected $expect"
      diff -u "$expect" "$tmp/rl.$i" | sed 's/^/  /'
      exit 1
    fi
  else
    run_one CoreFoundation "$cf" "$tmp/cf.$i" || exit 1
    if ! cmp -s "$tmp/cf.$i" "$tmp/rl.$i"; then
      echo "FAIL $name (run $i): runloop differs from CoreFoundation"
      diff -u --label CoreFoundation --label runloop "$tmp/cf.$i" "$tmp/rl.$i" | sed 's/^/  /'
      exit 1
    fi
  fi
  if [[ $i -gt 1 ]] && ! cmp -s "$tmp/rl.1" "$tmp/rl.$i"; then
    echo "FAIL $name: run $i gave another trace than run 1 (not deterministic)"
    diff -u "$tmp/rl.1" "$tmp/rl.$i" | sed 's/^/  /'
    exit 1
  fi
done

lines=$(wc -l < "$tmp/rl.1")
if [[ -n "$expect" ]]; then
  echo "divergence" > "$results/$name.result"
  echo "ok $name: runloop matches its documented trace ($lines lines, $repeat run(s)); CF on Linux differs (docs/conformance.md)"
else
  echo "identical" > "$results/$name.result"
  echo "ok $name: identical to CoreFoundation ($lines lines, $repeat run(s))"
fi
cat "$tmp/rl.1"
