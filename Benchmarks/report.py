#!/usr/bin/env python3
"""Turns the RESULT lines of the benchmark programs into the results table.

    report.py RAW_FILE OUT_DIR [--quick]

RAW_FILE holds lines `RESULT <workload> <impl> <metric> <value> <unit>`,
one per measurement, repeated runs appended.  Writes OUT_DIR/results.md
(medians, spread = min..max over the runs, ratios, targets) and
OUT_DIR/ratios.svg (drawn by hand: no plotting library needed), and prints
the table to stdout.
"""
import collections
import math
import statistics
import sys

IMPLS = ["runloop", "cf", "glib", "uv", "floor"]
PEERS = ["cf", "glib", "uv", "floor"]

# (workload, metric, label, higher_is_better)
ROWS = [
    ("pingpong", "median", "1. ping-pong round trip, median", False),
    ("pingpong", "p99", "1. ping-pong round trip, p99", False),
    ("perform1", "rate", "2. perform + wake-up, 1 producer", True),
    ("perform2", "rate", "2. perform + wake-up, 2 producers", True),
    ("performblock1", "rate", "2. capturing block (PerformBlock) + wake-up, 1 producer", True),
    ("performblock2", "rate", "2. capturing block (PerformBlock) + wake-up, 2 producers", True),
    ("signal1", "rate", "2. signal + wake-up, 1 producer", True),
    ("signal2", "rate", "2. signal + wake-up, 2 producers", True),
    ("signalone1", "rate", "2. signal + wake-up in one call, 1 producer", True),
    ("signalone2", "rate", "2. signal + wake-up in one call, 2 producers", True),
    ("signalfn1", "rate", "2. signal + wake-up, function calls (no fastpath.h), 1 producer", True),
    ("signalfn2", "rate", "2. signal + wake-up, function calls (no fastpath.h), 2 producers", True),
    ("signalonefn1", "rate", "2. signal + wake-up in one function call (no fastpath.h), 1 producer", True),
    ("signalonefn2", "rate", "2. signal + wake-up in one function call (no fastpath.h), 2 producers", True),
    ("signal1", "ops_per_callout", "2. signals coalesced per callout, 1 producer", None),
    ("signalone1", "ops_per_callout", "2. one-call signals coalesced per callout, 1 producer", None),
    ("hotcall", "per_op", "2. signal + wake-up already pending, per item (a flood's producer floor)", False),
    ("hotone", "per_op", "2. the one call, already pending and woken, per item", False),
    ("hotcallfn", "per_op", "2. the pair as function calls (no fastpath.h), already pending, per item", False),
    ("hotonefn", "per_op", "2. the one call as a function call (no fastpath.h), already pending and woken, per item", False),
    ("timers1000", "total", "3. 1k one-shot timers, add + fire all", False),
    ("timers10000", "total", "3. 10k timers", False),
    ("timers100000", "total", "3. 100k timers", False),
    ("timers1000000", "total", "3. 1M timers", False),
    ("timers10000000", "total", "3. 10M timers", False),
    ("spread1000", "total", "3b. 1k timers due over the next 2 ms, shuffled: add + fire all", False),
    ("spread10000", "total", "3b. 10k timers due over 2 ms", False),
    ("spread100000", "total", "3b. 100k timers due over 2 ms", False),
    ("spread1000000", "total", "3b. 1M timers due over 2 ms", False),
    ("spread1000", "cpu", "3b. 1k timers due over 2 ms: loop thread CPU", False),
    ("timers1000000", "peak_rss_per_timer", "3. peak RSS per timer, 1M timers", False),
    ("timers10000000", "peak_rss_per_timer", "3. peak RSS per timer, 10M timers", False),
    ("sources1", "per_event", "4. signal 1 source of 1, one pass", False),
    ("sources10000", "per_event", "4. signal 1 source of 10,000, one pass", False),
    ("sources10000", "per_event_alone", "4. the same run's source alone in its mode, one pass", False),
    ("sources10000", "ratio_to_alone", "4. 1 of 10,000 ÷ alone, measured interleaved in one run", False),
    ("fds1000", "per_burst", "5. 1,000 fds ready at once: handle all", False),
    ("fds1000", "passes", "5. 1,000 fds ready at once: passes (epoll_waits for the floor)", None),
    ("fdone1", "per_ready", "5b. 1 fd ready, 1 registered: wake, handle", False),
    ("fdone10000", "per_ready", "5b. 1 fd ready of 10,000 registered", False),
    ("fdcf1", "per_ready", "5c. RLFileDescriptor re-enabled in its callout, RunInMode per round, 1 registered", False),
    ("fdcf10000", "per_ready", "5c. the same, 1 ready of 10,000 registered", False),
    ("idle", "wakeups", "6. idle 3 s, no timer: wake-ups (observer)", None),
    ("idle", "ctxsw", "6. idle 3 s, no timer: voluntary ctx switches", None),
    ("idle", "cpu", "6. idle 3 s, no timer: CPU", None),
    ("idle_timer", "wakeups", "6. idle 3 s, 1 s timer: wake-ups (observer)", None),
    ("idle_timer", "ctxsw", "6. idle 3 s, 1 s timer: voluntary ctx switches", None),
    ("idle_timer", "cpu", "6. idle 3 s, 1 s timer: CPU", None),
    ("lateness", "p50", "7. timer lateness p50 (tolerance 0)", False),
    ("lateness", "p99", "7. timer lateness p99 (tolerance 0)", False),
    ("mem_loop", "heap_bytes", "8. heap bytes per loop", False),
    ("mem_loop", "mallocs", "8. mallocs per loop", False),
    ("mem_timer", "heap_bytes", "8. heap bytes per timer", False),
    ("mem_timer", "mallocs", "8. mallocs per timer", False),
    ("mem_timer", "rss_bytes", "8. RSS bytes per timer", False),
    ("mem_source", "heap_bytes", "8. heap bytes per source", False),
    ("mem_source", "mallocs", "8. mallocs per source", False),
    ("mem_source", "rss_bytes", "8. RSS bytes per source", False),
]


