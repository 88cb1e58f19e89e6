#!/usr/bin/env bash
# uncovered.sh — cfcompat.h turns CF names it does not cover into a
# compile-time error naming the call (ctest conformance_cfcompat_uncovered).
#
#   uncovered.sh INCLUDE_DIR CC [CC...]
#
# For each compiler: a CF-style file calling CFShow and declaring a
# CFDictionaryRef must fail to compile with "... is not covered by
# <runloop/cfcompat.h>" for both; with RUNLOOP_CFCOMPAT_ALLOW_UNCOVERED a
# file bringing its own CFShow must compile.
set -uo pipefail
include=$1; shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/uses.c" <<'C'
#include <runloop/cfcompat.h>
int main(void)
{
    CFDictionaryRef d = 0;
    CFShow(CFSTR("hello"));
    return d != 0;
}
C
cat > "$tmp/own.c" <<'C'
#define RUNLOOP_CFCOMPAT_ALLOW_UNCOVERED 1
#include <runloop/cfcompat.h>
#include <stdio.h>
static void CFShow(CFStringRef s) { puts(s); }
int main(void)
{
    CFShow(CFSTR("hello"));
    return 0;
}
C
status=0
for cc in "$@"; do
  for lang in c c++; do
    if "$cc" -x "$lang" -fsyntax-only -Wall -I"$include" "$tmp/uses.c" > "$tmp/out" 2>&1; then
      echo "FAIL ($cc, $lang): a file calling CFShow compiled"; status=1; continue
    fi
    for name in CFShow CFDictionaryRef; do
      if ! grep -q "$name is not covered by <runloop/cfcompat.h>" "$tmp/out"; then
        echo "FAIL ($cc, $lang): no 'not covered' error for $name:"; sed 's/^/  /' "$tmp/out"; status=1
      fi
    done
    if ! "$cc" -x "$lang" -fsyntax-only -Wall -Werror -I"$include" "$tmp/own.c" > "$tmp/out" 2>&1; then
      echo "FAIL ($cc, $lang): RUNLOOP_CFCOMPAT_ALLOW_UNCOVERED did not allow an own CFShow:"
      sed 's/^/  /' "$tmp/out"; status=1
    fi
  done
  [[ $status -eq 0 ]] && echo "ok $cc: uncovered CF names are compile-time errors (C, C++)"
done
exit $status
