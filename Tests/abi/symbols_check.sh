#!/usr/bin/env bash
# ABI name check (ctest `abi_symbols_check`).
#
# The functions declared in the public headers (include/runloop/*.h, the
# `#if defined(__BLOCKS__)` ones included) must be exactly the RL* functions
# the library exports:
#     nm -D --defined-only librunloop.so | grep ' T RL'
# With --swift-header, the functions the Swift compiler declares in the
# generated RunLoopCore-Swift.h (the @c entry points, whose types
# conflict_check.c checks) must be that same set too.  Missing and extra names
# are printed; any difference exits 1.
#
# usage: symbols_check.sh --lib LIB --include DIR [--swift-header H] [--cc CC]
#                         [--strict-exports] [--soname NAME] [--runpath DIR]
#   --include DIR     directory holding runloop/*.h
#   --cc CC           compiler used to list declarations.  clang: exact list
#                     from its AST (with -fblocks); anything else: a grep of
#                     the header's one-line prototypes.  Default: clang if on
#                     PATH.
#   --strict-exports  also fail if the library exports any symbol that is not
#                     an RL* function (the version script's job)
#   --soname NAME     also check the library's SONAME
#   --runpath DIR     also check that the library's RUNPATH contains DIR
#   --self-contained  also check that the library needs no Swift runtime
#                     library (no NEEDED libswift*, libdispatch or
#                     libBlocksRuntime) and has no RUNPATH: the static build
set -euo pipefail

lib="" include="" swift_header="" cc="" strict=0 soname="" runpath="" self_contained=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --lib) lib="$2"; shift 2 ;;
    --include) include="$2"; shift 2 ;;
    --swift-header) swift_header="$2"; shift 2 ;;
    --cc) cc="$2"; shift 2 ;;
    --strict-exports) strict=1; shift ;;
    --soname) soname="$2"; shift 2 ;;
    --runpath) runpath="$2"; shift 2 ;;
    --runpath=*) runpath="${1#--runpath=}"; shift ;;
    --self-contained) self_contained=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "symbols_check: unknown argument: $1" >&2; exit 2 ;;
  esac
done
[[ -n "$lib" && -n "$include" ]] || { echo "symbols_check: --lib and --include are required" >&2; exit 2; }
[[ -f "$lib" ]] || { echo "symbols_check: library not found: $lib" >&2; exit 2; }
[[ -d "$include/runloop" ]] || { echo "symbols_check: no $include/runloop" >&2; exit 2; }
[[ -z "$swift_header" || -f "$swift_header" ]] || { echo "symbols_check: generated header not found: $swift_header (build the runloop target first)" >&2; exit 2; }
if [[ -z "$cc" ]]; then cc="$(command -v clang || true)"; fi

include="$(cd "$include" && pwd -P)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

status=0
fail() { echo "FAIL: $*"; status=1; }

# ---- names declared by the headers --------------------------------------
headers=("$include"/runloop/*.h)
for h in "${headers[@]}"; do echo "#include \"$h\""; done > "$tmp/headers.c"
if [[ -n "$swift_header" ]]; then
  swift_header="$(cd "$(dirname "$swift_header")" && pwd -P)/$(basename "$swift_header")"
  # The opt-in fast paths' macros (fastpath.h) would rename the generated
  # header's declarations of the functions they wrap: fastpath.h comes last.
  { grep -v '/fastpath\.h"$' "$tmp/headers.c"; echo "#include \"$swift_header\""
    grep '/fastpath\.h"$' "$tmp/headers.c" || true; } > "$tmp/swift.c"
fi

is_clang=0
if [[ -n "$cc" ]] && "$cc" --version 2>/dev/null | grep -q clang; then is_clang=1; fi

# clang_decls <tu> <out>: "file name" for every FunctionDecl whose name
# contains RL, except static (inline) ones, which nothing exports.
# Filtered dumps print each declaration's full path, e.g.
#   FunctionDecl 0x.. [prev 0x..] </abs/include/runloop/runloop.h:128:1, col:36> col:11 RLRetain 'RLTypeRef (RLTypeRef)'
clang_decls() {
  "$cc" -fsyntax-only -fblocks -std=gnu11 -I "$include" \
    -Xclang -ast-dump -Xclang -ast-dump-filter -Xclang RL "$1" \
    > "$tmp/ast.txt" 2> "$tmp/ast.err"
  local rc=$?
  grep -vE "' static( inline)?$" "$tmp/ast.txt" |
  sed -nE "s/^FunctionDecl 0x[0-9a-f]+ (prev 0x[0-9a-f]+ )?<([^:<>]+):[0-9]+:[0-9]+[^>]*> [^ ]+ (used |referenced |implicit |invalid )*([A-Za-z_][A-Za-z0-9_]*) '.*/\2 \4/p" \
    > "$2"
  return $rc
}