def load(path):
    runs = collections.defaultdict(list)
    units = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 6 or parts[0] != "RESULT":
                continue
            _, workload, impl, metric, value, unit = parts
            runs[(workload, metric, impl)].append(float(value))
            units[(workload, metric)] = unit
    return runs, units


def num(v):
    """3 significant digits, never in e-notation."""
    if v == 0:
        return "0"
    digits = max(0, 2 - int(math.floor(math.log10(abs(v)))))
    return f"{v:,.{digits}f}"


def fmt(v, unit):
    if v is None:
        return "—"
    if unit == "ops/s":
        return f"{num(v / 1e6)} M/s"
    if unit == "ns":
        return f"{num(v / 1000)} µs" if v >= 1000 else f"{num(v)} ns"
    if unit == "us":
        return f"{num(v / 1000)} ms" if v >= 1000 else f"{num(v)} µs"
    if unit == "ms":
        return f"{num(v / 1000)} s" if v >= 1000 else f"{num(v)} ms"
    if unit == "B":
        return f"{v:,.0f} B"
    if unit == "x":
        return f"{num(v)}×"
    return num(v)


def cell(runs, units, w, m, impl):
    vals = runs.get((w, m, impl))
    if not vals:
        return None, ""
    unit = units[(w, m)]
    med = statistics.median(vals)
    text = fmt(med, unit)
    if len(vals) > 1:
        text += f" ({fmt(min(vals), unit)}–{fmt(max(vals), unit)})"
    return med, text


def speedup(rl, peer, higher):
    """How many times better runloop is than peer (>1: runloop better)."""
    if rl is None or peer is None or higher is None or rl == 0 or peer == 0:
        return None
    return rl / peer if higher else peer / rl


