"""collc-bench --run and --report: collc against NCCL and PyTorch symmetric
memory, every collective, one run, one method (imported by collc-bench).

--run measures, in one run on this machine:
  collc             the module's typed calls (collcAllReduce, ...: the
                    runtime's choice by the module's policy table), ordinary
                    cudaMalloc buffers (the ranks are one process, which
                    reads them in place where the module's policy table
                    chooses a zero-copy program for registered buffers:
                    docs/runtime.md "Direct buffers");
  collc registered  the same with both buffers registered
                    (collcCommRegister: the zero-copy programs may run);
  collc staged      ordinary buffers with COLLC_CLIQUE_DIRECT=0: staged, as
                    one process per rank runs them;
  nccl              NCCL's collectives (AllToAll: grouped ncclSend/ncclRecv;
                    the _v collectives, which NCCL lacks: AllGather_v and
                    AllToAll_v grouped ncclSend/ncclRecv, ReduceScatter_v an
                    ncclReduce per partition to its rank, grouped),
                    ordinary buffers;
  nccl window       NCCL with both buffers in symmetric windows
                    (ncclMemAlloc + ncclCommWindowRegister,
                    NCCL_WIN_COLL_SYMMETRIC);
  torch_symm_mem    PyTorch symmetric memory's one_shot_all_reduce_out (out
                    of place) and two_shot_all_reduce_ (in place), AllReduce
                    only (bench/bandwidth/symm_mem.py).
The rooted collectives (Broadcast, Reduce, Scatter, Gather) run with root
0 beside the fixed ones: NCCL's ncclBroadcast and ncclReduce, and for
Scatter and Gather, which NCCL lacks, the root's grouped ncclSend/ncclRecv
(Scatter and Gather out of place only: no in-place convention).
The _v collectives (AllGather_v, ReduceScatter_v, AllToAll_v: collc from
the module of --variable-module, by default variable.collcmod beside
--module) split their S bytes among the ranks by Purlin's equation 4 (a
Zipf split, exponent 0.125; AllToAll_v rotates it per rank), the same
partitions for every implementation; the measurer runs them in a second
call ("collc+nccl _v").
collc and NCCL run in bench/bandwidth's measurer (collc_bandwidth --gpus:
ranks in one process, rank q on GPU q % gpus, one stream each; NCCL's ranks'
calls grouped), PyTorch in one process per GPU. Every configuration is
checked against the host's reference on fresh data with poisoned outputs
before it is timed (a wrong result is a FAIL, never a time); then K calls per
rank captured in a CUDA graph (K = clamp(64 MiB / S, 1, 64), raised to fill
2 ms, at most 1024), 2 warm-up and 5 timed replays between CUDA events, the
slowest rank's time per call. S = NCCL's bytes (the larger buffer per rank:
AllGather's output, ReduceScatter's input); algbw = S / time. CTAs per call
(collc and NCCL) are read from rank 0's captured graph: the kernel nodes'
CTAs summed, per call. NCCL and symmetric memory need a GPU per rank: with
ranks sharing a GPU they are skipped (SKIP lines), and collc's times then
measure everything but the link.

--report redoes the table and the plots from records (bench.json files),
without a GPU.

Outputs in DIR: bench.json (every record, one per line), table.md (per
(ranks, GPUs, collective, placement): a row per size, each implementation's
time, and each baseline's time / collc's: above 1 collc is faster; collc is
compared with the same placement, ordinary buffers against NCCL's ordinary
ones, registered against NCCL's windows and symmetric memory), summary.md
(geometric means of those ratios below and from 1 MiB), plots
(plot-nN-gG-PLACEMENT.png: per collective a latency panel 8 B - 1 MiB, an
algorithm bandwidth panel 1 MiB - 1 GiB and a CTAs-per-call panel), bench.log.
"""
import json
import math
import os
import shlex
import subprocess
import sys
import time

MIB = 1 << 20
GIB = 1 << 30
DEFAULT_SIZES = [8 * 4**k for k in range(14)] + [GIB, 3000, 100000, 3000000]
SMALL = MIB  # latency panels up to, bandwidth panels from

