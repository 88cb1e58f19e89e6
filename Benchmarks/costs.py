#!/usr/bin/env python3
"""Where each implementation's instructions go, per unit of work.

Reads pairs of callgrind profiles of one workload at two sizes (made by
scripts/costs.sh), subtracts the smaller from the larger, so process setup
cancels out, and divides by the units the larger run added.  Each
function's own (exclusive) count is put in one category by its name; the
table lists the categories per implementation.

    costs.py UNITS impl=small.out,large.out ...
"""
import re
import subprocess
import sys

# First match wins.  Swift symbols are mangled: `4LockV` is the Lock type,
# `7Stripes` the stripe locks, `CfD` a deallocating deinit.
CATEGORIES = [
    ("benchmark harness", r"Benchmarks/|bench_|shuffled|timer_fired|fd_ready|fd_perform|fdone_ready|fdcf_callout|efd_perform"),
    ("process setup", r"ld-linux|/elf/|dl-lookup|_dl_"),
    ("system calls (read, write, epoll)", r"sysdeps/unix/sysv/linux/(read|write|epoll_wait|epoll_pwait)|"
                                          r"cancellation\.c|syscall"),
    ("clock", r"clock_gettime|vdso|Clock|g_get_monotonic|g_get_real_time|uv__hrtime|uv_update_time"),
    ("locks", r"pthread_mutex|4LockV|7Stripes|g_mutex|g_rec_mutex|futex"),
    ("allocation and free", r"malloc|free|calloc|realloc|consolidate|unlink_chunk|sysmalloc|swift_allocObject|"
                            r"swift_slowAlloc|swift_dealloc|swift_slowDealloc|doDecrementSlow|"
                            r"_swift_release_dealloc|memset|CfD |g_slice|g_malloc|g_free|memcpy|memmove"),
    ("reference counts", r"swift_retain|swift_release|swift_once|g_source_ref|g_source_unref|g_atomic"),
    ("checked C handles", r"HandleTable|HotWord|RLRelease|RLRetain|borrow_|withB7AndItem|publish"),
    ("timer queue", r"TimerHeap|ModeTimers|TimerSlots|DueTimers|MallocList|uv_timer_start|uv_timer_stop|"
                    r"g_source_set_ready_time"),
    ("statistics", r"Insight|Statistics|callOutTo"),
    ("hashing", r"Hasher|SipHash|_hash|hashValue|hash\(into"),
]
OTHER = "the loop's other work"


def profile(path):
    """Each function's exclusive instruction count in a callgrind file."""
    out = subprocess.run(["callgrind_annotate", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    counts, on = {}, False
    for line in out.splitlines():
        if "file:function" in line:
            on = True
            continue
        if on and line.startswith("-- Auto-annotated"):
            break
        m = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(\S.*)", line)
        if on and m:
            counts[m.group(2)] = counts.get(m.group(2), 0) + int(m.group(1).replace(",", ""))
    return counts


def category(function):
    for name, pattern in CATEGORIES:
        if re.search(pattern, function):
            return name
    return OTHER


def main():
    units = float(sys.argv[1])
    columns = {}
    for arg in sys.argv[2:]:
        impl, files = arg.split("=")
        small, large = (profile(f) for f in files.split(","))
        per = {}
        for function in set(small) | set(large):
            c = category(function)
            per[c] = per.get(c, 0) + (large.get(function, 0) - small.get(function, 0)) / units
        columns[impl] = per
    names = [c for c, _ in CATEGORIES if c != "process setup"] + [OTHER]
    impls = list(columns)
    print("| instructions per unit | " + " | ".join(impls) + " |")
    print("|---|" + "---:|" * len(impls))
    for c in names:
        cells = [columns[i].get(c, 0) for i in impls]
        if all(abs(v) < 0.5 for v in cells):
            continue
        print(f"| {c} | " + " | ".join(f"{v:,.0f}" for v in cells) + " |")
    totals = [sum(v for k, v in columns[i].items() if k != "process setup") for i in impls]
    print("| **total** | " + " | ".join(f"**{v:,.0f}**" for v in totals) + " |")


if __name__ == "__main__":
    main()