def targets(med, runs):
    def g(w, m, i):
        return med.get((w, m, i))

    def paired(w, m, a, b):
        """The median of a/b over the repetitions: bench.sh runs the
        implementations of a workload one after the other in each
        repetition, so a pair shares the VM's state of the moment."""
        xs, ys = runs.get((w, m, a), []), runs.get((w, m, b), [])
        ratios = [x / y for x, y in zip(xs, ys) if y]
        return statistics.median(ratios) if ratios and len(xs) == len(ys) else None

    out = []

    def check(name, ok, detail):
        if ok is None:
            out.append(f"- **n/a** {name}: {detail}")
        else:
            out.append(f"- **{'met' if ok else 'MISSED'}** {name}: {detail}")

    rl, fl, cf = g("pingpong", "median", "runloop"), g("pingpong", "median", "floor"), g("pingpong", "median", "cf")
    if rl and fl:
        check("ping-pong median ≤ 1.3× eventfd floor", rl <= 1.3 * fl, f"{rl / fl:.2f}× floor")
    if rl and cf:
        check("ping-pong median ≤ 0.5× CF", rl <= 0.5 * cf, f"{rl / cf:.2f}× CF")
    for w in ("perform1", "perform2", "signal1", "signal2", "signalone1", "signalone2",
              "signalfn1", "signalfn2", "signalonefn1", "signalonefn2"):
        r, c, u = g(w, "rate", "runloop"), g(w, "rate", "cf"), g(w, "rate", "uv")
        if r and c:
            check(f"{w} throughput ≥ 3× CF", r >= 3 * c, f"{r / c:.2f}× CF")
        if r and u:
            check(f"{w} throughput ≥ libuv", r >= u, f"{r / u:.3g}× libuv")
    for p in ("1", "2"):
        b, f = g("performblock" + p, "rate", "runloop"), g("perform" + p, "rate", "runloop")
        if b and f:
            check(f"performblock{p} ≥ 0.8× perform{p} (a block against a function)", b >= 0.8 * f, f"{b / f:.2f}×")
    r, u = g("hotcall", "per_op", "runloop"), g("hotcall", "per_op", "uv")
    if r and u:
        out.append(f"- **context** a signal flood's producer floor, signal + wake-up already pending: "
                   f"runloop {r:.2f} ns per item for the pair of calls (checked inline with fastpath.h, no call), "
                   f"libuv {u:.2f} ns for one call: a ceiling of {1e3 / r:.0f} M/s against libuv's {1e3 / u:.0f} M/s")
    r1 = g("hotone", "per_op", "runloop")
    if r1 and u:
        out.append(f"- **context** the same with runloop's one call (`RLRunLoopSourceSignalAndWakeUp`, inline): "
                   f"{r1:.2f} ns, a ceiling of {1e3 / r1:.0f} M/s")
    r, u = g("hotonefn", "per_op", "runloop"), g("hotonefn", "per_op", "uv")
    if r and u:
        check("the one call as a function (no fastpath.h), already pending and woken, ≤ libuv's uv_async_send",
              r <= u, f"{r:.2f} ns against {u:.2f} ns ({u / r:.3g}× libuv)")
    r, c = g("timers100000", "total", "runloop"), g("timers100000", "total", "cf")
    if r and c:
        check("100k timers ≥ 20× faster than CF", c >= 20 * r, f"{c / r:.2f}× faster")
    t100k, t1m = g("timers100000", "total", "runloop"), g("timers1000000", "total", "runloop")
    if t100k and t1m:
        nlogn = 10 * math.log(1e6) / math.log(1e5)
        check("n·log n growth 100k → 1M (expect ≈12×)", t1m / t100k <= 1.5 * nlogn,
              f"{t1m / t100k:.1f}× for 10× the timers")
    # The target uses the ratio each run measured with both cases
    # interleaved (bench.h, run_sources); the ratio of the two separate
    # workloads' medians is shown beside it.
    s1, s10k = g("sources1", "per_event", "runloop"), g("sources10000", "per_event", "runloop")
    ratio = g("sources10000", "ratio_to_alone", "runloop")
    if ratio:
        across = f"; separate runs' medians {s10k / s1:.2f}×" if s1 and s10k else ""
        check("1 of 10,000 sources ≤ 1.5× the only source", ratio <= 1.5,
              f"{ratio:.2f}× (median of the runs' interleaved ratios{across})")
    elif s1 and s10k:
        check("1 of 10,000 sources ≤ 1.5× the only source", s10k <= 1.5 * s1, f"{s10k / s1:.2f}×")
    # The descriptor targets use the ratio of each repetition's adjacent
    # runs (`paired`); the ratio of the medians is shown beside it.
    r, u, f = g("fds1000", "per_burst", "runloop"), g("fds1000", "per_burst", "uv"), g("fds1000", "per_burst", "floor")
    for peer, median, name, bound in (("uv", u, "libuv", 1.0), ("floor", f, "the epoll floor", 1.1)):
        ratio = paired("fds1000", "per_burst", "runloop", peer)
        if r and median and ratio:
            check(f"1,000 ready fds ≤ {'' if bound == 1.0 else f'{bound}× '}{name}", ratio <= bound,
                  f"{ratio:.2f}× (median of the runs' paired ratios; of the medians {r / median:.2f}×)")
    d1, d10k = g("fdone1", "per_ready", "runloop"), g("fdone10000", "per_ready", "runloop")
    if d1 and d10k:
        # The same ratio for libuv and the floor: how much of it is the
        # kernel's and the cache's, which no loop can take away.
        others = [f"{name} {g('fdone10000', 'per_ready', i) / g('fdone1', 'per_ready', i):.2f}×"
                  for i, name in (("uv", "libuv"), ("floor", "the epoll floor"))
                  if g("fdone1", "per_ready", i) and g("fdone10000", "per_ready", i)]
        check("1 ready fd of 10,000 registered ≤ 1.2× of 1 registered", d10k <= 1.2 * d1,
              f"{d10k / d1:.2f}×" + (f" (the same ratio for {', '.join(others)})" if others else ""))
    # Issue 42: the version-1 rows and a CF program's round (5c) ≤ libuv.
    for w, name in (("fdone1", "1 fd ready, 1 registered"), ("fdone10000", "1 fd ready of 10,000"),
                    ("fdcf1", "RLFileDescriptor round, 1 registered"),
                    ("fdcf10000", "RLFileDescriptor round, 1 of 10,000")):
        r, u = g(w, "per_ready", "runloop"), g(w, "per_ready", "uv")
        ratio = paired(w, "per_ready", "runloop", "uv")
        if r and u and ratio:
            check(f"{name} ≤ libuv", ratio <= 1.0, f"{ratio:.2f}× (paired; of the medians {r / u:.2f}×)")
    w0, w1 = g("idle", "wakeups", "runloop"), g("idle_timer", "wakeups", "runloop")
    if w0 is not None:
        check("zero wake-ups idle with no timers", w0 == 0, f"{w0:g} wake-ups")
    if w1 is not None:
        check("exactly the timer's wake-ups (3)", w1 == 3, f"{w1:g} wake-ups")
    for w in ("mem_timer", "mem_source"):
        b = g(w, "heap_bytes", "runloop")
        if b is not None:
            check(f"≤ 256 bytes per {w[4:]}", b <= 256, f"{b:.0f} heap bytes")
    # The targets of issue 25: at or below the best peer.
    sizes = ("1000", "10000", "100000", "1000000", "10000000")
    for workload, what in (("timers", "timers"), ("spread", "timers due over 2 ms")):
        for n in sizes:
            r = g(f"{workload}{n}", "total", "runloop")
            peers = {p: g(f"{workload}{n}", "total", p) for p in ("glib", "uv")}
            peers = {p: v for p, v in peers.items() if v}
            if r and peers:
                best = min(peers, key=peers.get)
                check(f"{int(n):,} {what} ≤ the faster of GLib and libuv", r <= peers[best],
                      f"{r / peers[best]:.2f}× {best}")
    for n in ("1000000", "10000000"):
        r, u = g(f"timers{n}", "peak_rss_per_timer", "runloop"), g(f"timers{n}", "peak_rss_per_timer", "uv")
        if r and u:
            check(f"peak RSS with {int(n):,} timers ≤ libuv's", r <= u, f"{r:.0f} B against {u:.0f} B a timer")
    for w, what in (("mem_timer", "timer"), ("mem_source", "source")):
        r, u = g(w, "heap_bytes", "runloop"), g(w, "heap_bytes", "uv")
        if r and u:
            check(f"heap bytes per {what} ≤ libuv's", r <= u, f"{r:.0f} B against {u:.0f} B")
    r, gl = g("mem_loop", "heap_bytes", "runloop"), g("mem_loop", "heap_bytes", "glib")
    if r and gl:
        check("heap bytes per loop ≤ GLib's", r <= gl, f"{r:.0f} B against {gl:.0f} B")
    return out


