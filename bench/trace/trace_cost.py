#!/usr/bin/env python3
"""What the device-trace hooks cost when tracing is off (issue 15): two
collc-bench record files of the same sweep, one through the shipped module
(hooks compiled out: the same code as without them) and one through a
module compiled with --device-trace run without COLLC_TRACE (the hooks
compiled in, each a load of the buffer pointer and a branch). Prints, per
(collective, ranks, buffers, placement, size), both times and their ratio,
and the median and largest ratio; a markdown table.

usage: trace_cost.py SHIPPED.json TRACED.json
"""
import json
import statistics
import sys


def records(path):
    """The collc records of a collc-bench JSON-lines file, by
    configuration."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if r.get("implementation") != "collc":
                continue
            key = (r["collective"], r["nranks"], r.get("buffers", "-"),
                   r.get("placement", "-"), r["bytes"])
            out[key] = r["us"]
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    shipped, traced = records(sys.argv[1]), records(sys.argv[2])
    both = sorted(set(shipped) & set(traced))
    if not both:
        sys.exit("trace_cost: no configuration measured in both files")
    print("| collective | ranks | buffers | placement | bytes | shipped us "
          "| hooks compiled in, tracing off, us | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    ratios = []
    for key in both:
        ratio = traced[key] / shipped[key]
        ratios.append(ratio)
        print("| %s | %d | %s | %s | %d | %.3f | %.3f | %.3f |" % (
            key + (shipped[key], traced[key], ratio)))
    print()
    print("%d sizes: median ratio %.3f, largest %.3f (above 1: the hooks "
          "cost time)" % (len(ratios), statistics.median(ratios),
                          max(ratios)))


if __name__ == "__main__":
    main()
