#!/usr/bin/env bash
# Builds RunLoopKit's DocC catalogue (Sources/RunLoopKit/RunLoopKit.docc)
# into a static documentation archive with the toolchain's docc, without
# the swift-docc-plugin (no package dependency):
#
#   bash docs/build-docc.sh [OUT]        (OUT: .build/docc by default)
#
#   1. swift build --target RunLoopKit, emitting symbol graphs
#      (separate scratch path OUT/swiftpm: other builds keep their flags);
#   2. docc convert of the catalogue with RunLoopKit's symbol graphs
#      -> OUT/RunLoopKit.doccarchive (open with `docc preview`, or serve
#      it: --transform-for-static-hosting is on);
#   3. checks that docc reported no warning in the catalogue (unresolved
#      ``links`` and <doc:...> references; warnings about the sources' doc
#      comments are only counted) and that the landing page, its topic
#      groups, the article and the main types are in the archive.
# DOCC and SWIFT override the tools (default: docc and swift on PATH, or
# next to swiftc).  ctest docs_docc (label docs) runs it.
set -euo pipefail
fail() { echo "FAIL: $*"; exit 1; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
out="${1:-$root/.build/docc}"
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"
swift="${SWIFT:-$(command -v swift || true)}"
docc="${DOCC:-$(command -v docc || true)}"
if [[ -z "$docc" && -n "$swift" ]]; then
  cand="$(dirname "$(readlink -f "$swift")")/docc"
  [[ -x "$cand" ]] && docc="$cand"
fi
[[ -n "$swift" ]] || { echo "FAIL: no swift on PATH"; exit 1; }
[[ -n "$docc" ]] || { echo "FAIL: no docc (it ships with the Swift toolchain: usr/bin/docc)"; exit 1; }

graphs="$out/symbol-graphs" all="$out/symbol-graphs-all" archive="$out/RunLoopKit.doccarchive"
rm -rf "$graphs" "$archive"
mkdir -p "$graphs" "$all"
# The graphs are written when a module is compiled: an up-to-date build
# leaves the previous ones (kept in $all); none there means a fresh build.
build() {
  echo "+ swift build --target RunLoopKit (symbol graphs -> $all)"
  "$swift" build --package-path "$root" --scratch-path "$out/swiftpm" --target RunLoopKit \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$all"
}
build
if [[ ! -f "$all/RunLoopKit.symbols.json" ]]; then
  rm -rf "$out/swiftpm"
  build
fi
[[ -f "$all/RunLoopKit.symbols.json" ]] || fail "swift build wrote no RunLoopKit symbol graph"
# RunLoopKit's own graphs only (the engine's would make a second module).
cp "$all"/RunLoopKit.symbols.json "$graphs"/
cp "$all"/RunLoopKit@*.symbols.json "$graphs"/ 2>/dev/null || true

echo "+ docc convert RunLoopKit.docc -> $archive"
"$docc" convert "$root/Sources/RunLoopKit/RunLoopKit.docc" \
  --additional-symbol-graph-dir "$graphs" \
  --fallback-display-name RunLoopKit --fallback-bundle-identifier org.runloop.RunLoopKit \
  --transform-for-static-hosting \
  --output-path "$archive" 2>&1 | tee "$out/docc.log"
[[ ${PIPESTATUS[0]} -eq 0 ]] || fail "docc convert"
# A warning located in the catalogue (an unresolved ``link`` or <doc:...>)
# fails; the ones about the source's doc comments are counted only.
catalogue_warnings="$(awk '/^(warning|error):/ { w = $0; next }
  w != "" { if ($0 ~ /-->/ && $0 !~ /\.md:/) w = ""; if (w != "") print w; w = "" }' "$out/docc.log")"
[[ -z "$catalogue_warnings" ]] || fail "docc warnings in the catalogue: $catalogue_warnings"
echo "docc: $(grep -c '^warning:' "$out/docc.log" || true) warning(s) about the source's doc comments, none in the catalogue"

data="$archive/data/documentation"
for page in runloopkit.json runloopkit/portingcfrunloopcode.json runloopkit/loop.json \
            runloopkit/loopsource.json runloopkit/looptimer.json runloopkit/loopobserver.json \
            runloopkit/loopthread.json runloopkit/loop/mode.json; do
  [[ -f "$data/$page" ]] || fail "no $page in the archive"
done
landing="$(cat "$data/runloopkit.json")"
for text in '"title":"Running a loop"' '"title":"Modes"' 'documentation/RunLoopKit/PortingCFRunLoopCode"' \
            'the same run results' ; do
  [[ "$landing" == *"$text"* || "$(cat "$data/runloopkit/portingcfrunloopcode.json")" == *"$text"* ]] \
    || fail "the archive lacks $text"
done
echo "OK: DocC archive at $archive ($(find "$data" -name '*.json' | wc -l) pages)"
