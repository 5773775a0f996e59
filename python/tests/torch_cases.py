"""Cases for collc.torch's ops, shared by the CPU tests (test_torch.py: the
fallback on gloo) and the GPU run (test/gpu/torch/run.py): each case makes
every rank's input from its own seed, runs one op on one rank, and computes
that rank's expected output from every rank's input, on the host in float64
(int64 for integer types): the collective's definition, not another
library. Inputs are small integers, so sums are exact in every type and a
result is compared bitwise; outputs given to the `_out` forms are poisoned
first, so an element left unwritten fails."""
import functools

import torch

import collc.torch as ct

# Small integers: exact in bf16, f16, f32 and fp8 (e4m3 up to 16), and
# sums of up to 8 ranks exact in bf16 (up to 256).
LOW, HIGH = -8, 9


def _wide(dtype):
    return torch.int64 if not dtype.is_floating_point else torch.float64


def _poison(t):
    if t.dtype.is_floating_point and t.element_size() > 1:
        return t.fill_(float("nan"))
    return t.fill_(-99)  # fp8 and integers


class Case:
    """One call of one op: `kind` (the op), dtype, rows and cols of each
    rank's input (a V op's rows per rank come from `counts`), and the op's
    arguments."""

    def __init__(self, kind, dtype, nranks, rows, cols, op="sum", root=0,
                 counts=None, seed=0, inplace=False, out=False):
        self.kind, self.dtype, self.nranks = kind, dtype, nranks
        self.rows, self.cols, self.op, self.root = rows, cols, op, root
        self.counts, self.seed = counts, seed
        self.inplace, self.out = inplace, out

    def __repr__(self):
        extra = "".join(" %s=%s" % kv for kv in (
            ("op", self.op), ("root", self.root), ("counts", self.counts))
            if kv[1] not in (None, "sum", 0))
        form = " in-place" if self.inplace else " out=" if self.out else ""
        return "%s%s %s %dx%d ranks=%d%s" % (
            self.kind, form, str(self.dtype).replace("torch.", ""),
            self.rows, self.cols, self.nranks, extra)

    @property
    def collective(self):
        """The typed collective the op runs (collc.Collective's name)."""
        return {"all_gather_into_tensor": "all_gather",
                "reduce_scatter_tensor": "reduce_scatter",
                "all_to_all_single": "all_to_all"}.get(self.kind, self.kind)

    def _shape(self, rank):
        if self.kind == "all_gather_v":
            return (self.counts[rank], self.cols)
        if self.kind in ("reduce_scatter_v",):
            return (sum(self.counts), self.cols)
        if self.kind == "all_to_all_v":
            return (sum(self.counts[rank]), self.cols)
        return (self.rows, self.cols)

    @functools.lru_cache(maxsize=16)  # one case's ranks at a time
    def input(self, rank):
        """Rank `rank`'s input on the host (deterministic)."""
        g = torch.Generator().manual_seed(self.seed * 1009 + rank)
        values = torch.randint(LOW, HIGH, self._shape(rank), generator=g)
        if self.op in ("max", "min"):
            # Distinct per rank so a wrong source shows.
            values = values * 16 + rank if self.dtype != torch.bfloat16 \
                else values + rank
        if self.op == "product":
            values = values.clamp(-2, 2)
        return values.to(self.dtype)

    def run(self, t, comm, out=None):
        """The op on this rank's (device) input; the rank's result. `out`:
        the output tensor of an `out=` case (default: a new poisoned one)."""
        k = self.kind
        given = out
        if k == "all_reduce":
            return (ct.all_reduce_(t, comm, self.op) if self.inplace
                    else ct.all_reduce(t, comm, self.op))
        if k == "broadcast":
            return (ct.broadcast_(t, self.root, comm) if self.inplace
                    else ct.broadcast(t, self.root, comm))
        if k == "all_gather_into_tensor":
            out = given if given is not None else (
                _poison(t.new_empty((self.nranks * t.shape[0],) +
                                    tuple(t.shape[1:]))) if self.out else None)
            return ct.all_gather_into_tensor(t, comm, out=out)
        if k == "reduce_scatter_tensor":
            out = given if given is not None else (
                _poison(t.new_empty((t.shape[0] // self.nranks,) +
                                    tuple(t.shape[1:]))) if self.out else None)
            return ct.reduce_scatter_tensor(t, comm, self.op, out=out)
        if k == "all_to_all_single":
            out = given if given is not None else (
                _poison(torch.empty_like(t)) if self.out else None)
            return ct.all_to_all_single(t, comm, out=out)
        rank = comm.rank
        if k == "all_gather_v":
            return ct.all_gather_v(t, self.counts, comm)
        if k == "reduce_scatter_v":
            return ct.reduce_scatter_v(t, self.counts, comm, self.op)
        if k == "all_to_all_v":
            send = self.counts[rank]
            recv = [self.counts[p][rank] for p in range(self.nranks)]
            return ct.all_to_all_v(t, send, recv, comm)
        raise ValueError(k)

    def _reduce(self, xs):
        op = self.op
        if op in ("sum", "avg"):
            total = sum(xs)
            return total / len(xs) if op == "avg" else total
        if op == "product":
            return functools.reduce(lambda a, b: a * b, xs)
        stack = torch.stack(xs)
        return stack.max(0).values if op == "max" else stack.min(0).values

    @functools.lru_cache(maxsize=1)
    def _wide_inputs(self):
        return [self.input(p).to(_wide(self.dtype))
                for p in range(self.nranks)]

    @functools.lru_cache(maxsize=1)
    def _reduced(self):
        return self._reduce(self._wide_inputs())

    def expected(self, rank):
        """Rank `rank`'s result by definition, in this case's dtype."""
        n, k = self.nranks, self.kind
        xs = self._wide_inputs()
        if k == "all_reduce":
            r = self._reduced()
        elif k == "broadcast":
            r = xs[self.root]
        elif k in ("all_gather_into_tensor", "all_gather_v"):
            r = torch.cat(xs)
        elif k == "reduce_scatter_tensor":
            r = self._reduced().chunk(n)[rank]
        elif k == "reduce_scatter_v":
            start = sum(self.counts[:rank])
            r = self._reduced()[start:start + self.counts[rank]]
        elif k == "all_to_all_single":
            r = torch.cat([x.chunk(n)[rank] for x in xs])
        elif k == "all_to_all_v":
            r = torch.cat([xs[p].split(self.counts[p])[rank]
                           for p in range(n)])
        else:
            raise ValueError(k)
        return r.to(self.dtype)

    def check(self, rank, result):
        """None, or what is wrong with rank `rank`'s result."""
        want = self.expected(rank)
        got = result.cpu()
        if got.shape != want.shape:
            return "%r rank %d: shape %s, expected %s" % (
                self, rank, tuple(got.shape), tuple(want.shape))
        if got.dtype != want.dtype:
            return "%r rank %d: dtype %s" % (self, rank, got.dtype)
        # Bitwise (NaN poison never equals).
        if not torch.equal(got.view(torch.uint8) if got.element_size() == 1
                           else got, want.view(torch.uint8)
                           if want.element_size() == 1 else want):
            bad = (got.to(torch.float64) != want.to(torch.float64))
            first = bad.flatten().nonzero()[0].item() if bad.any() else -1
            return "%r rank %d: %d of %d elements differ (first at %d: %s, " \
                   "expected %s)" % (self, rank, int(bad.sum()), got.numel(),
                                     first, got.flatten()[first].item(),
                                     want.flatten()[first].item())
        return None


def zipf_counts(n, total, seed):
    """n row counts summing to `total`, skewed (Purlin's Zipf split), the
    smallest rounded to zero where it falls below one row."""
    weights = [1.0 / (i + 1) for i in range(n)]
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(n, generator=g).tolist()
    counts = [int(total * weights[order[i]] / sum(weights)) for i in range(n)]
    counts[order.index(0)] += total - sum(counts)
    return counts


def cases(nranks, dtypes, copy_dtypes=(), shapes=((1, 1), (3, 7), (64, 40)),
          ops=("sum",), seed=1):
    """Every op for every dtype (reductions: `dtypes`; copies also
    `copy_dtypes`) and shape (rows per rank partition, cols), out of place,
    in place, and into a given (poisoned) output."""
    n, out = nranks, []
    seeds = iter(range(seed * 100000, seed * 100000 + 1000000))

    def add(*a, **k):
        out.append(Case(*a, seed=next(seeds), **k))

    for dtype in list(dtypes) + list(copy_dtypes):
        reduces = dtype in dtypes
        for rows, cols in shapes:
            full = rows * n
            if reduces:
                for op in ops:
                    add("all_reduce", dtype, n, full, cols, op=op)
                    add("all_reduce", dtype, n, full, cols, op=op,
                        inplace=True)
                    add("reduce_scatter_tensor", dtype, n, full, cols, op=op)
                    add("reduce_scatter_tensor", dtype, n, full, cols, op=op,
                        out=True)
                counts = zipf_counts(n, full, next(seeds))
                add("reduce_scatter_v", dtype, n, full, cols, counts=counts)
            add("all_gather_into_tensor", dtype, n, rows, cols)
            add("all_gather_into_tensor", dtype, n, rows, cols, out=True)
            add("all_to_all_single", dtype, n, full, cols)
            add("all_to_all_single", dtype, n, full, cols, out=True)
            add("broadcast", dtype, n, rows, cols, root=n - 1)
            add("broadcast", dtype, n, rows, cols, root=0, inplace=True)
            add("all_gather_v", dtype, n, rows, cols,
                counts=zipf_counts(n, full, next(seeds)))
            add("all_to_all_v", dtype, n, rows, cols,
                counts=[zipf_counts(n, rows * (p + 1), next(seeds))
                        for p in range(n)])
    return out