def svg(med, path):
    """Horizontal bars: log2 of runloop's speed-up over each peer per row."""
    rows = []
    for w, m, label, higher in ROWS:
        if higher is None:
            continue
        rl = med.get((w, m, "runloop"))
        vals = [(p, speedup(rl, med.get((w, m, p)), higher)) for p in PEERS]
        vals = [(p, v) for p, v in vals if v]
        if vals:
            rows.append((label, vals))
    colors = {"cf": "#d62728", "glib": "#2ca02c", "uv": "#1f77b4", "floor": "#7f7f7f"}
    bar, gap, left, width = 9, 10, 330, 460
    height = 60 + sum(len(v) * bar + gap for _, v in rows) + 30
    lo, hi = -8, 10  # log2 range shown: 1/256× .. 1024×
    scale = width / (hi - lo)
    x0 = left + (-lo) * scale
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="100%" height="100%" fill="white"/>',
           f'<text x="10" y="18" font-size="14" font-weight="bold">runloop vs peers: how many times '
           f'better runloop is (log scale; right of 1× = runloop better)</text>']
    for e in range(lo, hi + 1, 2):
        x = x0 + e * scale
        out.append(f'<line x1="{x:.1f}" y1="40" x2="{x:.1f}" y2="{height - 25}" stroke="#ddd"/>')
        lab = f"{2 ** e:g}×" if e >= 0 else f"1/{2 ** -e:g}×"
        out.append(f'<text x="{x:.1f}" y="{height - 10}" text-anchor="middle">{lab}</text>')
    out.append(f'<line x1="{x0:.1f}" y1="40" x2="{x0:.1f}" y2="{height - 25}" stroke="black"/>')
    y = 50
    for label, vals in rows:
        out.append(f'<text x="{left - 8}" y="{y + len(vals) * bar / 2 + 4:.1f}" text-anchor="end">{label}</text>')
        for p, v in vals:
            e = max(lo, min(hi, math.log2(v)))
            x1, x2 = sorted((x0, x0 + e * scale))
            out.append(f'<rect x="{x1:.1f}" y="{y}" width="{max(x2 - x1, 1):.1f}" height="{bar - 1}" '
                       f'fill="{colors[p]}"><title>{p}: {v:.3g}×</title></rect>')
            tx = x2 + 3 if e >= 0 else x1 - 3
            anchor = "start" if e >= 0 else "end"
            out.append(f'<text x="{tx:.1f}" y="{y + bar - 1}" font-size="9" text-anchor="{anchor}">'
                       f'{p} {v:.3g}×</text>')
            y += bar
        y += gap
    lx = left + width - 250
    for i, p in enumerate(PEERS):
        out.append(f'<rect x="{lx + i * 62}" y="28" width="10" height="10" fill="{colors[p]}"/>'
                   f'<text x="{lx + i * 62 + 13}" y="37">{p}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


EMBED_IMPLS = ["runloop", "runloop_glib", "runloop_uv"]
EMBED_ROWS = [
    ("pingpong", "median", "ping-pong round trip, median", False),
    ("pingpong", "p99", "ping-pong round trip, p99", False),
    ("timers1000", "total", "1k one-shot timers, add + fire all", False),
    ("timers10000", "total", "10k timers", False),
    ("timers100000", "total", "100k timers", False),
    ("lateness", "p50", "timer lateness p50 (2 ms timer, tolerance 0)", False),
    ("lateness", "p99", "timer lateness p99", False),
]


def embedding(runs, units):
    """The table of workload 9: native vs driven through each adapter."""
    lines = ["| workload | native | from GLib | from libuv | GLib ÷ native | libuv ÷ native |",
             "|---|---|---|---|---|---|"]
    for w, m, label, _ in EMBED_ROWS:
        meds, cells = {}, []
        for impl in EMBED_IMPLS:
            v, text = cell(runs, units, w, m, impl)
            meds[impl] = v
            cells.append(text or "—")
        if cells[1] == "—" and cells[2] == "—":
            continue
        ratio = lambda i: f"{meds[i] / meds['runloop']:.2f}×" if meds[i] and meds["runloop"] else "—"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {ratio('runloop_glib')} | {ratio('runloop_uv')} |")
    return "\n".join(lines) if len(lines) > 2 else "(not run: no bench_runloop_glib / bench_runloop_uv)"


def main():
    raw, outdir = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv
    runs, units = load(raw)
    med = {k: statistics.median(v) for k, v in runs.items()}
    med_by = {(w, m, i): v for (w, m, i), v in med.items()}
    header = "| workload | " + " | ".join(IMPLS) + " | runloop vs CF | runloop vs floor |"
    lines = [header, "|" + "---|" * (len(IMPLS) + 3)]
    for w, m, label, higher in ROWS:
        cells, meds = [], {}
        for impl in IMPLS:
            v, text = cell(runs, units, w, m, impl)
            meds[impl] = v
            cells.append(text or "—")
        if all(c == "—" for c in cells):
            continue
        vs_cf = speedup(meds["runloop"], meds["cf"], higher)
        vs_fl = speedup(meds["runloop"], meds["floor"], higher)
        r = lambda s: f"{s:.2f}× {'better' if s >= 1 else 'worse'}" if s else "—"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {r(vs_cf)} | {r(vs_fl)} |")
    table = "\n".join(lines)
    embed_table = embedding(runs, units)
    tgt = "\n".join(targets(med_by, runs))
    nreps = max((len(v) for v in runs.values()), default=0)
    md = f"""# runloop benchmark results

Generated by `bash scripts/bench.sh{' --quick' if quick else ''}` (Release build, all implementations in the
same run, on `{open('/proc/cpuinfo').read().count('processor')}` CPU(s)). Each cell: median over the runs (up to
{nreps}), and (min–max) when there were several. "N× better" = how many times
faster / cheaper / higher-rate runloop is than the peer.

{table}

Peers: `cf` = the toolchain's CoreFoundation (libFoundation.so), `glib` =
GMainContext, `uv` = libuv, `floor` = raw eventfd/epoll/timerfd with no library.
Notes: CF's timer rows stop at 100k (sorted-array insertion: 1M would take
minutes); libuv timers are all started with timeout 0 (ms granularity, FIFO
ties), and in 3b with timeouts of 0, 1 and 2 ms (GLib: µs ready times);
3b's total is at least its 2 ms span, its CPU the loop thread's; libuv's throughput rows are `uv_async_send` calls (coalescing, no
syscall while a send is pending) and, for perform, a mutex-guarded queue
drained by the async callback; GLib's perform is `g_main_context_invoke`;
GLib does not fire due sources in deadline order. Workload 5 watches each
pipe with a version-1 source (runloop), a `GUnixFDSource` (GLib: `poll(2)`
over all 1,000 descriptors every iteration), a `uv_poll_t` (libuv) or one
epoll set (floor); its passes are loop iterations (epoll_waits for the
floor). Idle wake-ups exclude the final wake-up that ends the 3.25 s run.
The "already pending" row is what each item of a signal flood costs its
producer at best: CF's idiom is two calls (`RLRunLoopSourceSignal` +
`RLRunLoopWakeUp`), libuv's one (`uv_async_send` does both). runloop's
benchmark includes the opt-in `<runloop/fastpath.h>`, which checks
"already pending" inline (three dependent loads and a compare per call, no
call into the library), so the pair costs less than one library call. The
"function" rows (`fn`) call the library functions instead, as every program
that does not include fastpath.h (and every FFI caller) does; libuv's
cells in those rows are `uv_async_send` again, run interleaved with them.
The "one call" rows use runloop's `RLRunLoopSourceSignalAndWakeUp` (signal
+ wake-up of the source's loops in one call, like `uv_async_send`); CF has
no such call, so its one-call rows repeat the pair, and GLib's and libuv's
repeat their signal rows (already one call).

## runloop driven from other event loops (issue 26)

The same workloads with the loop run natively (`RLRunLoopRunInMode`) and
driven through `adapters/`: a `GSource` on the poll descriptor iterated by
`g_main_context_iteration`, and `uv_run` with a `uv_poll_t` + `uv_timer_t`
(workload 9 of scripts/bench.sh; both sides of the ping-pong are driven).

{embed_table}

## Targets (issue 6 §2)

{tgt}

![ratios](ratios.svg)
"""
    with open(f"{outdir}/results.md", "w") as f:
        f.write(md)
    svg(med_by, f"{outdir}/ratios.svg")
    print(table)
    print()
    print(tgt)


if __name__ == "__main__":
    main()
