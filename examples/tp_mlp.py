#!/usr/bin/env python3
"""A tensor-parallel MLP block on collc's all-reduce (issue 13's example).

Each rank holds a column shard of the first linear layer and the matching
row shard of the second (Megatron's column- then row-parallel MLP), so a
layer is y = x + all_reduce(gelu(x @ W1_r) @ W2_r). The forward runs in
eager mode, captured in a CUDA graph, and under torch.compile, and each
result is compared with the same block on torch.distributed's NCCL
all-reduce; then the per-layer all-reduce is timed for both (a CUDA graph
of 20 calls replayed, CUDA events, the slowest rank).

  # one process per GPU (compares with NCCL):
  torchrun --nproc-per-node 2 examples/tp_mlp.py --module M
  # one process, ranks sharing the GPU(s) (NCCL needs a GPU per rank, so
  # the reference is the partial sums added in rank order on the host
  # side of the same GPU, as NCCL adds two ranks' partials):
  python3 examples/tp_mlp.py --module M --ranks 2

bf16 sums of two ranks must match NCCL to the bit (one rounding of the
same float sum) in eager mode and CUDA graphs; with more ranks the order of
additions differs, and under torch.compile the matmuls and GELU may be
another library's, so there the block must match within 2 bf16 ulps (2 x
2**-7 of the largest value). One process driving every rank compiles with
the aot_eager backend (see one_process), one process per GPU with
Inductor.

NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
must be set on machines where NVLink multicast is not allowed; with ranks
in one process, CUDA_MODULE_LOADING=EAGER (collc.torch's docstring).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import collc  # noqa: E402
import collc.torch as ct  # noqa: E402


class Block:
    """Rank `rank`'s shards of `layers` MLP layers (hidden -> 4 hidden ->
    hidden), the same on every run (seeded)."""

    def __init__(self, rank, nranks, hidden, layers, device):
        g = torch.Generator().manual_seed(1234)
        ffn = 4 * hidden
        self.w1, self.w2 = [], []
        for _ in range(layers):
            w1 = torch.randn(hidden, ffn, generator=g) / hidden ** 0.5
            w2 = torch.randn(ffn, hidden, generator=g) / ffn ** 0.5
            cols = slice(rank * ffn // nranks, (rank + 1) * ffn // nranks)
            self.w1.append(w1[:, cols].to(device, torch.bfloat16))
            self.w2.append(w2[cols, :].to(device, torch.bfloat16))

    def partial(self, x, layer):
        return F.gelu(x @ self.w1[layer]) @ self.w2[layer]

    def forward(self, x, all_reduce):
        for layer in range(len(self.w1)):
            x = x + all_reduce(self.partial(x, layer))
        return x


def tokens_input(tokens, hidden, device):
    g = torch.Generator().manual_seed(99)
    return torch.randn(tokens, hidden, generator=g).to(device, torch.bfloat16)


def compare(name, got, want, nranks, exact=True):
    if nranks == 2 and exact:
        same = torch.equal(got, want)
        print("%-26s %s" % (name, "bitwise equal to the reference" if same
                            else "DIFFERS from the reference"))
        return same
    tol = 2 * 2 ** -7 * want.float().abs().max().item()
    err = (got.float() - want.float()).abs().max().item()
    print("%-26s max |difference| %.3g (tolerance %.3g)" % (name, err, tol))
    return err <= tol


def time_graph(streams, calls, reps=5):
    """Per-call microseconds of calls[r]() captured 20 times in a graph on
    streams[r], replayed `reps` times; the slowest rank."""
    graphs = []
    for s, call in zip(streams, calls):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            for _ in range(20):
                call()
        graphs.append(g)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in streams]
    ends = [torch.cuda.Event(enable_timing=True) for _ in streams]
    for s, g, a, b in zip(streams, graphs, starts, ends):
        with torch.cuda.stream(s):
            g.replay()  # warm-up
            a.record()
            for _ in range(reps):
                g.replay()
            b.record()
    torch.cuda.synchronize()
    return max(a.elapsed_time(b) for a, b in zip(starts, ends)) * 1e3 / (
        20 * reps)


def one_process(args):
    """Ranks sharing this process's GPU(s): collc.torch.init_all."""
    n, gpus = args.ranks, torch.cuda.device_count()
    devices = [q % gpus for q in range(n)]
    # Ranks of one process run one after another on the host: a rank's
    # kernel waits while the next rank's torch.compile compiles, so the
    # bound on every wait is raised above compile times.
    comms = ct.init_all(args.module, devices,
                        collc.Config(timeout_ms=args.timeout_ms), strict=True)
    streams = [torch.cuda.Stream(device=d) for d in devices]
    blocks = [Block(r, n, args.hidden, args.layers, devices[r])
              for r in range(n)]
    xs = [tokens_input(args.tokens, args.hidden, d) for d in devices]

    def each(fn):
        torch.cuda.synchronize()
        out = []
        for r in range(n):
            with torch.cuda.stream(streams[r]):
                out.append(fn(r))
        torch.cuda.synchronize()
        return out

    # Reference: every rank's partials (the same matmuls), added in rank
    # order in float32 and rounded once per layer, as NCCL adds 2 ranks.
    want = [x.clone() for x in xs]
    for layer in range(args.layers):
        parts = [blocks[r].partial(want[r], layer) for r in range(n)]
        total = parts[0].float()
        for p in parts[1:]:
            total = total + p.float().to(total.device)
        want = [w + total.to(torch.bfloat16).to(w.device) for w in want]

    ok = True
    got = each(lambda r: blocks[r].forward(
        xs[r], lambda t: ct.all_reduce(t, comms[r])))
    ok &= all(compare("eager, rank %d" % r, got[r], want[r], n)
              for r in range(n))

    graphs, outs = [], []
    each(lambda r: None)
    for r in range(n):
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=streams[r]):
            outs.append(blocks[r].forward(
                xs[r], lambda t, c=comms[r]: ct.all_reduce(t, c)))
        graphs.append(g)
    for o in outs:
        o.fill_(float("nan"))
    each(lambda r: graphs[r].replay())
    ok &= all(compare("CUDA graph, rank %d" % r, outs[r], want[r], n)
              for r in range(n))

    # aot_eager: one thread drives every rank here, and Inductor's kernels
    # load a CUDA module on first launch, which waits for the device, where
    # the previous rank's all-reduce waits for this rank: a deadlock until
    # the timeout. One process per GPU (torchrun) compiles with Inductor.
    fns = [torch.compile(lambda x, b=blocks[r], c=comms[r]: b.forward(
        x, lambda t: ct.all_reduce(t, c)), backend="aot_eager")
        for r in range(n)]
    breaks = []
    for r in range(n):
        with torch.cuda.stream(streams[r]):
            breaks.append(torch._dynamo.explain(
                lambda x, b=blocks[r], c=comms[r]: b.forward(
                    x, lambda t: ct.all_reduce(t, c)))(xs[r])
                .graph_break_count)
    torch.cuda.synchronize()
    print("torch.compile graph breaks per rank: %s" % breaks)
    ok &= not any(breaks)
    got = each(lambda r: fns[r](xs[r]))
    ok &= all(compare("torch.compile aot_eager, %d" % r, got[r], want[r], n,
                      exact=False) for r in range(n))

    parts = [torch.empty(args.tokens, args.hidden, dtype=torch.bfloat16,
                         device=d) for d in devices]
    us = time_graph(streams, [lambda r=r: ct.all_reduce_(parts[r], comms[r])
                              for r in range(n)])
    print("per-layer all-reduce (%d x %d bf16, %d bytes), %d ranks sharing "
          "%d GPU(s): collc %.2f us; NCCL: not measurable here (a GPU per "
          "rank)" % (args.tokens, args.hidden, parts[0].numel() * 2, n,
                     gpus, us))
    for c in comms:
        c.destroy()
    return ok


