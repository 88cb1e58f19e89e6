#!/usr/bin/env bash
# Records a trace of examples/trace_demo.c and checks it is valid JSON.
#
#   bash scripts/trace-demo.sh                    build (build-trace/), write docs/trace-example.json
#   scripts/trace-demo.sh --program P --out F     run an already built trace_demo (ctest trace_demo_json)
#
# Open the JSON in https://ui.perfetto.dev or chrome://tracing.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
program="" out="$here/docs/trace-example.json"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --program) program="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "trace-demo: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ -z "$program" ]]; then
  source "$here/scripts/common.sh" 2>/dev/null && ensure_tools || true
  cmake -S "$here" -B "$here/build-trace" -G Ninja -DRUNLOOP_BUILD_TESTS=OFF >/dev/null
  cmake --build "$here/build-trace" --target example_trace_demo >/dev/null
  program="$here/build-trace/example_trace_demo"
fi
"$program" "$out"
python3 -m json.tool "$out" >/dev/null
python3 - "$out" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["name"] for e in events}
need = {"thread_name", "run", "Waiting", "Timers", "timer", "observer", "Sources", "Blocks", "BeforeWaiting",
        "source", "block"}
missing = need - names
assert not missing, f"missing events: {sorted(missing)}"
assert all(e["ph"] in ("X", "M") for e in events)
print(f"trace-demo: {sys.argv[1]}: valid JSON, {len(events)} events")
PY
