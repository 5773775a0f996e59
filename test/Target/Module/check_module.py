#!/usr/bin/env python3
"""Checks a collc module file with standard tools, independently of collc.

- every collective x element type x world size has a kernel on every target;
- every PTX image assembles with `ptxas -arch=<its target>`;
- with --no-spills TARGET: no kernel of that target spills registers.
Prints one line per check; exits non-zero on the first failure.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("module")
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--no-spills", action="append", default=[])
    args = ap.parse_args()
    with open(args.module) as f:
        m = json.load(f)

    have = {(k["target"], k["collective"], k["element_type"], k["world_size"])
            for k in m["kernels"]}
    expected = 0
    for c in m["collectives"]:
        for t in m["targets"]:
            for e in c["element_types"]:
                for n in c["world_sizes"]:
                    expected += 1
                    if (t, c["name"], e, n) not in have:
                        sys.exit(f"missing kernel: {c['name']} {e} n={n} on {t}")
    print(f"kernels: {expected} expected, all present")

    for image in m["images"]:
        if image["kind"] != "ptx":
            continue
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(image["data"])
            path = f.name
        try:
            r = subprocess.run([args.ptxas, "-arch=" + image["target"], "-o",
                                os.devnull, path], capture_output=True, text=True)
        finally:
            os.unlink(path)
        if r.returncode != 0:
            sys.exit(f"ptxas -arch={image['target']} rejected the PTX:\n{r.stderr}")
        print(f"ptxas -arch={image['target']}: ok")

    for target in args.no_spills:
        kernels = [k for k in m["kernels"] if k["target"] == target]
        if not kernels:
            sys.exit(f"no kernels for {target}")
        for k in kernels:
            r = k["resources"]
            if r["spill_store_bytes"] or r["spill_load_bytes"]:
                sys.exit(f"{k['name']} spills on {target}: {r}")
        worst = max(k["resources"]["registers"] for k in kernels)
        print(f"spills on {target}: none in {len(kernels)} kernels "
              f"(most registers: {worst})")


if __name__ == "__main__":
    main()
