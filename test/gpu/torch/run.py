#!/usr/bin/env python3
"""collc.torch on the GPU machine (issue 13): every op checked bitwise
against the collective's definition (python/tests/torch_cases.py: small
integers, host reference in float64, poisoned outputs) for every dtype of
the module, odd sizes included, in eager mode, under CUDA graph capture and
replay, and under torch.compile (no graph breaks: torch._dynamo.explain);
registered tensors; and, with one process per rank bootstrapped from
torch.distributed, the fallback taken and correct for each case collc
cannot serve.

  run.py --module out/modules/collectives.collcmod,out/modules/variable.collcmod
         [--ranks 2,8]
         [--procs 2] [--gpus G] [--out DIR]

--ranks: ranks in this process (collc.torch.init_all, rank q on GPU
q % G; sharing one GPU when G is 1): eager, registered, graphs, compile.
--procs: one process per rank (torch.multiprocessing), bootstrapped from a
torch.distributed group: NCCL where every rank has its own GPU, else gloo
(NCCL refuses two ranks on one GPU; processes sharing a GPU time-slice, so
this part checks results and the fallback, not speed). Prints a line per
part and writes summary.json under --out. Exit status 1 on any failure.
"""
import argparse
import json
import os
import sys
import time
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..",
                                    ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
os.environ.setdefault("COLLC_LIBRARY",
                      os.path.join(ROOT, "build-gpu", "runtime",
                                   "libcollc.so"))
for k, v in (("NCCL_NVLS_ENABLE", "0"),
             ("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"),
             ("NVSHMEM_DISABLE_NVLS", "1")):
    if os.environ.get(k) != v:
        sys.exit("run.py: %s=%s must be set (never NVLink multicast here)" %
                 (k, v))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

import collc  # noqa: E402
import collc.torch as ct  # noqa: E402
from torch_cases import Case, cases  # noqa: E402

REDUCE = [torch.bfloat16, torch.float16, torch.float32]
COPY = [torch.float8_e4m3fn, torch.float8_e5m2]
SHAPES = ((1, 1), (3, 7), (64, 40), (1000, 129))
LARGE = (4096, 1024)  # 2 ranks only: 16 MiB of bf16, the chunked programs


def log(*a):
    print(*a, flush=True)


# ---------------------------------------------------------------------------
# Ranks in this process
# ---------------------------------------------------------------------------

class Ranks:
    def __init__(self, module, n, gpus, timeout_ms):
        devices = [q % gpus for q in range(n)]
        self.comms = ct.init_all(module, devices,
                                 collc.Config(timeout_ms=timeout_ms),
                                 strict=True)
        self.streams = [torch.cuda.Stream(device=d) for d in devices]
        self.devices = devices
        self.n = n

    def each(self, fn):
        """fn(rank) for every rank, each on its own stream; then waits."""
        torch.cuda.synchronize()
        out = []
        for r in range(self.n):
            with torch.cuda.device(self.devices[r]), \
                    torch.cuda.stream(self.streams[r]):
                out.append(fn(r))
        for d in set(self.devices):
            torch.cuda.synchronize(d)
        return out

    def inputs(self, case):
        return [case.input(r).to("cuda:%d" % self.devices[r])
                for r in range(self.n)]


class Failures(list):
    """Failures, the first few of each part printed as they happen."""
    shown = 0

    def append(self, what):
        super().append(what)
        if self.shown < 8:
            log("FAIL", what[:2000])
            self.shown += 1


def check_all(case, results, failures):
    for r, res in enumerate(results):
        error = case.check(r, res)
        if error:
            failures.append(error)


def eager(ranks, failures):
    """Every case; those the modules cannot serve must be refused (strict
    communicators without a group: FallbackRefused naming the reason)."""
    n, done, refused = ranks.n, 0, 0
    before = sum(c.collc_calls for c in ranks.comms)
    for case in cases(n, REDUCE, COPY, shapes=SHAPES + ((LARGE,) if n == 2
                                                     else ())):
        why = ranks.comms[0].dispatch.reason(case.collective,
                                             ct.collc_dtype(case.dtype))
        xs = ranks.inputs(case)
        try:
            results = ranks.each(lambda r: case.run(xs[r], ranks.comms[r]))
            if why:
                failures.append("%r: ran, but the modules cannot serve it "
                                "(%s)" % (case, why))
            check_all(case, results, failures)
            done += 1
        except ct.FallbackRefused as e:
            if not why or why not in str(e):
                failures.append("%r: refused: %s" % (case, e))
            refused += 1
        except Exception as e:
            failures.append("%r: %r" % (case, e))
    calls = sum(c.collc_calls for c in ranks.comms) - before
    if calls != done * n:
        failures.append("eager: %d collc calls for %d cases x %d ranks" %
                        (calls, done, n))
    return "%d run, %d refused as the modules lack them" % (done, refused)


