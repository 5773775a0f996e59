#!/usr/bin/env python3
"""A stand-in for bench/bandwidth/symm_mem.py, for collc-bench's lit test
(no GPU): the same arguments, output lines and records; one-shot 3 + 2e-5 S
us, two-shot 4 + 5e-6 S; SKIP where the machine has fewer GPUs than ranks
(FAKE_GPUS, default 2)."""
import json
import sys


def main():
    opts = dict(a.split("=", 1) for a in sys.argv[1:])
    n = int(opts["--ranks"])
    if n > int(__import__("os").environ.get("FAKE_GPUS", "2")):
        print("SKIP [torch_symm_mem] all_reduce n%d: symmetric memory needs "
              "a GPU per rank" % n)
        print("0 passed, 0 failed")
        return 0
    passed = 0
    with open(opts["--json"], "w") as out:
        for size in [int(x) for x in opts["--sizes"].split(",")]:
            for variant, (a, b) in (("one_shot", (3, 2e-5)),
                                    ("two_shot", (4, 5e-6))):
                us = round(a + b * size, 4)
                print("symm [torch_symm_mem %s] all_reduce n%d %d bytes: "
                      "%.2f us, algbw %.2f GB/s (64 calls per graph)" %
                      (variant, n, size, us, size / us / 1e3))
                passed += 1
                out.write(json.dumps({
                    "collective": "all_reduce", "dtype": "bf16",
                    "bytes": size, "nranks": n, "gpus": n,
                    "implementation": "torch_symm_mem", "variant": variant,
                    "placement": "out_of_place" if variant == "one_shot"
                    else "in_place", "buffers": "symmetric", "us": us,
                    "algbw_gbs": round(size / us / 1e3, 4),
                    "ctas_per_call": -1, "machine": opts.get("--machine"),
                    "date": opts.get("--date")}) + "\n")
    print("%d passed, 0 failed" % passed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