if [[ $is_clang == 1 ]]; then
  if ! clang_decls "$tmp/headers.c" "$tmp/decls.txt"; then
    cat "$tmp/ast.err"
    echo "symbols_check: $cc could not parse $include/runloop/*.h"
    exit 1
  fi
  # RL* names only: cfcompat.h declares CF names it does not cover (some,
  # like CFURLCreateWithString, contain "RL") as unavailable, never exported.
  awk -v dir="$include/runloop/" 'index($1, dir) == 1 && $2 ~ /^RL/ { print $2 }' "$tmp/decls.txt" | sort -u > "$tmp/header.txt"
  if [[ -n "$swift_header" ]]; then
    # Conflicting types are abi_conflict_check's finding; the names are
    # still listed (as invalid declarations), so errors are only reported.
    if ! clang_decls "$tmp/swift.c" "$tmp/sdecls.txt"; then
      echo "note: the generated header does not compile against the public header" \
           "($(grep -c 'error:' "$tmp/ast.err") errors; abi_conflict_check shows them)"
    fi
    awk -v f="$swift_header" '$1 == f { print $2 }' "$tmp/sdecls.txt" | sort -u > "$tmp/swift.txt"
  fi
  method="clang AST ($cc)"
else
  # Fallback: the header writes each prototype on one line starting at
  # column 0 ("type RLName(args);"); blocks-only ones are included.
  for h in "${headers[@]}"; do
    { grep -E '^[A-Za-z_][A-Za-z0-9_ *]*[ *](RL[A-Za-z0-9_]*)[[:space:]]*\(' "$h" || true; } \
      | { grep -vE '^(typedef|#|return|static)' || true; } \
      | sed -E 's/^[A-Za-z_][A-Za-z0-9_ *]*[ *](RL[A-Za-z0-9_]*)[[:space:]]*\(.*/\1/'
  done | sort -u > "$tmp/header.txt"
  if [[ -n "$swift_header" ]]; then
    grep -E '^SWIFT_EXTERN ' "$swift_header" \
      | sed -nE 's/.*[ *](RL[A-Za-z0-9_]*)\(.*/\1/p' | sort -u > "$tmp/swift.txt"
  fi
  method="grep of one-line prototypes"
fi

# ---- names exported by the library -------------------------------------
nm -D --defined-only "$lib" > "$tmp/nm.txt"
awk '$2 == "T" && $3 ~ /^RL/ { print $3 }' "$tmp/nm.txt" | sed 's/@.*//' | sort -u > "$tmp/exports.txt"

n_header=$(wc -l < "$tmp/header.txt")
n_exports=$(wc -l < "$tmp/exports.txt")
echo "header functions: $n_header ($method)"
echo "library exports:  $n_exports (nm -D --defined-only $(basename "$lib") | grep ' T RL')"
[[ $n_header -gt 0 ]] || fail "no functions found in $include/runloop/*.h"

