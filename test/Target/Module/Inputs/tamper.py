#!/usr/bin/env python3
"""Writes a copy of a collc module with one defect, for check_module.py's
failure tests.

usage: tamper.py MODULE sha256|kernel|ptx OUT
  sha256  the cubin's sha256 in the manifest changed
  kernel  the first kernel renamed in the manifest (the cubin lacks it)
  ptx     the cubin dropped and a bogus instruction added to the PTX
"""
import json
import sys

path, how, out = sys.argv[1:]
with open(path) as f:
    m = json.load(f)
if how == "sha256":
    for image in m["images"]:
        if image["kind"] == "cubin":
            image["sha256"] = "0" * 64
elif how == "kernel":
    m["kernels"][0]["name"] += "_renamed"
elif how == "ptx":
    m["images"] = [i for i in m["images"] if i["kind"] == "ptx"]
    for image in m["images"]:
        image["data"] += "\nnot_an_instruction;\n"
else:
    sys.exit(f"unknown defect {how}")
with open(out, "w") as f:
    json.dump(m, f)
