#!/usr/bin/env python3
"""Where a CTA's call goes, from a device trace of kernels built with phase
markers (thread 0 records a ready-word event whose op is the marker's
number, >= 100, at each point: bench/results/2026-12-04-nvidia-h200/
trace-exchange/probe/probe.patch): per marker, the median time from the
CTA's call begin (after griddepcontrol.wait) over every rank, CTA and call
after the first `--skip`. Each marker costs about 0.5 us itself (a global
atomic and a store), which these times include.

  phases.py trace.json[.gz] [--skip 3]
"""
import argparse
import statistics
from collections import defaultdict

from call_gaps import load_events


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("trace")
    p.add_argument("--skip", type=int, default=3)
    args = p.parse_args()
    events = load_events(args.trace)
    begin, end, marks = {}, {}, defaultdict(dict)
    for e in events:
        a = e.get("args", {})
        if "call" not in a:
            continue
        key = (e["pid"], e["tid"], a["call"])
        if e.get("ph") == "X" and e["name"] != "wait":
            begin[key], end[key] = e["ts"], e["ts"] + e["dur"]
        elif e.get("ph") == "i" and e["name"] == "ready word" and \
                a.get("op", 0) >= 100:
            marks[key][a["op"]] = e["ts"]
    at = defaultdict(list)
    for key, b in begin.items():
        if key[2] < args.skip:
            continue
        for op, ts in marks[key].items():
            at[op].append(ts - b)
        at["end"].append(end[key] - b)
    print("| marker | us after the call's begin (median) |")
    print("|---|---|")
    for op in sorted(at, key=lambda k: (isinstance(k, str), k)):
        print("| %s | %.2f |" % (op, statistics.median(at[op])))


if __name__ == "__main__":
    main()