def per_gpu(args):
    """One process per GPU (torchrun): collc and NCCL on the same group."""
    rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    dist.init_process_group("nccl")
    comm = ct.init(args.module, strict=True)
    block = Block(rank, n, args.hidden, args.layers, "cuda")
    x = tokens_input(args.tokens, args.hidden, "cuda")

    def nccl(t):
        dist.all_reduce(t)
        return t

    want = block.forward(x, nccl)
    ok = compare("eager", block.forward(
        x, lambda t: ct.all_reduce(t, comm)), want, n)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = block.forward(x, lambda t: ct.all_reduce(t, comm))
    out.fill_(float("nan"))
    g.replay()
    ok &= compare("CUDA graph", out, want, n)
    fn = lambda x: block.forward(x, lambda t: ct.all_reduce(t, comm))
    breaks = torch._dynamo.explain(fn)(x).graph_break_count
    ok &= breaks == 0
    ok &= compare("torch.compile (%d breaks)" % breaks, torch.compile(fn)(x),
                  want, n, exact=False)
    part = torch.empty(args.tokens, args.hidden, dtype=torch.bfloat16,
                       device="cuda")
    s = torch.cuda.Stream()
    us_collc = time_graph([s], [lambda: ct.all_reduce_(part, comm)])
    us_nccl = time_graph([s], [lambda: dist.all_reduce(part)])
    # The slowest rank.
    t = torch.tensor([us_collc, us_nccl], device="cuda")
    dist.all_reduce(t, dist.ReduceOp.MAX)
    if rank == 0:
        print("per-layer all-reduce (%d x %d bf16), %d GPUs: collc %.2f us, "
              "NCCL %.2f us" % (args.tokens, args.hidden, n, *t.tolist()))
    comm.destroy()
    dist.destroy_process_group()
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--module", default="out/modules/collectives.collcmod")
    p.add_argument("--ranks", type=int, default=2,
                   help="ranks in this process (without torchrun)")
    p.add_argument("--tokens", type=int, default=128)
    p.add_argument("--hidden", type=int, default=4096)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--timeout-ms", type=int, default=120000,
                   help="bound of every wait (one process: above compile "
                   "times)")
    args = p.parse_args()
    ok = per_gpu(args) if "RANK" in os.environ else one_process(args)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
