#!/usr/bin/env python3
"""Prints this directory's tables: per device call, every module's AllToAll_v
time per call (us, the mean of its repeated benches), and main's time over
each other module's (above 1: faster than main, measured in the same call)."""
import gzip
import json
import pathlib
import sys
from collections import defaultdict

here = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
for call in sorted(p for p in here.iterdir() if p.is_dir()):
    runs = defaultdict(lambda: defaultdict(list))  # module -> key -> [us]
    for f in sorted(call.glob("*/bench.json.gz")):
        module = f.parent.name.rsplit("-", 1)[0] if f.parent.name[-1].isdigit() else f.parent.name
        for line in gzip.open(f, "rt"):
            if line.strip():
                r = json.loads(line)
                runs[module][(r["nranks"], r["bytes"], r["variant"])].append(r["us"])
    others = [m for m in runs if m != "main"]
    print(f"\n### {call.name}\n")
    print("| ranks | bytes | buffers | main | " + " | ".join(others) + " | " +
          " | ".join(f"main / {m}" for m in others) + " |")
    print("|---" * (4 + 2 * len(others)) + "|")
    mean = lambda v: sum(v) / len(v)
    for key in sorted(runs["main"]):
        n, b, variant = key
        buffers = {"collc": "ordinary", "collc registered": "registered",
                   "collc staged": "staged"}.get(variant, variant)
        row = [str(n), str(b), buffers, f"{mean(runs['main'][key]):.2f}"]
        row += [f"{mean(runs[m][key]):.2f}" if key in runs[m] else "-" for m in others]
        row += [f"{mean(runs['main'][key]) / mean(runs[m][key]):.3f}" if key in runs[m] else "-"
                for m in others]
        print("| " + " | ".join(row) + " |")
