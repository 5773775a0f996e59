#!/usr/bin/env python3
"""Where a call's time goes, from a device trace (docs/runtime.md, "Device
timelines"): per rank and kernel, each call's span (its first CTA's begin,
after griddepcontrol.wait, to its last CTA's end), the gap from a call's end
to the next call's begin on the same rank (launch and programmatic
dependent launch), and each call's span over all ranks; medians over the
calls after the first `--skip`. Prints a markdown table.

  call_gaps.py trace.json[.gz] [--skip 2]
"""
import argparse
import gzip
import json
import statistics
from collections import defaultdict


def load_events(path):
    """The trace's events (a Chrome trace, gzipped or not)."""
    opener = gzip.open if path.endswith(".gz") else open
    t = json.load(opener(path, "rt"))
    return t["traceEvents"] if isinstance(t, dict) else t


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace")
    p.add_argument("--skip", type=int, default=2)
    args = p.parse_args()
    events = load_events(args.trace)
    calls = defaultdict(lambda: [float("inf"), float("-inf")])
    waits = defaultdict(float)  # (rank, kernel, call) -> longest wait
    for e in events:
        if e.get("ph") != "X" or "call" not in e.get("args", {}):
            continue
        if e["name"] == "wait":
            key = (e["pid"], e["args"]["kernel"], e["args"]["call"])
            waits[key] = max(waits[key], e["dur"])
            continue
        key = (e["pid"], e["name"], e["args"]["call"])
        c = calls[key]
        c[0] = min(c[0], e["ts"])
        c[1] = max(c[1], e["ts"] + e["dur"])
    kernels = sorted({k for _, k, _ in calls})
    print("| kernel | rank | calls | span us | gap us | longest wait us |")
    print("|---|---|---|---|---|---|")
    for kernel in kernels:
        ranks = sorted({r for r, k, _ in calls if k == kernel})
        for r in ranks:
            ns = sorted(c for rr, k, c in calls if k == kernel and rr == r)
            ns = ns[args.skip:]
            spans = [calls[(r, kernel, c)][1] - calls[(r, kernel, c)][0]
                     for c in ns]
            gaps = [calls[(r, kernel, b)][0] - calls[(r, kernel, a)][1]
                    for a, b in zip(ns, ns[1:])]
            w = [waits.get((r, kernel, c), 0.0) for c in ns]
            med = lambda v: statistics.median(v) if v else float("nan")
            print("| %s | %d | %d | %.2f | %.2f | %.2f |" % (
                kernel, r, len(ns), med(spans), med(gaps), med(w)))
        # The call over all ranks: the first begin to the last end.
        common = sorted(set.intersection(*[
            {c for rr, k, c in calls if k == kernel and rr == r}
            for r in ranks]))[args.skip:]
        spans = [max(calls[(r, kernel, c)][1] for r in ranks) -
                 min(calls[(r, kernel, c)][0] for r in ranks) for c in common]
        if spans:
            print("| %s | all | %d | %.2f | | |" % (
                kernel, len(common), statistics.median(spans)))


if __name__ == "__main__":
    main()