def registered(ranks, failures):
    """The same ops on registered tensors (the zero-copy path where the
    module has it): inputs copied into registered buffers, and the `out=`
    forms' outputs registered too (poisoned first)."""
    n, done = ranks.n, 0
    for rows, cols in ((3, 7), (64, 40), (4096, 1024)):
        for kind in ("all_reduce", "all_gather_into_tensor",
                     "reduce_scatter_tensor", "all_to_all_single",
                     "broadcast"):
            full = kind in ("all_reduce", "reduce_scatter_tensor",
                            "all_to_all_single")
            case = Case(kind, torch.bfloat16, n, rows * n if full else rows,
                        cols, seed=900 + done, inplace=kind in (
                            "all_reduce", "broadcast"),
                        out=kind not in ("all_reduce", "broadcast"))
            xs = ranks.inputs(case)
            bufs = [ranks.comms[r].register(xs[r].clone())
                    for r in range(n)]
            outs = [None] * n
            if case.out:
                outs = [ranks.comms[r].register(torch.full(
                    case.expected(r).shape, float("nan"), dtype=case.dtype,
                    device=xs[r].device)) for r in range(n)]
            results = ranks.each(lambda r: case.run(bufs[r], ranks.comms[r],
                                                    out=outs[r]))
            check_all(case, results, failures)
            for r in range(n):
                ranks.comms[r].deregister(bufs[r])
                if outs[r] is not None:
                    ranks.comms[r].deregister(outs[r])
            done += 1
    return done


def graphs(ranks, failures):
    """Each rank's op captured in a CUDA graph on its stream, replayed
    twice on fresh inputs copied into the captured input."""
    n, done = ranks.n, 0
    kinds = ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor",
             "all_to_all_single", "broadcast", "all_gather_v",
             "reduce_scatter_v", "all_to_all_v")
    for rows, cols in ((3, 7), (1000, 129)):
        proto = {c.kind: c for c in cases(n, [torch.bfloat16],
                                          shapes=((rows, cols),), seed=77)
                 if not c.inplace}
        for kind in kinds:
            first = proto[kind]
            xs = ranks.inputs(first)
            graph = [torch.cuda.CUDAGraph() for _ in range(n)]
            outs = [None] * n
            # Warm-up call outside capture (lazy state), as torch advises.
            ranks.each(lambda r: first.run(xs[r], ranks.comms[r]))
            for r in range(n):
                with torch.cuda.device(ranks.devices[r]):
                    with torch.cuda.graph(graph[r], stream=ranks.streams[r]):
                        outs[r] = first.run(xs[r], ranks.comms[r])
            for replay in range(2):
                case = Case(first.kind, first.dtype, n, first.rows,
                            first.cols, op=first.op, root=first.root,
                            counts=first.counts,
                            seed=5000 + 10 * done + replay)
                fresh = [case.input(r) for r in range(n)]
                for r in range(n):
                    xs[r].copy_(fresh[r])
                    outs[r].fill_(float("nan"))
                ranks.each(lambda r: graph[r].replay())
                check_all(case, outs, failures)
            done += 1
    return done


def compile_cases(n):
    """One case per op (bf16, 64 x 40 rows per partition), by name."""
    return {c.kind + ("_" if c.inplace else ""): c
            for c in cases(n, [torch.bfloat16], shapes=((64, 40),), seed=91)
            if not c.out}


def compile_body(cs, comm, xs):
    """Every op once, between elementwise ops the compiler fuses: the ops
    are linear, so op(2x) / 2 is the case's expected result, exactly."""
    res = {}
    for key, c in cs.items():
        res[key] = c.run(xs[key] * 2, comm) / 2
    return res


def graph_breaks(fn, *args):
    return torch._dynamo.explain(fn)(*args).graph_break_count


