#!/usr/bin/env python3
"""Turns kernel 0 of a v1 module into a program kernel (a consistent
`program` object, no workspace), then runs an edit on it, for testing
`collc --validate-module` without a program the compiler derived.

usage: as_program.py IN OUT [PYTHON]   (PYTHON sees m, k = kernel 0, p = its program)
"""
import json
import sys

m = json.load(open(sys.argv[1]))
k = m["kernels"][0]
del k["workspace"]
region = 2 * 65536  # LL16 doubles a 64 KiB payload
k["program"] = p = {
    "variant": "one_shot", "encoding": "ll16", "band": [0, 65536],
    "slots": 2, "region_bytes": region,
    "rx_bytes": 2 * k["world_size"] * region, "rx_fill": 0,
    "counter_words": k["grid"], "input_packed": True,
}
if len(sys.argv) > 3:
    exec(sys.argv[3])
json.dump(m, open(sys.argv[2], "w"))
