#!/usr/bin/env python3
"""PyTorch symmetric memory's AllReduce, timed as collc_bandwidth times collc.

    symm_mem.py --ranks N --sizes 8,1024,... --json FILE
                [--machine M] [--date D] [--variants one_shot,two_shot]

The baseline of collc-bench --run (bench/collc-bench): one process per GPU
(torch.multiprocessing, rank r on GPU r; PyTorch's symmetric memory needs a
GPU per rank), bf16, NVLink multicast off (TORCH_SYMM_MEM_DISABLE_MULTICAST=1
is required in the environment: this script refuses to run without it).

Variants (PyTorch's ops on a symmetric buffer, symm_mem.empty + rendezvous):
  one_shot  torch.ops.symm_mem.one_shot_all_reduce_out(buf, "sum", group,
            out): every rank reads every peer's input and reduces; out of
            place (`out` an ordinary tensor);
  two_shot  torch.ops.symm_mem.two_shot_all_reduce_(buf, "sum", group):
            reduce-scatter then all-gather through the peers' buffers; in
            place.

Method, per (variant, size), as bench/bandwidth/bandwidth.cpp's: one eager
call on fresh inputs (small integers in [-4, 3], so every sum is exact in
bf16 in any order), outputs poisoned (one_shot's `out`; two_shot writes its
input buffer), every element compared with the host's sum of every rank's
input (each rank regenerates them all from the seeds); then K calls captured
in a CUDA graph (K = clamp(64 MiB / S, 1, 64), raised to fill 2 ms where a
replay is shorter, at most 1024), 2 warm-up and 5 timed replays between CUDA
events; per-call time = the slowest rank's elapsed / (5 K). S = the rank's
input bytes (AllReduce: in = out). A failing size is reported (FAIL) and not
timed; the exit status is then 1.

Output: progress lines on stdout ("symm ...", "FAIL ...", last "N passed, M
failed"), one JSON record per measurement in FILE (the records of
collc_bandwidth: collective, dtype, bytes, nranks, gpus, implementation
"torch_symm_mem", variant, placement, us, algbw_gbs, machine, date, ...).
"""
import argparse
import json
import os
import socket
import sys

KWARM, KTIMED, KMAXCALLS, KMAXADAPTIVE = 2, 5, 64, 1024
MIN_REPLAY_US = 2000.0
CALLS_BYTES = 64 << 20


def inputs(torch, rank, size_case, elems):
    """Rank `rank`'s input for size case `size_case`: small integers."""
    g = torch.Generator().manual_seed(1000003 * (size_case + 1) + rank)
    return (torch.randint(0, 8, (elems,), generator=g) - 4).to(torch.bfloat16)


