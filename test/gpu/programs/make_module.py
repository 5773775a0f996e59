#!/usr/bin/env python3
"""Wraps the PTX of kernels.cu in a collc module file with one program entry
per kernel (docs/module-format.md), for runtime_programs.cpp: the runtime's
program path before the emitter writes such modules.

usage: make_module.py KERNELS.ptx OUT.collcmod
"""
import hashlib
import json
import re
import sys

ENCODINGS = {"flag": 0, "ll16": 1, "sentinel": 2}
GRID, THREADS, BAND_HI, SLOTS = 16, 256, 65536, 2


def region_bytes(encoding, payload, segments):
    """abi.h collcRxRegionBytes."""
    data = (payload + 15) // 16 * 16
    if encoding == "ll16":
        return 2 * data
    if encoding == "flag":
        return data + (segments * 8 + 15) // 16 * 16
    return data


def transform(consume, src, dst):
    t = {"consume": consume, "input": src, "output": dst, "root": "none"}
    if consume == "reduce":
        t["reduction"] = "sum"
    return t


COLLECTIVES = {
    "all_reduce": [transform("reduce", "scattered", "packed"),
                   transform("copy", "packed", "scattered")],
    "all_gather": [transform("copy", "packed", "scattered")],
    "reduce_scatter": [transform("reduce", "scattered", "packed")],
    "all_to_all": [transform("copy", "scattered", "transposed")],
}
INPUT_PACKED = {"all_reduce": True, "all_gather": True,
                "reduce_scatter": False, "all_to_all": False}

ptx = open(sys.argv[1]).read()
kernels = []
for name in re.findall(r"^\.visible \.entry (\w+)\(", ptx, re.M):
    m = re.fullmatch(r"collc_(\w+?)__one_shot_(\w+)_bf16_n(\d+)", name)
    coll, enc, n = m.group(1), m.group(2), int(m.group(3))
    region = region_bytes(enc, BAND_HI, GRID * THREADS // 32)
    # kernels.cu's REGION_* macros must be the ABI's formula.
    macro = re.search(r"#define REGION_%s (\d+)ull" % enc,
                      open(sys.argv[0].replace("make_module.py",
                                               "kernels.cu")).read())
    assert int(macro.group(1)) == region, (enc, macro.group(1), region)
    kernels.append({
        "name": name, "target": "sm_90", "collective": coll,
        "element_type": "bf16", "element_bytes": 2, "world_size": n,
        "grid": GRID, "threads": THREADS, "pdl": True, "resources": {},
        "program": {
            "variant": "one_shot", "encoding": enc, "band": [0, BAND_HI],
            "slots": SLOTS, "region_bytes": region,
            "rx_bytes": SLOTS * n * region,
            "rx_fill": 0xFF if enc == "sentinel" else 0,
            "counter_words": GRID, "input_packed": INPUT_PACKED[coll]}})

module = {
    "format": "collc-module", "format_version": 1, "kernel_abi_version": 2,
    "program_abi_version": 2,
    "compiler": {"name": "make_module.py", "version": "0", "nvrtc": "nvcc"},
    "spec": {"file": "kernels.cu", "sha256": hashlib.sha256(
        ptx.encode()).hexdigest()},
    "targets": ["sm_90"], "policy": {},
    "collectives": [{"name": c, "transforms": t,
                     "schedule": {"roles": [], "ready_events": [],
                                  "free_events": []}}
                    for c, t in COLLECTIVES.items()],
    "kernels": kernels,
    "images": [{"target": "sm_90", "kind": "ptx", "encoding": "text",
                "size": len(ptx.encode()),
                "sha256": hashlib.sha256(ptx.encode()).hexdigest(),
                "data": ptx}],
}
json.dump(module, open(sys.argv[2], "w"), indent=1)
print("%s: %d program kernels" % (sys.argv[2], len(kernels)))
