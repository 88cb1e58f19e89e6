#!/usr/bin/env bash
# The C API reference (ctest docs_reference, label docs; issue 23):
#
#   check_reference.sh BUILD HTML_DIR [TARGET]
#
# builds the docs target (TARGET: docs, runloop_docs in a parent project) (Doxygen, cmake/Docs.cmake) in BUILD, then checks
# that HTML_DIR/runloop_8h.html documents key functions with the text of
# their comments in include/runloop/runloop.h (each phrase must follow the
# function's own heading, within its entry), and that the header's opening
# comment (ownership, threads) is the file's description.
set -euo pipefail
build="$1" html="$2" target="${3:-docs}"
fail() { echo "FAIL: $*"; exit 1; }

cmake --build "$build" --target "$target"
page="$html/runloop_8h.html"
[[ -f "$html/index.html" ]] || fail "no $html/index.html"
[[ -f "$page" ]] || fail "no page for runloop.h ($page)"

# The page as one line of text: tags dropped, entities for spaces and the
# heading mark turned into plain characters, whitespace collapsed.
text="$(sed -e 's/<[^>]*>//g' -e 's/&#160;/ /g' -e 's/&nbsp;/ /g' -e 's/&#9670;/◆/g' "$page" | tr -s ' \t\n' '   ')"

# expect FUNCTION PHRASE...: each phrase within FUNCTION's entry (its
# heading "◆ FUNCTION()" up to the next heading).
expect() {
  local fn="$1"; shift
  local entry="${text#*◆ "$fn"() }"
  [[ "$entry" != "$text" ]] || fail "$fn has no entry in $page"
  entry="${entry%%◆*}"
  for phrase in "$@"; do
    [[ "$entry" == *"$phrase"* ]] || fail "$fn's entry lacks \"$phrase\": ${entry:0:400}"
  done
  echo "ok: $fn documented (${#entry} chars): \"$1\""
}
expect RLRunLoopRunInMode \
  "Runs the current thread" "one pass without sleeping" \
  "May be called from inside a callout (nested run)."
expect RLRunLoopSourceSignalAndWakeUp \
  "holding the source, in one call" "Mixes freely with the CF pair"
expect RLRunLoopTimerCreate \
  "A repeating timer keeps its original schedule" \
  "fires once and continues with the next future slot (no bursts)"

for phrase in "Objects and ownership" "with no library lock held" "Wake-ups are never lost."; do
  [[ "$text" == *"$phrase"* ]] || fail "the file description lacks \"$phrase\""
done
echo "ok: runloop.h's opening comment is the file description"
for h in ports insight cfcompat version fastpath; do
  [[ -f "$html/${h}_8h.html" ]] || fail "no page for $h.h"
done
warnings="$(dirname "$html")/doxygen-warnings.log"
[[ -f "$warnings" ]] && echo "doxygen warnings: $(wc -l <"$warnings") (not errors; $warnings)"
echo "OK: C API reference at $html/index.html"
