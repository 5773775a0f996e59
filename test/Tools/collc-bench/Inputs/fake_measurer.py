#!/usr/bin/env python3
"""A stand-in for bench/bandwidth's collc_bandwidth, for collc-bench's lit
test (no GPU): the same arguments and output lines, times from linear
models per (collective, kernel) of the test's module (Inputs/module.json):

  all_reduce  v1             20    + 2e-5   K us
              one_shot:ll16   2    + 1e-4   K
              two_shot:ll16   5    + 2e-5   K
              two_shot:flag  12    + 5e-6   K   (chunked, staged)
                             16    + 2e-6   K   (zero-copy: registered;
                                                 staged is faster below
                                                 K = 1.46e6)
  all_gather  v1             15    + 1e-5   K
              one_shot:ll16   1.5  + 8e-5   K
              one_shot:flag   8    + 4e-6   K   (zero-copy: 6 + 2e-6 K)

  gather      as all_gather (Inputs/rooted-module.json; K: S/n)
  all_gather_v v1             14    + 1e-5   K   (Inputs/variable-
              one_shot:ll16   1.2  + 1e-4   K    module.json; K: the
              one_shot:flag   9    + 4e-6   K    largest partition)
                                     (zero-copy: 7 + 2e-6 K)
  a collective the module has no kernel of (--run on Inputs/module.json:
  the _v collectives, broadcast, reduce, scatter, gather)
                              3    + 1e-5   K   (K: the total S)
  Records of _v calls name --partitions, which the call must give.

with K the key (the rank's input bytes); ordinary buffers run the
zero-copy models where the policy table's registered entry chooses a
zero-copy program (direct buffers: one process), unless the row's buffers
are "staged", COLLC_CLIQUE_DIRECT=0, the row forces a variant, or the
collective is AllToAll_v (no size its ranks share); in place 1 us more (the _v
collectives: out of place only, as the measurer). Rows whose
module is "nccl" (collc-bench --run): 15 + 1e-5 K us, in a window 12 +
1e-5 K, SKIP where two ranks share a GPU (n > --gpus), as the measurer.
The routing is the measurer's
(routedKernel): with --strict-force a forced variant that serves no call of
the size prints SKIP. FAKE_FAIL="label|collective|ranks|bytes" makes that
measurement print a FAIL line and write no record.
"""
import json
import os
import sys

MODELS = {
    ("all_reduce", "collc_all_reduce_bf16_n2"): (20, 2e-5),
    ("all_reduce", "collc_all_reduce__one_shot_ll16_bf16_n2"): (2, 1e-4),
    ("all_reduce", "collc_all_reduce__two_shot_ll16_bf16_n2"): (5, 2e-5),
    ("all_reduce", "collc_all_reduce__two_shot_flag_chunked_bf16_n2"):
        (12, 5e-6),
    ("all_reduce", "collc_all_reduce__two_shot_flag_zero_copy_bf16_n2"):
        (16, 2e-6),
    ("all_reduce", "collc_all_reduce_bf16_n4"): (25, 3e-5),
    ("all_gather", "collc_all_gather_bytes_n2"): (15, 1e-5),
    ("all_gather", "collc_all_gather__one_shot_ll16_bytes_n2"): (1.5, 8e-5),
    ("all_gather", "collc_all_gather__one_shot_flag_chunked_bytes_n2"):
        (8, 4e-6),
    ("all_gather", "collc_all_gather__one_shot_flag_zero_copy_bytes_n2"):
        (6, 2e-6),
    ("gather", "collc_gather_bytes_n2"): (15, 1e-5),
    ("gather", "collc_gather__one_shot_ll16_bytes_n2"): (1.5, 8e-5),
    ("gather", "collc_gather__one_shot_flag_chunked_bytes_n2"): (8, 4e-6),
    ("gather", "collc_gather__one_shot_flag_zero_copy_bytes_n2"): (6, 2e-6),
    ("all_gather_v", "collc_all_gather_v_bytes_n2"): (14, 1e-5),
    ("all_gather_v", "collc_all_gather_v__one_shot_ll16_bytes_n2"):
        (1.2, 1e-4),
    ("all_gather_v", "collc_all_gather_v__one_shot_flag_chunked_bytes_n2"):
        (9, 4e-6),
    ("all_gather_v", "collc_all_gather_v__one_shot_flag_zero_copy_bytes_n2"):
        (7, 2e-6),
}


