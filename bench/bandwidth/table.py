#!/usr/bin/env python3
"""The bandwidth bench's README tables (scripts/gpu-bandwidth.sh), from the
records of bench/bandwidth/bandwidth.cpp:

1. issue 11's one-H200 targets at 2 ranks and 256 MiB (--size, --ranks):
   per collective the library's algbw (row --main, default "collc"), the
   v1 kernels' (row --v1, default "v1": the same module with
   COLLC_FORCE_VARIANT=v1), their ratio, the traffic rate (bytes moved per
   second by the chunked programs' model, bandwidth.cpp) and its ratio to
   the plain copy with the same CTAs measured in the same run; targets:
   at least 10x v1 (AllReduce, AllGather, ReduceScatter) and at least 60%
   of the copy (every kernel); also the ratio to "today's" as the issue
   quotes it (AllReduce 18.5 GB/s, AllGather 16.5);
2. per rank count and collective, every row's algbw at every size, with
   the traffic's share of the copy's rate in parentheses, and the copy.

3. registered against ordinary buffers (issue 11: ordinary within 10% of
   registered at 256 MiB), when the rows have --registered (default
   "collc registered", the library with registered buffers: the zero-copy
   programs), which table 1 also lists. The main row's ordinary buffers are
   the bench's one process's: read in place (direct buffers) where the
   module's policy table chooses a zero-copy program for registered
   buffers, unless COLLC_CLIQUE_DIRECT=0; the row --staged (default "collc staged", the
   library with COLLC_CLIQUE_DIRECT=0: what one process per rank runs) is
   a column of its own when the rows have it.

4. with --variable=VJSON (the bench's _v run, its log beside it as .log):
   AllGather_v, ReduceScatter_v and AllToAll_v with even, skewed and
   zero-sized partitions, each row's algbw at every size against the fixed
   collective's in the same row of JSON (issue 11: "V variants at the same
   bandwidth as the fixed ones").

usage: table.py ROWS JSON [LOG] [--main=collc] [--v1=v1] [--size=268435456]
                [--ranks=2] [--registered="collc registered"]
                [--staged="collc staged"] [--variable=VJSON]
LOG (the bench's output) gives the FAIL and SKIP lines: a configuration
that failed its check shows FAIL, not a time.
"""
import json
import re
import sys

COLLECTIVES = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all"]
# Issue 11: at least 10x today's v1 for these at 2 ranks and 256 MiB.
TEN_X = {"all_reduce", "all_gather", "reduce_scatter"}
# "today's" as issue 11 quotes it (GB/s; none for ReduceScatter).
ISSUE_TODAY = {"all_reduce": 18.5, "all_gather": 16.5}
COPY_SHARE = 0.60
FAIL_RE = re.compile(r"^FAIL \[(.*?)\] (\S+) n(\d+) (\d+) bytes: (.*)$")


def fmt_size(b):
    if b >= 1 << 30 and b % (1 << 30) == 0:
        return f"{b >> 30} GiB"
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return f"{b >> 20} MiB"
    if b >= 1 << 10 and b % (1 << 10) == 0:
        return f"{b >> 10} KiB"
    return f"{b} B"


def nearest(sizes, want):
    """The measured size that rounds from `want` (bytes are rounded down to
    whole partitions: 256 MiB at 3 ranks is slightly less)."""
    best = None
    for s in sizes:
        if s <= want and (best is None or s > best):
            best = s
    return best


def kernel_label(rec):
    name = rec.get("kernel", "?")
    m = re.match(r"collc_\w+?__(\w+?)_(flag|ll16|sentinel)"
                 r"(_chunked|_zero_copy)?_", name)
    if m:
        k = f"{m.group(1)}:{m.group(2)}" + {
            "_chunked": " chunked", "_zero_copy": " zero-copy"}.get(
                m.group(3) or "", "")
    elif name.startswith("collc_"):
        k = "v1"
    else:
        k = name
    return f"{k} {rec.get('grid', '?')}x{rec.get('threads', '?')}"


VARIABLE = ["all_gather_v", "reduce_scatter_v", "all_to_all_v"]
PARTS = ["even", "skewed", "zero"]
FAIL_V_RE = re.compile(r"^FAIL \[(.*?)\] (\w+):(\w+) n(\d+) (\d+) bytes: ")