# (implementation, buffers) of a series, its label, and the collc buffers a
# baseline is compared with.
SERIES = [
    (("collc", "ordinary"), "collc", None),
    (("collc", "registered"), "collc registered", None),
    (("collc", "staged"), "collc staged", None),
    (("nccl", "ordinary"), "NCCL", "ordinary"),
    (("nccl", "window"), "NCCL window", "registered"),
    (("torch_symm_mem", "one_shot"), "symm one-shot", "registered"),
    (("torch_symm_mem", "two_shot"), "symm two-shot", "registered"),
]
FIXED = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all"]
# The _v collectives, measured with Purlin's Zipf split (its equation 4:
# bench/bandwidth/partitions.h) of the total S bytes; NCCL,
# which has none, runs the grouped point-to-point calls that stand for them.
VARIABLE = ["all_gather_v", "reduce_scatter_v", "all_to_all_v"]
# The rooted collectives (root 0): NCCL's ncclBroadcast and ncclReduce, and
# for Scatter and Gather, which it lacks, the root's grouped
# ncclSend/ncclRecv; out of place and in place for Broadcast and Reduce
# (NCCL's conventions: send == recv), out of place for Scatter and Gather.
ROOTED = ["broadcast", "reduce", "scatter", "gather"]
COLLECTIVES = FIXED + ROOTED + VARIABLE


def series_of(r):
    if r["implementation"] == "torch_symm_mem":
        return ("torch_symm_mem", r["variant"])
    return (r["implementation"], r.get("buffers", "ordinary"))


def label_of(key):
    for k, label, _ in SERIES:
        if k == key:
            return label
    return "%s %s" % key


