#!/usr/bin/env python3
"""Device timelines of an exchange replayed from CUDA graphs, as the
benchmark times it: AllToAll (`--collective all_to_all`) or AllToAll_v
(`all_to_all_v`, Purlin's Zipf split of each rank's input), `--ranks` ranks
sharing GPU 0 in one process, one stream each, `--calls` calls captured in
one graph per rank and the graphs replayed `--replays` times, every result
checked bitwise against the exchange computed on the host (the last replay's
output, poisoned before it). The module must be compiled with
`collc --device-trace`; the runtime writes the trace when the communicators
are destroyed (COLLC_TRACE, set by the caller: docs/runtime.md, "Device
timelines"). bench/trace/call_gaps.py summarizes it.

  COLLC_TRACE=out.json exchange_trace.py --module traced.collcmod \\
      --collective all_to_all_v --bytes 1024 [--ranks 2] [--calls 20]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))

import torch  # noqa: E402

import collc  # noqa: E402


def zipf_counts(total, n, s=1.0):
    """Purlin's equation 4 (bench/bandwidth/partitions.h): `total`
    elements split over n partitions by weights 1 / (k + 1)^s, the rest to
    the first."""
    w = [1.0 / (k + 1) ** s for k in range(n)]
    c = [int(total * x / sum(w)) for x in w]
    c[0] += total - sum(c)
    return c


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--module", required=True)
    p.add_argument("--collective", choices=["all_to_all", "all_to_all_v"],
                   required=True)
    p.add_argument("--bytes", type=int, required=True,
                   help="each rank's input (bytes: a copy of fp8 elements, moved as bytes)")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--replays", type=int, default=3)
    args = p.parse_args()
    if not os.environ.get("COLLC_TRACE"):
        sys.exit("exchange_trace.py: set COLLC_TRACE=FILE")
    n = args.ranks
    if args.collective == "all_to_all":
        per = args.bytes // n
        counts = [[per] * n for _ in range(n)]
    else:  # rank r sends counts[r][q] to q, each row its own Zipf rotation
        counts = [zipf_counts(args.bytes, n)[r:] + zipf_counts(args.bytes,
                                                               n)[:r]
                  for r in range(n)]
    module = collc.Module(args.module)
    comms = collc.Comm.init_all(module, [0] * n)
    streams = [torch.cuda.Stream(device=0) for _ in range(n)]
    g = torch.Generator().manual_seed(7)
    xs = [torch.randint(0, 256, (sum(counts[r]),), generator=g,
                        dtype=torch.uint8) for r in range(n)]
    # Rank q receives counts[r][q] bytes from each r, in rank order.
    want = []
    for q in range(n):
        parts = []
        for r in range(n):
            lo = sum(counts[r][:q])
            parts.append(xs[r][lo:lo + counts[r][q]])
        want.append(torch.cat(parts))
    ins = [x.cuda() for x in xs]
    outs = [torch.empty_like(w, device="cuda") for w in want]

    def call(r):
        c, s = comms[r], streams[r]
        if args.collective == "all_to_all":
            c.all_to_all(ins[r].data_ptr(), outs[r].data_ptr(),
                         counts[r][0], "float8_e4m3", stream=s.cuda_stream)
        else:
            c.all_to_all_v(ins[r].data_ptr(), counts[r], outs[r].data_ptr(),
                           [counts[q][r] for q in range(n)], "float8_e4m3",
                           stream=s.cuda_stream)

    torch.cuda.synchronize()
    for r in range(n):  # eager warm-up: loads the kernels
        call(r)
    torch.cuda.synchronize()
    graphs = []
    for r in range(n):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=streams[r]):
            for _ in range(args.calls):
                call(r)
        graphs.append(graph)
    torch.cuda.synchronize()
    for _ in range(args.replays):
        for o in outs:
            o.fill_(0xA5)  # poison: an unwritten byte fails the check
        torch.cuda.synchronize()
        for r in range(n):
            with torch.cuda.stream(streams[r]):
                graphs[r].replay()
        torch.cuda.synchronize()
    bad = sum(not torch.equal(o.cpu(), w) for o, w in zip(outs, want))
    for c in comms:
        c.destroy()  # writes COLLC_TRACE
    print("%s %d B, %d ranks, %d calls x %d replays: %s; trace %s" % (
        args.collective, args.bytes, n, args.calls, args.replays,
        "right" if not bad else "%d ranks WRONG" % bad,
        os.environ["COLLC_TRACE"]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
