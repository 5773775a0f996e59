#!/usr/bin/env python3
"""The forced runs of a module's programs (scripts/gpu-suite.sh, programs
phase): one line per distinct (variant, encoding, chunked or not) of the
module's program kernels, read from its manifest, so that every program the module actually
contains (two-shot, speculation) is forced and run, not a fixed list:

    VARIANT:ENCODING BAND_LO BAND_HI RANKS SPECULATE COLLECTIVES

BAND_LO/HI: the least lo and the largest hi over those kernels (a chunked
program's band is its own run: the collectives without one, Scatter and
Gather, run v1 there, so the sentinel expectations of the unchunked run's
collectives must not follow them above their own band); RANKS: their
world sizes (comma-separated) among --ranks; SPECULATE: yes, no, or mixed
(COLLC_FORCE_VARIANT names a variant and an encoding, so speculating and
non-speculating programs of one pair are forced together; a NOTE on stderr
says so); COLLECTIVES: the collectives that have such a program (the others
run v1 when it is forced, and a copy there keeps the sentinel pattern).

usage: forced_runs.py MODULE [--ranks=2,3,5,8]
"""
import json
import sys


def main():
    module = sys.argv[1]
    ranks = None
    for a in sys.argv[2:]:
        if a.startswith("--ranks="):
            ranks = {int(x) for x in a[8:].split(",") if x}
    manifest = json.load(open(module))
    groups = {}
    for k in manifest.get("kernels", []):
        p = k.get("program")
        if p is None:
            continue
        key = (p["variant"], p["encoding"], bool(p.get("chunk", 0)))
        g = groups.setdefault(key, {"lo": p["band"][0], "hi": p["band"][1],
                                    "ranks": set(), "spec": set(),
                                    "colls": set()})
        g["lo"] = min(g["lo"], p["band"][0])
        g["hi"] = max(g["hi"], p["band"][1])
        g["ranks"].add(k["world_size"])
        g["spec"].add(bool(p.get("speculate", False)))
        g["colls"].add(k["collective"])
    for (variant, encoding, _), g in groups.items():
        world = sorted(g["ranks"] & ranks if ranks else g["ranks"])
        if not world:
            continue
        spec = ("mixed" if len(g["spec"]) == 2 else
                "yes" if True in g["spec"] else "no")
        if spec == "mixed":
            print(f"NOTE {module}: {variant}:{encoding} has speculating and "
                  "non-speculating programs; forcing runs them together",
                  file=sys.stderr)
        print(f"{variant}:{encoding} {g['lo']} {g['hi']} "
              f"{','.join(map(str, world))} {spec} "
              f"{','.join(sorted(g['colls']))}")


if __name__ == "__main__":
    main()