def fmt_size(s):
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (1024, "KiB")):
        if s >= unit and s % unit == 0:
            return "%d %s" % (s // unit, name)
    return "%d B" % s


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


# ---------------------------------------------------------------------------
# --report
# ---------------------------------------------------------------------------

def read_records(paths):
    records = []
    for path in paths:
        try:
            with open(path) as f:
                for n, line in enumerate(f, 1):
                    line = line.strip()
                    if not line:
                        continue
                    try:
                        records.append(json.loads(line))
                    except ValueError as e:
                        raise SystemExit("collc-bench: %s:%d: not a JSON "
                                         "record: %s" % (path, n, e))
        except OSError as e:
            raise SystemExit("collc-bench: cannot read %s: %s" % (path, e))
    return records


def groups_of(records):
    """{(nranks, gpus, collective, placement): {bytes: {series: record}}}"""
    groups = {}
    for r in records:
        if r.get("partitions", "fixed") not in ("fixed", "zipf"):
            continue
        g = (r["nranks"], r.get("gpus", 1), r["collective"],
             r.get("placement", "out_of_place"))
        groups.setdefault(g, {}).setdefault(r["bytes"], {})[series_of(r)] = r
    return groups


def comparisons(group):
    """[(baseline series, collc series)] present in `group`."""
    present = {k for row in group.values() for k in row}
    out = []
    for key, _, against in SERIES:
        if against and key in present and ("collc", against) in present:
            out.append((key, ("collc", against)))
    return out


def order_key(g):
    n, gpus, coll, placement = g
    return (n, gpus, COLLECTIVES.index(coll) if coll in COLLECTIVES else 9,
            coll, placement != "out_of_place")


def table_md(records, header_lines):
    groups = groups_of(records)
    lines = list(header_lines)
    summary = ["# Summary: baseline time / collc time (above 1: collc "
               "faster), geometric mean over the sizes measured by both", "",
               "| ranks | GPUs | collective | placement | baseline | "
               "against | under 1 MiB | from 1 MiB |", "|---|---|---|---|---|"
               "---|---|---|"]
    for g in sorted(groups, key=order_key):
        n, gpus, coll, placement = g
        group = groups[g]
        present = [k for k, _, _ in SERIES
                   if any(k in row for row in group.values())]
        comps = comparisons(group)
        lines.append("")
        lines.append("## %s%s, %d ranks on %d GPU%s, %s" % (
            coll, " (Zipf split of the bytes, Purlin's equation 4)"
            if coll in VARIABLE else "", n, gpus, "s" if gpus > 1 else "",
            placement.replace("_", " ")))
        lines.append("")
        lines.append("Time per call (us); ratios: the baseline's time / "
                     "collc's (above 1: collc faster); CTAs per call in "
                     "parentheses.")
        lines.append("")
        head = ["size"] + [label_of(k) for k in present] + [
            "%s / %s" % (label_of(b), label_of(c)) for b, c in comps]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        for size in sorted(group):
            row = group[size]
            cells = [fmt_size(size)]
            for k in present:
                r = row.get(k)
                if not r:
                    cells.append("-")
                    continue
                ctas = r.get("ctas_per_call", -1)
                cells.append("%.2f" % r["us"] + (
                    " (%.0f)" % ctas if ctas is not None and ctas >= 0
                    else ""))
            for b, c in comps:
                if b in row and c in row:
                    cells.append("%.2f" % (row[b]["us"] / row[c]["us"]))
                else:
                    cells.append("-")
            lines.append("| " + " | ".join(cells) + " |")
        for b, c in comps:
            small = geomean([row[b]["us"] / row[c]["us"]
                             for size, row in group.items()
                             if b in row and c in row and size < SMALL])
            large = geomean([row[b]["us"] / row[c]["us"]
                             for size, row in group.items()
                             if b in row and c in row and size >= SMALL])
            summary.append("| %d | %d | %s | %s | %s | %s | %s | %s |" % (
                n, gpus, coll, placement.replace("_", " "), label_of(b),
                label_of(c), "%.2f" % small if small else "-",
                "%.2f" % large if large else "-"))
    if len(summary) == 4:
        summary.append("")
        summary.append("No baseline was measured beside collc in these "
                       "records (NCCL and symmetric memory need a GPU per "
                       "rank).")
    return "\n".join(lines) + "\n", "\n".join(summary) + "\n"


def plot(records, out, log):
    """plot-nN-gG-PLACEMENT.png per (ranks, GPUs, placement); the paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups = groups_of(records)
    figures = {}
    for (n, gpus, coll, placement), group in groups.items():
        figures.setdefault((n, gpus, placement), {})[coll] = group
    paths = []
    for (n, gpus, placement), colls in sorted(figures.items()):
        names = sorted(colls, key=lambda c: (COLLECTIVES.index(c)
                                             if c in COLLECTIVES else 9, c))
        fig, axes = plt.subplots(len(names), 3, squeeze=False,
                                 figsize=(15, 3.6 * len(names)))
        for i, coll in enumerate(names):
            group = colls[coll]
            keys = [k for k, _, _ in SERIES
                    if any(k in row for row in group.values())]
            lat, bw, ctas = axes[i]
            for k in keys:
                pts = sorted((s, row[k]) for s, row in group.items()
                             if k in row)
                small = [(s, r["us"]) for s, r in pts if s <= SMALL]
                large = [(s, r["algbw_gbs"]) for s, r in pts if s >= SMALL]
                style = "-" if k[0] == "collc" else "--"
                if small:
                    lat.plot(*zip(*small), style, marker="o", ms=3,
                             label=label_of(k))
                if large:
                    bw.plot(*zip(*large), style, marker="o", ms=3,
                            label=label_of(k))
                cpts = [(s, r["ctas_per_call"]) for s, r in pts
                        if r.get("ctas_per_call", -1) >= 0]
                if cpts:
                    ctas.plot(*zip(*cpts), style, marker="o", ms=3,
                              label=label_of(k))
            for ax, title, ylabel in (
                    (lat, "latency, 8 B - 1 MiB", "us per call"),
                    (bw, "algorithm bandwidth, 1 MiB - 1 GiB", "GB/s"),
                    (ctas, "CTAs per call (rank 0)", "CTAs")):
                ax.set_xscale("log", base=2)
                if ax is lat:
                    ax.set_yscale("log")
                ax.set_title("%s: %s" % (coll, title), fontsize=9)
                ax.set_xlabel("bytes (the larger buffer per rank)",
                              fontsize=8)
                ax.set_ylabel(ylabel, fontsize=8)
                ax.grid(True, which="both", alpha=0.3)
                if ax.lines:
                    ax.legend(fontsize=7)
        fig.suptitle("collc-bench: %d ranks on %d GPU%s, %s (bf16; CUDA "
                     "graph replay, slowest rank)" % (
                         n, gpus, "s" if gpus > 1 else "",
                         placement.replace("_", " ")), fontsize=11)
        fig.tight_layout()
        path = os.path.join(out, "plot-n%d-g%d-%s.png" % (n, gpus, placement))
        fig.savefig(path, dpi=90)
        plt.close(fig)
        paths.append(path)
        log("plot: %s" % path)
    return paths


def report(records, out, log, header_lines, plots):
    os.makedirs(out, exist_ok=True)
    table, summary = table_md(records, header_lines)
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(table)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(summary)
    log(summary.rstrip("\n"))
    if plots:
        try:
            plot(records, out, log)
        except ImportError as e:
            log("collc-bench: the plots need matplotlib (%s); --no-plots "
                "writes the tables only" % e)
            return 2
    return 0


# ---------------------------------------------------------------------------
# --run
# ---------------------------------------------------------------------------

def stream(cmd, log, name, env):
    """Runs `cmd`, its lines into the log, a progress line per measurement
    (and FAIL, FATAL, SKIP lines) on stdout; (status, failures)."""
    log("$ " + " ".join(shlex.quote(c) for c in cmd), echo=False)
    failures = []
    start = time.time()
    done = 0
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                bufsize=1, env=env)
    except OSError as e:
        failures.append("%s: cannot run %s: %s" % (name, cmd[0], e))
        log(failures[-1])
        return 127, failures
    for line in proc.stdout:
        line = line.rstrip("\n")
        if line.startswith(("bandwidth ", "symm ")):
            done += 1
            # "[row] collective nN S bytes: T us, algbw ..." (condensed)
            head, _, rest = line.partition(": ")
            log("  %s %4d %s: %s" % (name, done, head.split(" ", 1)[1],
                                     rest.split(", traffic")[0].split(
                                         " (")[0]))
            log(line, echo=False)
        elif line.startswith(("FAIL", "FATAL")):
            failures.append(line)
            log("  " + line)
        elif line.startswith("SKIP"):
            log("  " + line)
        else:
            log(line, echo=False)
    status = proc.wait()
    if status != 0 and not failures:
        failures.append("%s: exited with status %d" % (name, status))
    log("%s: %d measured, %d failures, %.0f s" % (name, done, len(failures),
                                                  time.time() - start))
    return status, failures


def run(args, log_class):
    out = args.out
    os.makedirs(out, exist_ok=True)
    log = log_class(os.path.join(out, "bench.log"))
    for var, want in (("NCCL_NVLS_ENABLE", "0"),
                      ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
                      ("NVSHMEM_DISABLE_NVLS", "1")):
        if os.environ.get(var) != want:
            raise SystemExit("collc-bench --run: %s=%s must be set (no "
                             "NVLink multicast on these machines)" % (var,
                                                                     want))
    ranks = [int(x) for x in args.ranks.split(",") if x]
    colls = [c for c in args.collectives.split(",") if c]
    for c in colls:
        if c not in COLLECTIVES:
            raise SystemExit("collc-bench: unknown collective '%s' (%s)" %
                             (c, ", ".join(COLLECTIVES)))
    sizes = ([int(x) for x in args.sizes.split(",") if x] if args.sizes
             else DEFAULT_SIZES)
    baselines = [b for b in args.baselines.split(",") if b]
    for b in baselines:
        if b not in ("nccl", "symm"):
            raise SystemExit("collc-bench: unknown baseline '%s' (nccl, "
                             "symm)" % b)
    placements = [p for p in args.placement.split(",") if p]
    for p in placements:
        if p not in ("out", "in"):
            raise SystemExit("collc-bench: unknown placement '%s' (out, in)"
                             % p)
    module = os.path.abspath(args.module)
    fixed = [c for c in colls if c in FIXED or c in ROOTED]
    variable = [c for c in colls if c in VARIABLE]
    vmodule = os.path.abspath(args.variable_module or os.path.join(
        os.path.dirname(module), "variable.collcmod"))
    if variable and not os.path.exists(vmodule):
        raise SystemExit("collc-bench --run: %s needs the module of the _v "
                         "collectives: %s does not exist (--variable-module)"
                         % (",".join(variable), vmodule))

    def rows_file(name, mod):
        rows = [("collc", mod, "-", "ordinary"),
                ("collc registered", mod, "-", "registered"),
                ("collc staged", mod, "-", "staged")]
        if "nccl" in baselines:
            rows += [("nccl", "nccl", "-", "ordinary"),
                     ("nccl window", "nccl", "-", "registered")]
        path = os.path.join(out, name)
        with open(path, "w") as f:
            f.write("# label\tmodule\tCOLLC_FORCE_VARIANT\tbuffers\n")
            for r in rows:
                f.write("\t".join(r) + "\n")
        return path
    env = dict(os.environ)
    env.pop("COLLC_FORCE_VARIANT", None)
    start = time.time()
    log("collc-bench --run: %s, ranks %s on %d GPU(s), %d sizes (%s to %s), "
        "%s, placement %s, baselines %s" % (
            os.path.basename(module), args.ranks, args.gpus, len(sizes),
            fmt_size(min(sizes)), fmt_size(max(sizes)), ",".join(colls),
            ",".join(placements), ",".join(baselines) or "none"))
    failures = []
    parts = []
    # The measurer's share of the budget (symmetric memory gets a quarter),
    # split between the fixed and the _v collectives by their number.
    share = args.budget_s * (
        0.75 if "symm" in baselines and "all_reduce" in colls else 1)
    for name, which, mod, suffix, extra in (
            ("collc+nccl", fixed, module, "", []),
            ("collc+nccl _v", variable, vmodule, "-v",
             ["--partitions=zipf"])):
        if not which:
            continue
        measured = os.path.join(out, "measurer%s.json" % suffix)
        rows_path = rows_file("rows%s.tsv" % suffix, mod)
        cmd = shlex.split(args.measurer) + [
            rows_path, "--ranks=" + ",".join(map(str, ranks)),
            "--gpus=%d" % args.gpus, "--sizes=" + ",".join(map(str, sizes)),
            "--collectives=" + ",".join(which),
            "--placement=" + ",".join(placements), "--no-copy",
            "--json=" + measured, "--machine=" + args.machine,
            "--date=" + args.date, "--target=" + args.target,
            "--alarm=%d" % max(10, int(share * len(which) / len(colls)))
        ] + extra
        _, f = stream(cmd, log, name, env)
        failures += f
        parts.append(measured)
    if "symm" in baselines and "all_reduce" in colls:
        for n in ranks:
            # collc's AllReduce sizes (16-byte units), so that rows align.
            symm_sizes = sorted({max(16, (s + 8) // 16 * 16) for s in sizes
                                 if s <= args.symm_max})
            path = os.path.join(out, "symm-n%d.json" % n)
            cmd = shlex.split(args.symm) + [
                "--ranks=%d" % n, "--sizes=" + ",".join(map(str, symm_sizes)),
                "--json=" + path, "--machine=" + args.machine,
                "--date=" + args.date]
            budget = max(10, args.budget_s - (time.time() - start))
            _, f = stream(["timeout", "%d" % budget] + cmd, log,
                          "symm n%d" % n, env)
            failures += f
            if os.path.exists(path):
                parts.append(path)
    records = read_records([p for p in parts if os.path.exists(p)])
    with open(os.path.join(out, "bench.json"), "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    header = header_lines(records, args)
    status = report(records, out, log, header, not args.no_plots)
    for line in failures:
        log("failure: " + line)
    log("collc-bench --run: %d records, %d failures, %.0f s" % (
        len(records), len(failures), time.time() - start))
    return 1 if failures else status


def header_lines(records, args):
    machine = sorted({r.get("machine", "?") for r in records}) or [
        args.machine]
    dates = sorted({r.get("date", "?") for r in records}) or [args.date]
    return [
        "# collc-bench: collc against NCCL and PyTorch symmetric memory",
        "",
        "Machine %s, %s. Method: bench/collc-bench/sweep.py (the comment at "
        "its top): every configuration checked against the host's reference "
        "before it is timed; CUDA graphs of K calls per rank, 2 warm-up and "
        "5 timed replays, the slowest rank's time per call; bytes = the "
        "larger buffer per rank; bf16." % (", ".join(machine),
                                          ", ".join(dates))]


def report_only(args, log_class):
    out = args.out
    os.makedirs(out, exist_ok=True)
    log = log_class(os.path.join(out, "report.log"))
    records = read_records(args.report)
    return report(records, out, log, header_lines(records, args),
                  not args.no_plots)
