#!/usr/bin/env python3
"""The Python package's ctypes prototypes against the C headers (ctest
`abi_python_prototypes`).

Every function python/runloop/_capi.py declares (_PROTOTYPES and
_OPTIONAL_PROTOTYPES) must be declared in include/runloop/*.h with the same
number of arguments, and its return type and each argument type must map to
the ctypes type the package gives.  Any difference is printed; it exits 1.

The headers are read through the C preprocessor (`CC -E -P`, gcc or clang),
then by regular expressions over the one-statement declarations the headers
use: functions, `typedef T Name;`, `typedef R (*Name)(...);` and
`typedef struct {...} Name;`.  A declaration they cannot read makes its
function "not declared", so the check fails rather than passes.

How a C type maps to ctypes (typedef names are first resolved through the
header's own typedefs):
  void (a return)                 None
  char / unsigned char            c_char / c_ubyte   (RLBoolean is c_ubyte)
  int, int32_t, uint32_t, ...     c_int, c_int32, c_uint32, ...
  long, unsigned long             c_long, c_ulong    (RLIndex, RLOptionFlags)
  double                          c_double           (RLTimeInterval, ...)
  char *, uint8_t * (const or not) c_char_p, POINTER(c_char / c_ubyte), or c_void_p
  struct __X * (an opaque handle) c_void_p           (RLRunLoopRef, ...)
  void *                          c_void_p
  T * (any other)                 POINTER(T's type), or c_void_p
  a header struct                 the _capi Structure named in STRUCTS
  a function pointer typedef      a CFUNCTYPE whose return and argument
                                  types map the same way, recursively
ctypes aliases types of one size (c_int32 is c_int on Linux), so types that
differ only by name compare equal, as they do for the ABI.

usage: RUNLOOP_LIBRARY=librunloop.so.0 python_prototypes.py
           --include DIR --python DIR [--cc CC]
"""
import argparse
import ctypes
import os
import re
import subprocess
import sys
import tempfile

# Header structs and the _capi Structure that mirrors each.
STRUCTS = {
    "RLRunLoopSourceContext": "SourceContext",
    "RLRunLoopObserverContext": "ItemContext",
    "RLRunLoopTimerContext": "ItemContext",
    "RLFileDescriptorContext": "ItemContext",
    "RLMessagePortContext": "ItemContext",
    "RLSignalContext": "ItemContext",
    "RLRunLoopStall": "Stall",
    "RLRunLoopStatistics": "Statistics",
}

# C scalar types, as the preprocessor leaves them, and their ctypes type.
SCALARS = {
    "char": ctypes.c_char, "signed char": ctypes.c_byte, "unsigned char": ctypes.c_ubyte,
    "short": ctypes.c_short, "unsigned short": ctypes.c_ushort,
    "int": ctypes.c_int, "unsigned int": ctypes.c_uint, "unsigned": ctypes.c_uint,
    "long": ctypes.c_long, "unsigned long": ctypes.c_ulong,
    "long long": ctypes.c_longlong, "unsigned long long": ctypes.c_ulonglong,
    "int8_t": ctypes.c_int8, "uint8_t": ctypes.c_uint8,
    "int16_t": ctypes.c_int16, "uint16_t": ctypes.c_uint16,
    "int32_t": ctypes.c_int32, "uint32_t": ctypes.c_uint32,
    "int64_t": ctypes.c_int64, "uint64_t": ctypes.c_uint64,
    "size_t": ctypes.c_size_t, "ssize_t": ctypes.c_ssize_t,
    "float": ctypes.c_float, "double": ctypes.c_double, "_Bool": ctypes.c_bool,
}
CHARS = {"char", "signed char", "unsigned char", "int8_t", "uint8_t"}  # T * that c_char_p may pass

_WORD = r"[A-Za-z_]\w*"
_TYPE = r"[\w\s\*]+?"


def _strip_attributes(text):
    """Removes __attribute__((...)) and __extension__, which the
    regular expressions below do not expect."""
    out, i = [], 0
    for match in re.finditer(r"__attribute__\s*\(", text):
        if match.start() < i:
            continue
        out.append(text[i:match.start()])
        depth, j = 0, match.end() - 1
        while j < len(text):
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
            if depth == 0:
                break
        i = j
    out.append(text[i:])
    return re.sub(r"\b__extension__\b", "", "".join(out))


def _norm(ctype):
    """One spelling per type: 'char*const *x' -> 'char * const * x'."""
    return " ".join(ctype.replace("*", " * ").split())


def _param_type(param):
    """'const char *function' -> 'const char *'; 'unsigned long' stays."""
    param = _norm(param)
    match = re.match(rf"^(.*?[\s\*])({_WORD})$", param)
    if match:
        rest = match.group(1).strip()
        if rest and rest not in ("const", "unsigned", "signed", "struct", "long", "short"):
            return _norm(rest)
    return param


def _params(text):
    text = text.strip()
    if text in ("", "void"):
        return []
    return [_param_type(p) for p in text.split(",")]


class Header:
    def __init__(self, text):
        text = _strip_attributes(text)
        struct = rf"typedef\s+struct\s*(?:{_WORD})?\s*\{{[^{{}}]*\}}\s*({_WORD})\s*;"
        self.structs = set(re.findall(struct, text))
        self.callbacks = {
            name: (_norm(ret), _params(args)) for ret, name, args in
            re.findall(rf"typedef\s+({_TYPE})\(\s*\*\s*({_WORD})\s*\)\s*\(([^()]*)\)\s*;", text)}
        self.typedefs = {
            name: _norm(base) for base, name in
            re.findall(rf"typedef\s+({_TYPE})\b({_WORD})\s*;", text)}
        self.functions = {
            name: (_norm(ret), _params(args)) for ret, name, args in
            re.findall(rf"(?:^|[;}}])\s*(?:extern\s+)?({_TYPE})\b(RL\w+)\s*\(([^()]*)\)\s*;",
                       text, re.M)}