def compiled(ranks, failures, backend="aot_eager"):
    """compile_body under torch.compile per rank: no graph breaks
    (explain), and every result right. Backend aot_eager here: Dynamo,
    fake tensors, AOTAutograd and functionalization as with Inductor, but
    Inductor's generated kernels load a CUDA module on their first launch,
    which waits for the device, where one thread driving every rank has left
    the previous rank's collective waiting for the next rank (the processes
    part, one rank per process, runs Inductor)."""
    n = ranks.n
    cs = compile_cases(n)
    fns = [torch.compile(lambda xs, comm=ranks.comms[r]: compile_body(
        cs, comm, xs), backend=backend) for r in range(n)]
    inputs = [{k: c.input(r).cuda(ranks.devices[r]) for k, c in cs.items()}
              for r in range(n)]
    breaks = []
    for r in range(n):
        with torch.cuda.device(ranks.devices[r]), \
                torch.cuda.stream(ranks.streams[r]):
            breaks.append(graph_breaks(
                lambda xs, comm=ranks.comms[r]: compile_body(cs, comm, xs),
                inputs[r]))
    torch.cuda.synchronize()
    if any(breaks):
        failures.append("torch.compile: graph breaks per rank %s" % breaks)
    results = ranks.each(lambda r: fns[r](inputs[r]))
    for key, c in cs.items():
        check_all(c, [results[r][key] for r in range(n)], failures)
    return "%d ops (%s)" % (len(cs), backend), breaks


def in_process(args, failures):
    report = {}
    for n in args.ranks:
        t0 = time.time()
        ranks = Ranks(args.module, n, args.gpus, args.timeout_ms)
        part = {}
        for name, fn in (("eager", eager), ("registered", registered),
                         ("graphs", graphs)):
            if name not in args.parts:
                continue
            before, t1 = len(failures), time.time()
            try:
                part[name] = fn(ranks, failures)
            except Exception:
                failures.append("%s at %d ranks: %s" % (
                    name, n, traceback.format_exc()))
            failures.shown = 0
            log("in-process %d ranks, %s: %s cases, %d failures, %.0f s" % (
                n, name, part.get(name), len(failures) - before,
                time.time() - t1))
        if n == min(args.ranks) and "compile" in args.parts:
            before = len(failures)
            try:
                part["compile"], part["graph_breaks"] = compiled(
                    ranks, failures, args.compile_backend)
            except Exception:
                failures.append("compile at %d ranks: %s" % (
                    n, traceback.format_exc()))
            log("in-process %d ranks, torch.compile: %s ops, graph breaks "
                "%s, %d failures" % (n, part.get("compile"),
                                     part.get("graph_breaks"),
                                     len(failures) - before))
        for c in ranks.comms:
            c.destroy()
        part["seconds"] = round(time.time() - t0, 1)
        report["in_process_%d" % n] = part
    return report


# ---------------------------------------------------------------------------
# One process per rank, from torch.distributed
# ---------------------------------------------------------------------------

def fallback_cases(n):
    """What collc cannot serve, and the reason expected in the count."""
    out = []
    for c in cases(n, [torch.int32], shapes=((3, 7),), seed=300):
        out.append((c, "collc has no element type int32", None))
    for op in ("max", "min", "avg", "product"):
        for c in cases(n, [torch.float32], shapes=((3, 7),), ops=(op,),
                       seed=400):
            if c.kind in ("all_reduce", "reduce_scatter_tensor"):
                out.append((c, "not " + op if op != "product" else
                            "no reduction operator product", None))
    for c in cases(n, [torch.bfloat16], shapes=((64, 40),), seed=500):
        if c.kind in ("all_reduce", "all_to_all_single") and not c.out:
            out.append((c, "not contiguous", "transpose"))
            out.append((c, "in cpu memory", "cpu"))
    return out