compare() { # compare <a-file> <a-label> <b-file> <b-label>
  local only_a only_b
  only_a="$(comm -23 "$1" "$3")"
  only_b="$(comm -13 "$1" "$3")"
  if [[ -n "$only_a" ]]; then
    fail "in $2 but not in $4:"; sed 's/^/    /' <<< "$only_a"
  fi
  if [[ -n "$only_b" ]]; then
    fail "in $4 but not in $2:"; sed 's/^/    /' <<< "$only_b"
  fi
}

compare "$tmp/header.txt" "the header" "$tmp/exports.txt" "the library exports"

# Every export carries the version node of cmake/runloop.map (RUNLOOP_x.y).
unversioned="$(awk '$2 == "T" && $3 ~ /^RL/ && $3 !~ /@@RUNLOOP_[0-9]+\.[0-9]+$/ { print $3 }' "$tmp/nm.txt")"
if [[ -n "$unversioned" ]]; then
  fail "exports without a RUNLOOP_x.y version node:"; sed 's/^/    /' <<< "$unversioned" | head -5
else
  echo "symbol versions:  $(awk '$2 == "T" && $3 ~ /^RL/ { sub(/.*@@/, "", $3); print $3 }' "$tmp/nm.txt" | sort -u | tr '\n' ' ')"
fi

if [[ -n "$swift_header" ]]; then
  echo "Swift @c decls:   $(wc -l < "$tmp/swift.txt") ($(basename "$swift_header"))"
  compare "$tmp/exports.txt" "the library exports" "$tmp/swift.txt" \
    "the generated Swift header (C-visible @c functions)"
fi

if [[ $strict == 1 ]]; then
  # Defined global dynamic symbols other than RL* functions (version-node
  # 'A' symbols excepted; lower-case types are LOCAL entries the version
  # script demoted, which nothing can link against).
  others="$(awk '$2 ~ /^[A-Z]$/ && $2 != "A" && !($2 == "T" && $3 ~ /^RL/) { print $2, $3 }' "$tmp/nm.txt")"
  if [[ -n "$others" ]]; then
    fail "exported symbols that are not RL* functions ($(wc -l <<< "$others")):"
    head -20 <<< "$others" | sed 's/^/    /'
  else
    echo "exports:          RL* functions only"
  fi
fi

if [[ $self_contained == 1 ]]; then
  dyn="$(readelf -d "$lib")"
  needed="$(sed -nE 's/.*\(NEEDED\).*\[(.*)\].*/\1/p' <<< "$dyn" | tr '\n' ' ')"
  got="$(sed -nE 's/.*\((RUNPATH|RPATH)\).*\[(.*)\].*/\2/p' <<< "$dyn")"
  if [[ " $needed" == *" libswift"* || " $needed" == *" libdispatch"* || " $needed" == *" libBlocksRuntime"* ]]; then
    fail "a self-contained library needs only system libraries; NEEDED: $needed"
  elif [[ -n "$got" ]]; then
    fail "a self-contained library has no RUNPATH; got '$got'"
  else
    echo "self-contained:   NEEDED $needed(no RUNPATH)"
  fi
fi

if [[ -n "$soname" || -n "$runpath" ]]; then
  dyn="$(readelf -d "$lib")"
  if [[ -n "$soname" ]]; then
    got="$(sed -nE 's/.*\(SONAME\).*\[(.*)\].*/\1/p' <<< "$dyn")"
    if [[ "$got" == "$soname" ]]; then echo "SONAME:           $got"
    else fail "SONAME is '${got:-none}', expected '$soname'"; fi
  fi
  if [[ -n "$runpath" ]]; then
    got="$(sed -nE 's/.*\((RUNPATH|RPATH)\).*\[(.*)\].*/\2/p' <<< "$dyn")"
    if [[ ":$got:" == *":$runpath:"* ]]; then echo "RUNPATH:          $got"
    else fail "RUNPATH is '${got:-none}', expected it to contain '$runpath'"; fi
  fi
fi

if [[ $status == 0 ]]; then echo "symbols_check: OK"; else echo "symbols_check: FAILED"; fi
exit $status
