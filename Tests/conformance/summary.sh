#!/usr/bin/env bash
# summary.sh — the last conformance test: counts what compare.sh recorded.
#
#   summary.sh --results DIR --scenarios "sc_a sc_b ..." \
#              [--divergences "sc_x ..."] [--known "sc_y ..."] [--out FILE]
#
# --scenarios    the differential scenarios (compared with CoreFoundation)
# --divergences  scenarios checked against runloop-only expected traces
# --known        differential scenarios with a known runloop difference
#                (expected failures until the engine is fixed)
# Prints `conformance: N/M scenarios identical to CoreFoundation` and fails
# unless every differential scenario not listed in --known is identical
# and every divergence scenario passed.  Also writes the text to --out.
set -uo pipefail
results="" scenarios="" divergences="" known="" out=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --results) results=$2; shift 2 ;;
    --scenarios) scenarios=$2; shift 2 ;;
    --divergences) divergences=$2; shift 2 ;;
    --known) known=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "summary.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
result_of() { [[ -f "$results/$1.result" ]] && cat "$results/$1.result" || echo "not run"; }
is_known() { [[ " $known " == *" $1 "* ]]; }

total=0 same=0 bad=0 text=""
for s in $scenarios; do
  total=$((total + 1))
  r=$(result_of "$s")
  if [[ "$r" == identical ]]; then
    same=$((same + 1))
  elif is_known "$s"; then
    text+="  known difference (expected failure until the engine is fixed): $s"$'\n'
  else
    text+="  NOT identical: $s ($r)"$'\n'
    bad=$((bad + 1))
  fi
done
ndiv=0
for s in $divergences; do
  r=$(result_of "$s")
  if [[ "$r" == divergence ]]; then
    ndiv=$((ndiv + 1))
    text+="  documented divergence, runloop follows Apple's documentation: $s"$'\n'
  else
    text+="  divergence scenario FAILED: $s ($r)"$'\n'
    bad=$((bad + 1))
  fi
done
line="conformance: $same/$total scenarios identical to CoreFoundation"
[[ -n "$divergences" ]] && line+=" (+ $ndiv/$(wc -w <<< "$divergences") documented divergences checked, docs/conformance.md)"
{ printf '%s' "$text"; echo "$line"; } | tee ${out:+"$out"}
[[ $bad -eq 0 ]]
