#!/usr/bin/env bash
# ctest ported_socky: runs Socky (examples/ported/socky/main.c, built
# against runloop through cfcompat.h) the way its README describes —
# listening on loopback ports and reporting connection attempts — and
# checks what it prints:
#   socky P P        the second bind of P fails (CFSocketSetAddress = -1),
#                    the run loop starts with the first socket only;
#   two connections  two accept callbacks, one line each.
#   check_socky.sh SOCKY_EXE
set -uo pipefail
exe="$1"
work="$(mktemp -d)"
pid=""
cleanup() {
  [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# wait_for TEXT: until the output holds TEXT (at most 10 s).
wait_for() {
  for _ in $(seq 1 200); do
    grep -qF -- "$1" "$work/out" && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# A free loopback port: Socky itself tells (it prints "Failed to bind" for
# a port in use); try a few.
for attempt in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 40000))
  stdbuf -oL "$exe" "$port" "$port" > "$work/out" 2>&1 &
  pid=$!
  if wait_for "Beginning run loop" && grep -qF "Listening on 127.0.0.1:$port" "$work/out"; then
    break
  fi
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=""
done
[[ -n "$pid" ]] || { echo "FAIL: Socky did not start"; cat "$work/out"; exit 1; }

for n in 1 2; do
  exec 3<>"/dev/tcp/127.0.0.1/$port" || { echo "FAIL: cannot connect to $port"; exit 1; }
  want=$n
  for _ in $(seq 1 200); do
    [[ $(grep -c "^Got connection on $port!$" "$work/out") -ge $want ]] && break
    sleep 0.05
  done
  exec 3>&-
done

kill "$pid"; wait "$pid" 2>/dev/null; pid=""
expected="Listening on 127.0.0.1:$port
Failed to bind to 127.0.0.1:$port with -1
Beginning run loop
Got connection on $port!
Got connection on $port!"
if ! diff -u <(printf '%s\n' "$expected") "$work/out"; then
  echo "FAIL: Socky printed something else"
  exit 1
fi
echo "OK: Socky on runloop: listened on $port, reported 2 connections"