def variable_table(path, fixed):
    """Table 4: the _v run's records against the fixed collectives'."""
    try:
        records = [json.loads(l) for l in open(path) if l.strip()]
    except OSError:
        print(f"\nNo _v records ({path} unreadable).")
        return
    fails = set()
    try:
        for line in open(path[:-5] + ".log" if path.endswith(".json")
                         else path + ".log"):
            m = FAIL_V_RE.match(line)
            if m:
                fails.add((m.group(1), m.group(2), m.group(3), int(m.group(4)),
                           int(m.group(5))))
    except OSError:
        pass
    v = {}
    for r in records:
        if r["implementation"] != "copy":
            v[(r["variant"], r["collective"], r.get("partitions", "?"),
               r["nranks"], r["bytes"])] = r
    labels = []
    for k in v:
        if k[0] not in labels:
            labels.append(k[0])
    for n in sorted({k[3] for k in v} | {k[3] for k in fails}):
        sizes = sorted({k[4] for k in v if k[3] == n} |
                       {k[4] for k in fails if k[3] == n})
        print(f"\n_v collectives, {n} ranks: algbw GB/s (in parentheses: "
              "its ratio to the fixed collective's algbw in the same row and "
              "run at the same size; partitions: even = the fixed shape, skewed = 3:1, "
              "zero = the last rank's partition empty):\n")
        print("| collective | row | partitions | kernel | " +
              " | ".join(fmt_size(s) for s in sizes) + " |")
        print("|---|---|---|---|" + "---|" * len(sizes))
        for coll in VARIABLE:
            for label in labels:
                for parts in PARTS:
                    cells, kernels = [], []
                    for s in sizes:
                        r = v.get((label, coll, parts, n, s))
                        if r is None:
                            cells.append("FAIL" if (label, coll, parts, n, s)
                                         in fails else "-")
                            continue
                        k = kernel_label(r)
                        if k not in kernels:
                            kernels.append(k)
                        f = fixed.get((label, coll[:-2], n, s))
                        cells.append("%.1f%s" % (r["algbw_gbs"], " (%.2fx)" % (
                            r["algbw_gbs"] / f["algbw_gbs"]) if f else ""))
                    if all(x == "-" for x in cells):
                        continue
                    print(f"| {coll} | {label} | {parts} | "
                          f"{', '.join(kernels) or '-'} | " +
                          " | ".join(cells) + " |")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    opts = dict(a[2:].split("=", 1) for a in sys.argv[1:]
                if a.startswith("--") and "=" in a)
    main_row = opts.get("main", "collc")
    reg_row = opts.get("registered", "collc registered")
    v1_row = opts.get("v1", "v1")
    size = int(opts.get("size", 256 << 20))
    nranks = int(opts.get("ranks", 2))
    rows = [l.rstrip("\n").split("\t") for l in open(args[0])
            if l.strip() and not l.startswith("#")]
    labels = [r[0] for r in rows]
    records = []
    try:
        records = [json.loads(l) for l in open(args[1]) if l.strip()]
    except OSError:
        pass
    fails, skips, notes = {}, [], []
    if len(args) > 2:
        try:
            for line in open(args[2]):
                line = line.rstrip("\n")
                m = FAIL_RE.match(line)
                if m:
                    fails[(m.group(1), m.group(2), int(m.group(3)),
                           int(m.group(4)))] = m.group(5)
                    notes.append(line)
                elif line.startswith(("FAIL", "FATAL", "SKIP")):
                    (skips if line.startswith("SKIP") else notes).append(line)
        except OSError:
            pass
    collc = {}
    copy = {}
    for r in records:
        key = (r["collective"], r["nranks"], r["bytes"])
        if r["implementation"] == "copy":
            copy[key + (r["ctas"], r["threads"])] = r
        else:
            collc[(r["variant"],) + key] = r

    def cell_fail(label, coll, n, b):
        return (label, coll, n, b) in fails

    # 1. The targets.
    sizes_n = sorted({k[3] for k in collc if k[2] == nranks} |
                     {k[3] for k in fails if k[2] == nranks})
    at = nearest(sizes_n, size) if sizes_n else None
    print(f"\n{nranks} ranks sharing one GPU, {fmt_size(size)} (issue 11's "
          "one-H200 targets): algbw = bytes / time; traffic = bytes read + "
          "written per second by the algorithm of the kernel that ran "
          "(staged or zero-copy, bench/README.md), against a plain vectorized "
          "copy with the same CTAs moving the same bytes, same run.\n")
    print(f"| row | collective | kernel | algbw GB/s | {v1_row} algbw "
          f"GB/s | row / {v1_row} | row / issue's today's | "
          "traffic GB/s | copy traffic GB/s (CTAs x threads per rank) | "
          "traffic / copy | targets |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    target_rows = [main_row] + ([reg_row] if reg_row in labels else [])
    for row_label, coll in [(r, c) for r in target_rows
                            for c in COLLECTIVES]:
        if at is None:
            break
        m = collc.get((row_label, coll, nranks, at))
        v = collc.get((v1_row, coll, nranks, at))
        if m is None and v is None and not cell_fail(row_label, coll, nranks,
                                                     at):
            continue
        cells = [row_label, coll]
        if m is None:
            cells += ["-", "FAIL" if cell_fail(row_label, coll, nranks, at)
                      else "-"]
        else:
            cells += [kernel_label(m), "%.1f" % m["algbw_gbs"]]
        cells.append("%.1f" % v["algbw_gbs"] if v else
                     ("FAIL" if cell_fail(v1_row, coll, nranks, at) else "-"))
        ratio = (m["algbw_gbs"] / v["algbw_gbs"]
                 if m and v and v["algbw_gbs"] > 0 else None)
        cells.append("%.1fx" % ratio if ratio else "-")
        today = ISSUE_TODAY.get(coll)
        cells.append("%.1fx (%.1f)" % (m["algbw_gbs"] / today, today)
                     if m and today else "-")
        c = copy.get((coll, nranks, at, m["copy_ctas"], m["copy_threads"])) \
            if m else None
        share = m["copy_ratio"] if m and c else None
        cells.append("%.1f" % m["traffic_gbs"] if m else "-")
        cells.append("%.1f (%dx%d)" % (c["traffic_gbs"], c["ctas"],
                                       c["threads"]) if c else "-")
        cells.append("%.0f%%" % (100 * share) if share else "-")
        verdict = []
        if coll in TEN_X:
            verdict.append(">= 10x v1 (this run): " + ("-" if ratio is None else
                                            "**met**" if ratio >= 10 else
                                            "not met"))
        verdict.append(">= 60% of copy: " + (
            "-" if share is None else "**met**" if share >= COPY_SHARE
            else "not met"))
        cells.append("; ".join(verdict))
        print("| " + " | ".join(cells) + " |")

    # 3. Registered against ordinary (printed before the per-size tables).
    if reg_row in labels and at is not None:
        print(f"\nOrdinary ({main_row}) against registered ({reg_row}) "
              f"buffers, {nranks} ranks, {fmt_size(at)} (issue 11: ordinary "
              "within 10% of registered):\n")
        staged_row = opts.get("staged", "collc staged")
        staged = staged_row in labels
        print("| collective | ordinary algbw GB/s (kernel) | registered algbw "
              "GB/s | ordinary / registered | within 10% |" +
              (f" staged ({staged_row}) GB/s | staged / registered |"
               if staged else ""))
        print("|---|---|---|---|---|" + ("---|---|" if staged else ""))
        for coll in COLLECTIVES:
            o = collc.get((main_row, coll, nranks, at))
            g = collc.get((reg_row, coll, nranks, at))
            if not o or not g:
                continue
            q = o["algbw_gbs"] / g["algbw_gbs"]
            line = (f"| {coll} | {o['algbw_gbs']:.1f} ({kernel_label(o)}) | "
                    f"{g['algbw_gbs']:.1f} | {q:.2f} | "
                    f"{'**met**' if q >= 0.9 else 'not met'} |")
            if staged:
                t = collc.get((staged_row, coll, nranks, at))
                line += (f" {t['algbw_gbs']:.1f} | "
                         f"{t['algbw_gbs'] / g['algbw_gbs']:.2f} |"
                         if t else " - | - |")
            print(line)

    # 2. Every row, every size.
    for n in sorted({k[2] for k in collc} | {k[2] for k in fails}):
        sizes = sorted({k[3] for k in collc if k[2] == n} |
                       {k[3] for k in fails if k[2] == n})
        for coll in COLLECTIVES:
            if not any(k[1] == coll and k[2] == n for k in collc) and \
                    not any(k[1] == coll and k[2] == n for k in fails):
                continue
            print(f"\n{coll}, {n} ranks: algbw GB/s (traffic as a share of "
                  "the copy's rate with the same CTAs):\n")
            print("| row | kernel | " + " | ".join(fmt_size(s) for s in sizes)
                  + " |")
            print("|---|---|" + "---|" * len(sizes))
            for label in labels:
                cells, kernels = [], []
                for s in sizes:
                    r = collc.get((label, coll, n, s))
                    if r is None:
                        cells.append("FAIL" if cell_fail(label, coll, n, s)
                                     else "-")
                        continue
                    k = kernel_label(r)
                    if k not in kernels:
                        kernels.append(k)
                    c = copy.get((coll, n, s, r["copy_ctas"], r["copy_threads"]))
                    cells.append("%.1f%s" % (r["algbw_gbs"], " (%.0f%%)" % (
                        100 * r["copy_ratio"]) if c else ""))
                if all(x == "-" for x in cells):
                    continue
                print(f"| {label} | {', '.join(kernels) or '-'} | " +
                      " | ".join(cells) + " |")
            for ctas, threads in sorted({k[3:] for k in copy
                                         if k[0] == coll and k[1] == n}):
                cells = []
                for s in sizes:
                    c = copy.get((coll, n, s, ctas, threads))
                    cells.append("%.1f traffic" % c["traffic_gbs"] if c
                                 else "-")
                print(f"| copy | {ctas}x{threads} per rank | " +
                      " | ".join(cells) + " |")
    if "variable" in opts:
        variable_table(opts["variable"], collc)
    for line in skips:
        print(f"\n{line}")
    if notes:
        print("\nFailures:\n")
        for line in notes:
            print(f"    {line}")
    if not records:
        print("\nNo records: the bench wrote nothing (see bandwidth.log).")


if __name__ == "__main__":
    main()