def snap(coll, size, n):
    unit = 16 if coll in ("all_reduce", "broadcast", "reduce") else 16 * n
    return max(1, (size + unit // 2) // unit) * unit


def table_variant(manifest, target, coll, n, key, registered):
    """The policy_table's variant for the call (registered buffers: the
    registered entry, else the ordinary one), or None."""
    entries = manifest.get("policy_table", {}).get("entries", [])
    for buffers in (["registered"] if registered else []) + ["ordinary"]:
        for e in entries:
            if (e["target"], e["ranks"], e["collective"], e["buffers"]) == \
                    (target, n, coll, buffers):
                for s in e["select"]:
                    if "upto" not in s or key <= s["upto"]:
                        return s["variant"]
    return None


def names(variant, p):
    """As the runtime: ":staged" never names a zero-copy twin."""
    staged = variant.endswith(":staged")
    base = variant[:-len(":staged")] if staged else variant
    return base == "%s:%s" % (p["variant"], p["encoding"]) and not (
        staged and p.get("registered"))


def registered_entry(manifest, target, coll, n):
    """Whether the policy table has a registered entry for the call: the
    runtime reads a clique's ordinary buffers in place only there."""
    return any((e["target"], e["ranks"], e["collective"], e["buffers"]) ==
               (target, n, coll, "registered")
               for e in manifest.get("policy_table", {}).get("entries", []))


def routed(manifest, coll, n, key, force, registered, target):
    """(program, kernel, by) as routedKernel. FAKE_MISROUTE=1: an unforced
    call ignores the policy table (a measurer that disagrees with it)."""
    forced = force not in ("", "-")
    choice = None
    if not forced and not os.environ.get("FAKE_MISROUTE"):
        choice = table_variant(manifest, target, coll, n, key, registered)
    v1 = program = by_table = None
    for k in manifest["kernels"]:
        bf16 = k.get("element_type") == "bf16" or "bf16" in k.get("serves", [])
        if k["collective"] != coll or not bf16 or k["world_size"] != n or \
                k.get("target", target) != target:
            continue
        if "program" not in k:
            v1 = v1 or k
            continue
        if force == "v1":
            continue
        p = k["program"]
        if p.get("registered") and not registered:
            continue
        if forced and not names(force, p):
            continue
        if p["band"][0] <= key <= p["band"][1]:
            program = program or k
            if choice and names(choice, p):
                by_table = by_table or k
    by = "force" if forced else "bands"
    if choice == "v1":
        program, by = None, "table"
    elif by_table:
        program, by = by_table, "table"
    return program, (program or v1), by


def main():
    rows_path = sys.argv[1]
    opts = {}
    flags = set()
    for a in sys.argv[2:]:
        if "=" in a:
            k, v = a.split("=", 1)
            opts[k] = v
        else:
            flags.add(a)
    ranks = [int(x) for x in opts["--ranks"].split(",")]
    gpus = int(opts.get("--gpus", "1"))
    placements = opts.get("--placement", "out").split(",")
    sizes = [int(x) for x in opts["--sizes"].split(",")]
    colls = opts["--collectives"].split(",")
    plan = None
    if "--plan" in opts:
        plan = set()
        for line in open(opts["--plan"]):
            if line.strip() and not line.startswith("#"):
                label, coll, n, size = line.rstrip("\n").split("\t")
                plan.add((label, coll, int(n), int(size)))
    failing = os.environ.get("FAKE_FAIL", "")
    rows = []
    for line in open(rows_path):
        if line.strip() and not line.startswith("#"):
            f = line.rstrip("\n").split("\t") + ["", ""]
            rows.append((f[0], f[1], f[2], f[3] or "ordinary"))
    out = open(opts["--json"], "w")
    print("driver 13000")
    print("gpu Fake H200")
    print("Fake H200, 132 SMs; %d rows" % len(rows))
    passed = failed = skipped = 0
    for label, module, force, buffers in rows:
        nccl = module == "nccl"
        direct = buffers != "staged" and os.environ.get(
            "COLLC_CLIQUE_DIRECT", "1") != "0"
        manifest = {} if nccl else json.load(open(module))
        for n in ranks:
            if nccl and n > gpus:
                print("SKIP [%s] n%d: NCCL needs a GPU per rank (%d GPU(s) "
                      "used)" % (label, n, gpus))
                continue
            for coll, where in [(c, p) for c in colls for p in placements
                                if p == "out" or c not in (
                                    "all_to_all", "all_gather_v",
                                    "reduce_scatter_v", "all_to_all_v",
                                    "scatter", "gather")]:
                variable = coll.endswith("_v")
                if variable and "--partitions" not in opts:
                    print("FATAL %s without --partitions" % coll)
                    return 2
                seen = set()
                for req in sizes:
                    if plan is not None and (label, coll, n, req) not in plan:
                        continue
                    size = snap(coll, req, n)
                    if size in seen:
                        continue
                    seen.add(size)
                    key = size // n if coll in ("all_gather", "gather",
                                                "all_gather_v") else size
                    what = "[%s] %s%s n%d %d bytes" % (
                        label, coll, " in-place" if where == "in" else "", n,
                        size)
                    if nccl:
                        program, k, by = None, {"name": "nccl"}, "nccl"
                    elif not any(k.get("collective") == coll
                                 for k in manifest.get("kernels", [])):
                        program, by = None, "bands"
                        k = {"name": "collc_%s_fake" % coll}
                    else:
                        program, k, by = routed(
                            manifest, coll, n, key, force,
                            buffers == "registered",
                            opts.get("--target", "sm_90"))
                        # Direct buffers, as the measurer: one process reads
                        # ordinary buffers in place where the registered
                        # choice is a zero-copy program.
                        if buffers == "ordinary" and direct and \
                                coll != "all_to_all_v" and \
                                force in ("", "-") and registered_entry(
                                    manifest, opts.get("--target", "sm_90"),
                                    coll, n):
                            d = routed(manifest, coll, n, key, force, True,
                                       opts.get("--target", "sm_90"))
                            if "_zero_copy" in d[1].get("name", ""):
                                program, k, by = d
                    if ("--strict-force" in flags and force not in
                            ("", "-", "v1") and program is None):
                        print("SKIP %s (variant %s does not serve %d bytes)"
                              % (what, force, key))
                        skipped += 1
                        continue
                    if failing == "%s|%s|%d|%d" % (label, coll, n, req):
                        print("FAIL %s: rank 1 element 3 of %d: got 0x0000, "
                              "want 0x3f80" % (what, size // 2))
                        failed += 1
                        continue
                    passed += 1
                    if nccl:
                        a, b = (12 if buffers == "registered" else 15), 1e-5
                    elif (coll, k["name"]) not in MODELS:
                        a, b = 3, 1e-5
                    else:
                        a, b = MODELS[(coll, k["name"])]
                    us = round(a + b * key + (where == "in"), 4)
                    print("bandwidth %s: %.2f us (%s)" % (what, us,
                                                          k["name"]))
                    out.write(json.dumps({
                        "collective": coll, "dtype": "bf16", "bytes": size,
                        "requested_bytes": req, "key_bytes": key,
                        "nranks": n, "gpus": gpus,
                        "implementation": "nccl" if nccl else "collc",
                        "variant": label, "partitions": opts.get(
                            "--partitions", "fixed") if variable else "fixed",
                        "us": us,
                        "algbw_gbs": round(size / us / 1e3, 4),
                        "placement": "in_place" if where == "in"
                        else "out_of_place",
                        "ctas_per_call": 24 if nccl else 16,
                        "kernel": k["name"], "selected_by": by,
                        "force": force,
                        "buffers": ("window" if nccl and buffers ==
                                    "registered" else buffers),
                        "direct": buffers == "ordinary" and
                        "_zero_copy" in k["name"],
                        "module": module,
                        "machine": opts.get("--machine", "unknown"),
                        "date": opts.get("--date", "unknown"),
                        "checked": "bitwise"}) + "\n")
    print("%d skipped (forced variants that do not serve the call)" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
