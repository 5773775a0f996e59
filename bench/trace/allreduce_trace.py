#!/usr/bin/env python3
"""Device timelines of AllReduce (issue 15): one process, `--ranks` ranks
sharing GPU 0 (or one per GPU with --gpus), a module compiled with
`collc --device-trace`; `--calls` calls of one size after `--warmup`
untraced-by-choice calls (all are recorded: the trace holds every call, the
last `--calls` are the steady state), every result checked against the sum
computed on the host. The runtime writes the trace when the communicators
are destroyed (COLLC_TRACE, set by the caller: docs/runtime.md, "Device
timelines").

  COLLC_TRACE=out.json allreduce_trace.py --module traced.collcmod \\
      --bytes 1024 [--ranks 2] [--calls 3]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "python"))

import torch  # noqa: E402

import collc  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--module", required=True)
    p.add_argument("--bytes", type=int, required=True,
                   help="each rank's input (bf16)")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--gpus", type=int, default=1)
    p.add_argument("--calls", type=int, default=3)
    args = p.parse_args()
    if not os.environ.get("COLLC_TRACE"):
        sys.exit("allreduce_trace.py: set COLLC_TRACE=FILE")
    n, count = args.ranks, args.bytes // 2
    devices = [r % args.gpus for r in range(n)]
    module = collc.Module(args.module)
    comms = collc.Comm.init_all(module, devices)
    streams = [torch.cuda.Stream(device=d) for d in devices]
    g = torch.Generator().manual_seed(5)
    xs = [torch.randint(-8, 9, (count,), generator=g).to(torch.bfloat16)
          for _ in range(n)]
    want = sum(x.double() for x in xs).to(torch.bfloat16)
    ins = [x.to("cuda:%d" % d) for x, d in zip(xs, devices)]
    outs = [torch.full_like(x, float("nan")) for x in ins]
    torch.cuda.synchronize()
    for _ in range(args.calls):
        for c, x, y, s in zip(comms, ins, outs, streams):
            c.all_reduce(x.data_ptr(), y.data_ptr(), count, "bfloat16",
                         stream=s.cuda_stream)
    torch.cuda.synchronize()
    bad = sum(not torch.equal(y.cpu(), want) for y in outs)
    for c in comms:
        c.destroy()  # writes COLLC_TRACE
    print("AllReduce %d B, %d ranks, %d calls: %s; trace %s" % (
        args.bytes, n, args.calls, "right" if not bad else
        "%d ranks WRONG" % bad, os.environ["COLLC_TRACE"]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
