#!/usr/bin/env python3
"""Checks a policy table written by collc-bench against its records,
independently of collc-bench:

- the schema, exactly (docs/module-format.md, "Policy tables"): the fields
  of the table, of each entry, fit and interval, no others, their types
  (keys and counts integers, times floats), `select` bounds increasing and
  the last interval without `upto`;
- for every entry, at every key measured in its group (ranks, collective,
  buffers; records of a forced variant), the interval holding the key
  selects a variant that was measured there, and it is within 2% of the
  fastest variant measured there.

usage: check_table.py TABLE RECORDS
Prints "ok: E entries, I intervals, K keys" or exits 1 naming the first
violation.
"""
import json
import re
import statistics
import sys

TOP = {"format", "version", "machine", "gpu", "driver", "date", "module",
       "method", "entries"}
ENTRY = {"target", "ranks", "collective", "buffers", "fits", "select"}
FIT = {"variant", "a_us", "b_us_per_byte", "residual", "key_lo", "key_hi",
       "points"}


def bad(msg):
    print("check_table: " + msg)
    sys.exit(1)


def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def main():
    table = json.load(open(sys.argv[1]))
    if set(table) != TOP:
        bad("table fields %s" % sorted(table))
    if table["format"] != "collc-policy-table" or table["version"] != 1:
        bad("format/version")
    for k in ("machine", "gpu", "module", "method"):
        if not isinstance(table[k], str):
            bad(k + " is not a string")
    if not is_int(table["driver"]):
        bad("driver is not an integer")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", table["date"]):
        bad("date %r" % table["date"])
    times = {}
    for line in open(sys.argv[2]):
        r = json.loads(line)
        if "calibration" in r or r.get("force", "-") in ("-", ""):
            continue
        g = (r["nranks"], r["collective"], r["buffers"])
        times.setdefault(g, {}).setdefault(r["key_bytes"], {}).setdefault(
            r["force"], []).append(r["us"])
    intervals = keys = 0
    for i, e in enumerate(table["entries"]):
        w = "entries[%d]" % i
        if set(e) != ENTRY:
            bad(w + " fields %s" % sorted(e))
        if not is_int(e["ranks"]) or e["buffers"] not in ("ordinary",
                                                          "registered"):
            bad(w + " ranks/buffers")
        for f in e["fits"]:
            if set(f) != FIT:
                bad(w + " fit fields %s" % sorted(f))
            if not all(isinstance(f[k], float) for k in ("a_us",
                                                         "b_us_per_byte",
                                                         "residual")):
                bad(w + " fit times are not floats: %s" % f)
            if not all(is_int(f[k]) for k in ("key_lo", "key_hi", "points")):
                bad(w + " fit keys are not integers: %s" % f)
        sel = e["select"]
        if not sel or "upto" in sel[-1] or set(sel[-1]) != {"variant"}:
            bad(w + " last interval %s" % (sel[-1:],))
        last = -1
        for s in sel[:-1]:
            if set(s) != {"upto", "variant"} or not is_int(s["upto"]) or \
                    s["upto"] <= last:
                bad(w + " interval %s" % s)
            last = s["upto"]
        intervals += len(sel)
        g = (e["ranks"], e["collective"], e["buffers"])
        for key, here in sorted(times.get(g, {}).items()):
            keys += 1
            chosen = next(s["variant"] for s in sel
                          if "upto" not in s or key <= s["upto"])
            if chosen not in here:
                bad("%s: key %d selects %s, which was not measured there "
                    "(measured: %s)" % (w, key, chosen, sorted(here)))
            med = {v: statistics.median(t) for v, t in here.items()}
            best = min(med.values())
            if med[chosen] > 1.02 * best:
                bad("%s: key %d selects %s at %.4f us, not within 2%% of the "
                    "fastest (%.4f us)" % (w, key, chosen, med[chosen], best))
    print("ok: %d entries, %d intervals, %d keys" % (len(table["entries"]),
                                                    intervals, keys))


if __name__ == "__main__":
    main()