def _is_cfunctype(t):
    return isinstance(t, type) and issubclass(t, ctypes._CFuncPtr)


def _is_pointer(t):
    return isinstance(t, type) and issubclass(t, ctypes._Pointer)


class Checker:
    def __init__(self, header, capi):
        self.header, self.capi = header, capi

    def resolve(self, ctype):
        """Follows typedefs; 'const' is dropped (it does not change the ABI)."""
        seen = set()
        ctype = _norm(re.sub(r"\bconst\b", "", ctype))
        while True:
            base, stars = ctype.rstrip(" *"), ctype.count("*")
            if base in self.header.typedefs and base not in SCALARS and base not in seen:
                seen.add(base)
                inner = _norm(re.sub(r"\bconst\b", "", self.header.typedefs[base]))
                ctype = _norm(inner + " " + "*" * stars)
                continue
            return ctype

    def mismatch(self, ctype, given):
        """None if the ctypes type `given` fits the C type, else why not."""
        resolved = self.resolve(ctype)
        base, stars = resolved.rstrip(" *"), resolved.count("*")
        what = f"{ctype!r} ({resolved})" if resolved != _norm(ctype) else repr(ctype)
        if resolved == "void":
            return None if given is None else f"{what} but ctypes {given!r}"
        if given is None:
            return f"{what} but ctypes None (void)"
        if stars == 0:
            if base in self.header.callbacks:
                return self._callback(base, given)
            if base in self.header.structs:
                return f"{what} passed by value: not supported here"
            if base in SCALARS:
                if given is SCALARS[base]:
                    return None
                return f"{what} is {SCALARS[base].__name__} but ctypes {given.__name__}"
            return f"{what}: no ctypes mapping for this C type (see this file's table)"
        # a pointer
        if given is ctypes.c_void_p:
            return None
        if stars == 1 and base in CHARS and given is ctypes.c_char_p:
            return None
        if stars == 1 and base.startswith("struct "):
            return f"{what} is an opaque handle: ctypes c_void_p, not {given.__name__}"
        if _is_pointer(given):
            pointee = _norm(base + " " + "*" * (stars - 1))
            if stars == 1 and base in self.header.structs:
                want = STRUCTS.get(base)
                if want is None:
                    return f"{what}: struct {base} has no entry in STRUCTS"
                if given._type_ is getattr(self.capi, want):
                    return None
                return f"{what} is POINTER({want}) but ctypes POINTER({given._type_.__name__})"
            why = self.mismatch(pointee, given._type_)
            return None if why is None else f"{what}: pointee: {why}"
        return f"{what} but ctypes {given.__name__}"

    def _callback(self, name, given):
        if not _is_cfunctype(given):
            return f"{name!r} is a function pointer but ctypes {getattr(given, '__name__', given)}"
        ret, args = self.header.callbacks[name]
        problems = []
        why = self.mismatch(ret, given._restype_)
        if why:
            problems.append(f"return: {why}")
        if len(args) != len(given._argtypes_):
            problems.append(f"{len(args)} arguments but the CFUNCTYPE has {len(given._argtypes_)}")
        else:
            for index, (arg, have) in enumerate(zip(args, given._argtypes_)):
                why = self.mismatch(arg, have)
                if why:
                    problems.append(f"argument {index + 1}: {why}")
        return f"{name}: " + "; ".join(problems) if problems else None

    def check(self, name, restype, argtypes):
        if name not in self.header.functions:
            return [f"{name}: declared by the package, not by the headers"]
        ret, args = self.header.functions[name]
        problems = []
        why = self.mismatch(ret, restype)
        if why:
            problems.append(f"{name}: return: {why}")
        if len(args) != len(argtypes):
            problems.append(f"{name}: the header takes {len(args)} arguments, "
                            f"the package declares {len(argtypes)}")
        else:
            for index, (arg, have) in enumerate(zip(args, argtypes)):
                why = self.mismatch(arg, have)
                if why:
                    problems.append(f"{name}: argument {index + 1}: {why}")
        return problems


def preprocess(cc, include):
    headers = sorted(f for f in os.listdir(os.path.join(include, "runloop")) if f.endswith(".h"))
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as source:
        for h in headers:
            source.write(f'#include "runloop/{h}"\n')
    try:
        return subprocess.run([cc, "-std=gnu11", "-E", "-P", "-I", include, source.name],
                              check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(source.name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--include", required=True, help="directory holding runloop/*.h")
    parser.add_argument("--python", required=True, help="directory holding the runloop package")
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    options = parser.parse_args()

    header = Header(preprocess(options.cc, options.include))
    if len(header.functions) < 50:  # the reading broke, not the package
        print(f"FAIL: read only {len(header.functions)} functions from the headers")
        return 1
    sys.path.insert(0, options.python)
    from runloop import _capi  # needs RUNLOOP_LIBRARY (or an installed library)

    checker = Checker(header, _capi)
    declared = {**_capi._PROTOTYPES, **_capi._OPTIONAL_PROTOTYPES}
    problems = []
    for name, (restype, argtypes) in declared.items():
        problems += checker.check(name, restype, argtypes)
    for problem in problems:
        print("FAIL:", problem)
    print(f"python_prototypes: {len(declared)} prototypes checked against "
          f"{len(header.functions)} header functions, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
