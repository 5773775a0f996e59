#!/usr/bin/env python3
"""Prints what each target costs in the modules the main job wrote: per
module and target, the bytes stored (the target's base64 image and its
kernels' manifest entries), against the bounds of issue 12 (a target at most
8 MB; the library compiled in at most 120 s on the 2-core CI machine).

usage: module-sizes.py [--seconds S] MODULE...
"""
import argparse
import json
import os

TARGET_BYTES = 8_000_000
LIBRARY_SECONDS = 120


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int)
    ap.add_argument("modules", nargs="+")
    args = ap.parse_args()
    worst = 0
    for path in args.modules:
        with open(path) as f:
            m = json.load(f)
        parts = []
        for image in m["images"]:
            t = image["target"]
            kernels = [k for k in m["kernels"] if k["target"] == t]
            share = len(image["data"]) + sum(len(json.dumps(k)) for k in kernels)
            worst = max(worst, share)
            what = "+".join(image.get("contents", [image["kind"]]))
            parts.append(f"{t} {share / 1e6:.1f} MB ({what}, "
                         f"{len({k['name'] for k in kernels})} kernels for "
                         f"{len(kernels)} entries)")
        print(f"module size: {os.path.basename(path)} "
              f"{os.path.getsize(path) / 1e6:.1f} MB: {', '.join(parts)}")
    print(f"module size: the largest target takes {worst / 1e6:.1f} MB "
          f"(bound {TARGET_BYTES / 1e6:.0f} MB: "
          f"{'within' if worst <= TARGET_BYTES else 'OVER'})")
    if args.seconds is not None:
        print(f"compile time: {args.seconds} s for the library on "
              f"{os.cpu_count()} cores (bound {LIBRARY_SECONDS} s on 2: "
              f"{'within' if args.seconds <= LIBRARY_SECONDS else 'OVER'})")


if __name__ == "__main__":
    main()