def worker(rank, args, port):
    import torch
    import torch.distributed as dist
    import torch.distributed._symmetric_memory as symm_mem

    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=args.ranks, device_id=dev)
    group = dist.group.WORLD.group_name
    most = max(args.sizes)
    buf = symm_mem.empty(most // 2 + 8, dtype=torch.bfloat16, device=dev)
    symm_mem.rendezvous(buf, group=dist.group.WORLD)
    out = torch.empty(most // 2 + 8 + 128, dtype=torch.bfloat16, device=dev)
    stream = torch.cuda.Stream(device=dev)
    records, passed, failed = [], 0, 0

    def slowest(value):
        t = torch.tensor([value], dtype=torch.float64, device=dev)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return float(t.item())

    for case, size in enumerate(args.sizes):
        elems = max(1, size // 2)
        nbytes = 2 * elems
        want = None
        for variant in args.variants:
            x = buf[:elems]
            if variant == "one_shot":
                y = out[:elems]
                call = lambda: torch.ops.symm_mem.one_shot_all_reduce_out(
                    x, "sum", group, y)
                result, placement = y, "out_of_place"
            else:
                call = lambda: torch.ops.symm_mem.two_shot_all_reduce_(
                    x, "sum", group)
                result, placement = x, "in_place"
            what = f"[torch_symm_mem {variant}] all_reduce n{args.ranks} " \
                   f"{nbytes} bytes"
            # Check: fresh inputs, poisoned output and guard, one call.
            if want is None:
                want = sum(inputs(torch, r, case, elems).double()
                           for r in range(args.ranks))
            error = None
            try:
                x.copy_(inputs(torch, rank, case, elems).to(dev))
                out.fill_(float("nan"))
                torch.cuda.synchronize()
                dist.barrier()
                call()
                torch.cuda.synchronize()
                got = result.double().cpu()
                bad = (got != want).nonzero()
                if bad.numel():
                    i = int(bad[0])
                    error = (f"rank {rank} element {i} of {elems}: got "
                             f"{float(got[i])}, want {float(want[i])}")
                elif variant == "one_shot" and not torch.isnan(
                        out[elems:elems + 128].float()).all():
                    error = f"rank {rank}: the guard after the output changed"
            except Exception as e:  # a refused size is a failure, reported
                error = f"rank {rank}: {type(e).__name__}: {e}"
            errors = [None] * args.ranks
            dist.all_gather_object(errors, error)
            errors = [e for e in errors if e]
            if errors:
                print(f"FAIL {what}: {errors[0]}", flush=True)
                failed += 1
                continue
            passed += 1

            def timed(calls):
                torch.cuda.synchronize()
                dist.barrier()
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g, stream=stream):
                    for _ in range(calls):
                        call()
                start = torch.cuda.Event(enable_timing=True)
                stop = torch.cuda.Event(enable_timing=True)
                torch.cuda.synchronize()
                dist.barrier()
                with torch.cuda.stream(stream):
                    for _ in range(KWARM):
                        g.replay()
                    torch.cuda.synchronize()
                    dist.barrier()
                    start.record(stream)
                    for _ in range(KTIMED):
                        g.replay()
                    stop.record(stream)
                torch.cuda.synchronize()
                us = start.elapsed_time(stop) * 1000.0 / (KTIMED * calls)
                del g
                return slowest(us)

            calls = max(1, min(KMAXCALLS, CALLS_BYTES // nbytes))
            us = timed(calls)
            if us * calls < MIN_REPLAY_US and calls < KMAXADAPTIVE:
                calls = min(KMAXADAPTIVE, max(calls + 1,
                                              int(MIN_REPLAY_US / us) + 1))
                us = timed(calls)
            algbw = nbytes / us / 1e3
            if rank == 0:
                print(f"symm {what}: {us:.2f} us, algbw {algbw:.2f} GB/s "
                      f"({calls} calls per graph)", flush=True)
                records.append({
                    "collective": "all_reduce", "dtype": "bf16",
                    "bytes": nbytes, "requested_bytes": size,
                    "key_bytes": nbytes, "nranks": args.ranks,
                    "gpus": args.ranks, "implementation": "torch_symm_mem",
                    "variant": variant, "placement": placement,
                    "buffers": "symmetric", "us": round(us, 4),
                    "algbw_gbs": round(algbw, 4), "ctas_per_call": -1,
                    "kernels_per_call": -1, "calls_per_graph": calls,
                    "machine": args.machine, "date": args.date,
                    "torch": torch.__version__,
                    "checked": "exact (integers), every element",
                    "method": "one process per GPU (torch.multiprocessing), "
                              f"graph of {calls} calls per rank, {KWARM} "
                              f"warm-up and {KTIMED} timed replays, max over "
                              "ranks; bytes = a rank's input"})
    if rank == 0:
        with open(args.json, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        with open(args.json + ".counts", "w") as f:
            f.write(f"{passed} {failed}\n")
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ranks", type=int, required=True)
    p.add_argument("--sizes", required=True)
    p.add_argument("--json", required=True)
    p.add_argument("--machine", default="unknown")
    p.add_argument("--date", default="unknown")
    p.add_argument("--variants", default="one_shot,two_shot")
    args = p.parse_args()
    args.sizes = [int(s) for s in args.sizes.split(",") if s]
    args.variants = [v for v in args.variants.split(",") if v]
    for v in args.variants:
        if v not in ("one_shot", "two_shot"):
            sys.exit(f"symm_mem.py: unknown variant '{v}' (one_shot, two_shot)")
    if os.environ.get("TORCH_SYMM_MEM_DISABLE_MULTICAST") != "1":
        sys.exit("symm_mem.py: TORCH_SYMM_MEM_DISABLE_MULTICAST=1 must be set "
                 "(no NVLink multicast on these machines)")
    import torch
    import torch.multiprocessing as mp
    if torch.cuda.device_count() < args.ranks:
        print(f"SKIP [torch_symm_mem] all_reduce n{args.ranks}: symmetric "
              f"memory needs a GPU per rank ({torch.cuda.device_count()} "
              "here)", flush=True)
        print("0 passed, 0 failed")
        return 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.start_processes(worker, args=(args, port), nprocs=args.ranks,
                       start_method="spawn")
    with open(args.json + ".counts") as f:
        passed, failed = (int(x) for x in f.read().split())
    os.remove(args.json + ".counts")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