def nccl_result(case, x, rank):
    """The case's op on torch.distributed's own collective (NCCL), or None
    where torch.distributed has no direct equivalent (all_gather_v,
    reduce_scatter_v)."""
    k, n = case.kind, case.nranks
    if k == "all_reduce":
        y = x.clone()
        dist.all_reduce(y)
        return y
    if k == "broadcast":
        y = x.clone()
        dist.broadcast(y, case.root)
        return y
    if k == "all_gather_into_tensor":
        y = x.new_empty((n * x.shape[0],) + tuple(x.shape[1:]))
        dist.all_gather_into_tensor(y, x)
        return y
    if k == "reduce_scatter_tensor":
        y = x.new_empty((x.shape[0] // n,) + tuple(x.shape[1:]))
        dist.reduce_scatter_tensor(y, x)
        return y
    if k == "all_to_all_single":
        y = torch.empty_like(x)
        dist.all_to_all_single(y, x)
        return y
    if k == "all_to_all_v":
        send = case.counts[rank]
        recv = [case.counts[p][rank] for p in range(n)]
        y = x.new_empty((sum(recv),) + tuple(x.shape[1:]))
        dist.all_to_all_single(y, x, recv, send)
        return y
    return None


def _proc_main(rank, args, queue):
    failures, report = [], {}
    try:
        gpu = rank % args.gpus
        torch.cuda.set_device(gpu)
        backend = "nccl" if args.procs <= args.gpus else "gloo"
        dist.init_process_group(backend, init_method="file://" + args.store,
                                rank=rank, world_size=args.procs)
        comm = ct.init(args.module, config=collc.Config(
            timeout_ms=args.timeout_ms))
        n = args.procs
        served = fell = nccl_same = nccl_diff = 0
        # Processes sharing a GPU time-slice: a smaller set than in-process.
        for case in cases(n, [torch.bfloat16, torch.float32], COPY[:1],
                          shapes=SHAPES[1:3], seed=600):
            why = comm.dispatch.reason(case.collective,
                                       ct.collc_dtype(case.dtype))
            before = comm.collc_calls, sum(comm.fallbacks.values())
            x = case.input(rank).cuda()
            try:
                result = case.run(x.clone(), comm)
                error = case.check(rank, result)
                # One process per GPU: NCCL's own result, bitwise equal.
                want = nccl_result(case, x, rank) if backend == "nccl" \
                    else None
                if want is not None and not torch.equal(
                        result.view(torch.uint8), want.view(torch.uint8)):
                    error = (error or "") + " %r rank %d: differs from " \
                        "torch.distributed (NCCL)" % (case, rank)
                    nccl_diff += 1
                nccl_same += want is not None
            except Exception as e:
                error = "%r rank %d: %r" % (case, rank, e)
            if error:
                failures.append(error)
            after = comm.collc_calls, sum(comm.fallbacks.values())
            if after != (before[0] + (not why), before[1] + bool(why)):
                failures.append("%r rank %d: expected %s (%s)" % (
                    case, rank, "a fallback: " + why if why else "collc",
                    dict(comm.fallbacks)))
            served += not why
            fell += bool(why)
        for case, why, how in fallback_cases(n):
            before = sum(comm.fallbacks.values())
            x = case.input(rank).cuda()
            if how == "transpose":  # same values, non-contiguous
                x = x.t().contiguous().t()
            elif how == "cpu":
                x = x.cpu()
            try:
                error = case.check(rank, case.run(x, comm))
            except Exception as e:
                error = "%r (%s) rank %d: %r" % (case, how, rank, e)
            if error:
                failures.append(error)
            if sum(comm.fallbacks.values()) != before + 1 or not any(
                    why in k for k in comm.fallbacks):
                failures.append("%r (%s) rank %d: fallback not counted with "
                                "%r: %s" % (case, how, rank, why,
                                            dict(comm.fallbacks)))
            fell += 1
        log("process rank %d: %d calls on collc, %d fallbacks, %d "
            "failures; compiling with Inductor" % (rank, served, fell,
                                                   len(failures)))
        t0 = time.time()
        # torch.compile with Inductor (each process compiles its own).
        cs = compile_cases(n)
        xs = {k: c.input(rank).cuda() for k, c in cs.items()}
        fn = lambda xs: compile_body(cs, comm, xs)  # noqa: E731
        breaks = graph_breaks(fn, xs)
        if breaks:
            failures.append("rank %d: torch.compile: %d graph breaks" % (
                rank, breaks))
        compiled_fn = torch.compile(fn)
        results = compiled_fn(xs)
        log("process rank %d: compiled function ran (%.0f s with the "
            "compile)" % (rank, time.time() - t0))
        # Twice: the second call runs the compiled code alone, starting
        # from the token the first one stored.
        for run, out in enumerate((results, compiled_fn(xs))):
            for key, c in cs.items():
                error = c.check(rank, out[key])
                if error:
                    failures.append("torch.compile (inductor) call %d: %s" %
                                    (run + 1, error))
        # What an inference server runs: Inductor with its CUDA graphs
        # (mode="reduce-overhead": cudagraph trees record on an early call
        # and replay after), three calls, each checked before the next
        # overwrites the graph's outputs; a skipped graph is a failure.
        from torch._dynamo.utils import counters
        before = counters["inductor"]["cudagraph_skips"]
        graphed = torch.compile(fn, mode="reduce-overhead")
        for run in range(3):
            out = graphed(xs)
            for key, c in cs.items():
                error = c.check(rank, out[key])
                if error:
                    failures.append("torch.compile (reduce-overhead) call "
                                    "%d: %s" % (run + 1, error))
        skipped = counters["inductor"]["cudagraph_skips"] - before
        if skipped:
            failures.append("rank %d: torch.compile (reduce-overhead) "
                            "skipped its CUDA graphs %d times" % (rank,
                                                                  skipped))
        log("process rank %d: reduce-overhead (CUDA graphs): 3 calls, "
            "cudagraph skips %d" % (rank, skipped))
        strict = ct.init(args.module, strict=True)
        try:
            ct.all_reduce(torch.ones(4, dtype=torch.int32, device="cuda"),
                          strict)
            failures.append("rank %d: strict=True did not refuse" % rank)
        except ct.FallbackRefused:
            pass
        strict.destroy()
        report = dict(backend=backend, collc=served, fallback=fell,
                      compared_with_nccl=nccl_same, differing=nccl_diff,
                      compiled_ops=len(cs), graph_breaks=breaks,
                      reasons=sorted(comm.fallbacks))
        comm.destroy()
        dist.destroy_process_group()
    except Exception:
        failures.append("rank %d: %s" % (rank, traceback.format_exc()))
    queue.put((rank, failures, report))


def processes(args, failures):
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    args.store = os.path.join(args.out, "store-%d" % os.getpid())
    procs = [ctx.Process(target=_proc_main, args=(r, args, queue))
             for r in range(args.procs)]
    for p in procs:
        p.start()
    results = []
    for _ in procs:
        try:
            results.append(queue.get(timeout=args.proc_timeout))
        except Exception:
            failures.append("a rank process sent no result in %d s" %
                            args.proc_timeout)
            break
    for p in procs:
        p.join(timeout=10)
        if p.is_alive():
            p.kill()
    for _, fs, _ in results:
        failures.extend(fs)
    report = {"rank%d" % r: rep for r, _, rep in sorted(results)}
    log("%d processes: %s, %d failures" % (
        args.procs, json.dumps(report.get("rank0")), sum(
            len(fs) for _, fs, _ in results)))
    return report


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--module", required=True, type=lambda s: s.split(","),
                   help="modules, comma-separated (a call runs on the "
                   "first that serves it)")
    p.add_argument("--ranks", default="2,8",
                   type=lambda s: [int(x) for x in s.split(",") if x])
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    p.add_argument("--timeout-ms", type=int, default=120000)
    p.add_argument("--proc-timeout", type=int, default=150)
    p.add_argument("--out", default="build-gpu/torch-out")
    p.add_argument("--parts", default="eager,registered,graphs,compile",
                   type=lambda s: s.split(","),
                   help="in-process parts to run")
    p.add_argument("--compile-backend", default="aot_eager",
                   help="torch.compile's backend for the ranks of one "
                   "process (inductor needs CUDA_MODULE_LOADING=EAGER)")
    p.add_argument("--stacks-after", type=int, default=0,
                   help="print every thread's stack after this many "
                   "seconds (0: never; to see where a run waits)")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.stacks_after:
        import faulthandler
        faulthandler.dump_traceback_later(args.stacks_after, repeat=True)
    log("torch %s, %s, %d GPU(s), collc %s" % (
        torch.__version__, torch.cuda.get_device_name(0), args.gpus,
        collc.version()))
    log("under torch.compile the entry points chain %d ops by a token: %s" %
        (len(ct.CHAINED), ", ".join(ct.CHAINED)))
    failures = Failures()
    summary = dict(torch=torch.__version__,
                   gpu=torch.cuda.get_device_name(0), gpus=args.gpus,
                   date=time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()))
    # The processes first: they share the GPU with nothing else then.
    if args.procs:
        t0 = time.time()
        summary["processes"] = processes(args, failures)
        log("processes: %.0f s" % (time.time() - t0))
    summary.update(in_process(args, failures))
    summary["failures"] = failures
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    for f in failures[:40]:
        log("FAIL", f)
    log("%s: %d failures" % ("PASS" if not failures else "FAIL",
                              len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
