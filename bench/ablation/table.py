#!/usr/bin/env python3
"""The ablation's README table (scripts/gpu-ablation.sh): one table per rank
count, one row per technique in the rows file's order, microseconds per call
at each size. A cell that ran the v1 kernel (beyond every forced program's
band) says so, from the module's manifest, as the runtime routes
(docs/runtime.md): the first program of all_reduce bf16 at that world size
whose band holds the bytes, among those COLLC_FORCE_VARIANT allows.

usage: table.py ROWS JSON [SKIPPED]   (SKIPPED: lines "label<TAB>why")
"""
import json
import sys


def kernel_for(manifest, force, nranks, nbytes):
    programs = []
    for k in manifest["kernels"]:
        if (k["collective"] != "all_reduce" or k["element_type"] != "bf16"
                or k["world_size"] != nranks):
            continue
        if "program" not in k:
            continue
        p = k["program"]
        if force == "v1":
            continue
        if force not in ("", "-") and force != p["variant"] + ":" + p["encoding"]:
            continue
        programs.append(k)
    for k in programs:
        lo, hi = k["program"]["band"]
        if lo <= nbytes <= hi:
            return k
    return None


def main():
    rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])
            if l.strip() and not l.startswith("#")]
    records = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    skipped = []
    if len(sys.argv) > 3:
        skipped = [l.rstrip("\n").split("\t", 1) for l in open(sys.argv[3])
                   if l.strip()]
    sizes = sorted({r["bytes"] for r in records})
    manifests = {}
    for label, module, force in rows:
        try:
            manifests[module] = json.load(open(module))
        except OSError:
            manifests[module] = {"kernels": []}

    def fmt(b):
        return (f"{b // 1048576} MiB" if b >= 1048576 and b % 1048576 == 0
                else f"{b // 1024} KiB" if b >= 1024 else f"{b} B")

    for n in sorted({r["nranks"] for r in records}):
        print(f"\n{n} ranks, microseconds per call (v1: the call ran the v1 "
              "kernel, beyond the forced program's band):\n")
        print("| row | kernel | " + " | ".join(fmt(s) for s in sizes) + " |")
        print("|---|---|" + "---|" * len(sizes))
        for label, module, force in rows:
            m = manifests[module]
            cells, kernels = [], set()
            for s in sizes:
                rec = [r for r in records if r["variant"] == label
                       and r["nranks"] == n and r["bytes"] == s]
                k = kernel_for(m, force, n, s)
                if k is not None:
                    kernels.add("%s:%s %dx%d" % (
                        k["program"]["variant"], k["program"]["encoding"],
                        k["grid"], k["threads"]) +
                        (" spec" if k["program"].get("speculate") else "") +
                        ("" if k["pdl"] else " no-PDL"))
                if not rec:
                    cells.append("-")
                else:
                    cells.append("%.2f%s" % (rec[0]["us"],
                                             "" if k is not None else " (v1)"))
            print(f"| {label} | {', '.join(sorted(kernels)) or 'v1'} | " +
                  " | ".join(cells) + " |")
    for label, why in skipped:
        print(f"\nSkipped row '{label}': {why}")


if __name__ == "__main__":
    main()
