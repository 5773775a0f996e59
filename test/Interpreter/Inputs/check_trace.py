#!/usr/bin/env python3
"""Checks a trace of `collc --simulate --trace` (Chrome trace event format)
independently of the writer: the format's required fields (every event a
name, ph and pid; every non-metadata event a ts and tid; complete events a
dur; flows an id), timestamps strictly increasing on every track, a name
for every process and track, every flow's end after its start, and the
causality the interpreter proves: every await of a ready event (its event
argument names a chunk) and every take, await word or read of a program
receives a flow that left an earlier notify, put or word (a speculative
use: the validated write), and in a run that did not fail every ready
notify, packet and ready word is received exactly once. Prints a summary;
exit 1 and the first problem otherwise."""
import json
import sys
from collections import Counter, defaultdict


def main(path):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    problems = []
    procs, threads = set(), set()
    steps = defaultdict(list)  # (pid, tid) -> [ts]
    slices = {}                # (pid, tid, ts) -> event
    starts, ends = {}, defaultdict(list)
    marks = []
    for e in events:
        for k in ("name", "ph", "pid"):
            if k not in e:
                problems.append("event without %s: %r" % (k, e))
        if e["ph"] == "M":
            if e["name"] == "process_name":
                procs.add(e["pid"])
            elif e["name"] == "thread_name":
                threads.add((e["pid"], e["tid"]))
            continue
        if not isinstance(e.get("ts"), (int, float)) or "tid" not in e:
            problems.append("event without ts or tid: %r" % e)
            continue
        key = (e["pid"], e["tid"])
        if e["ph"] == "X":
            if "dur" not in e:
                problems.append("complete event without dur: %r" % e)
            steps[key].append(e["ts"])
            slices[key + (e["ts"],)] = e
        elif e["ph"] == "s":
            if e["id"] in starts:
                problems.append("flow id %d starts twice" % e["id"])
            starts[e["id"]] = e
        elif e["ph"] == "f":
            ends[key + (e["ts"],)].append(e["id"])
        elif e["ph"] == "i":
            marks.append(e)
        else:
            problems.append("unexpected ph %r" % e["ph"])
    for key, ts in steps.items():
        if any(b <= a for a, b in zip(ts, ts[1:])):
            problems.append("track %r: timestamps not increasing" % (key,))
        if key not in threads:
            problems.append("track %r has no thread_name" % (key,))
        if key[0] not in procs:
            problems.append("process %r has no process_name" % key[0])
    for at, ids in ends.items():
        for i in ids:
            s = starts.get(i)
            if s is None or s["ts"] >= at[2]:
                problems.append("flow %d ends at %r without an earlier "
                                "start" % (i, at))
    # In a run that did not fail, every ready notify, packet and ready word
    # is received exactly once (the interpreter proves every published
    # event awaited); a free event's release at most once (the last ones
    # may never be acquired again).
    failed_pids = {m["pid"] for m in marks if m["name"] == "failed"}
    received = Counter(i for ids in ends.values() for i in ids)
    once = Counter()
    for i, s in starts.items():
        if s["pid"] in failed_pids:
            continue
        limit = (0, 1) if s["name"] == "release" else (1,)
        if received[i] not in limit:
            problems.append("flow %d (%s) received %d times" % (
                i, s["name"], received[i]))
        elif s["name"] != "release":
            once[s["name"]] += 1
    checked = Counter()
    senders = ("notify", "put", "word")
    for at, e in slices.items():
        name = e["name"]
        is_ready_await = name.startswith("await ") and name != "await word" \
            and ", chunk " in e.get("args", {}).get("event", "")
        if not (is_ready_await or name in ("take", "await word", "read",
                                           "use")):
            continue
        if name == "read" and e.get("args", {}).get("elements") == "0":
            continue
        sources = [starts[i] for i in ends.get(at, []) if i in starts]
        ok = [s for s in sources
              if slices.get((s["pid"], s["tid"], s["ts"]), {})
              .get("name", "").split(" ")[0] in senders]
        if not ok:
            problems.append("%s at %r receives no flow from a notify, put "
                            "or word" % (name, at))
        checked["await" if is_ready_await else name] += 1
    if problems:
        print("FAIL: " + problems[0])
        print("(%d problems)" % len(problems))
        return 1
    print("ok: %d processes, %d tracks, %d steps, %d flows; after their "
          "sender: %s" % (len(procs), len(threads),
                          sum(len(v) for v in steps.values()), len(starts),
                          ", ".join("%s %d" % kv
                                    for kv in sorted(checked.items()))))
    print("received once: %s" % (", ".join("%s %d" % kv
                                             for kv in sorted(once.items()))
                                   or "none"))
    shown = Counter((m["name"], m["args"]["detail"]) for m in marks)
    for (name, detail), ranks in shown.items():
        print("mark %s (%d ranks): %s" % (name, ranks, detail))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
