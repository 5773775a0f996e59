"""collc from PyTorch: communicators bootstrapped from torch.distributed,
collectives as torch ops, registered tensors, and the fallback to
torch.distributed for what collc cannot serve.

    import torch.distributed as dist
    import collc.torch as ct
    dist.init_process_group("nccl")                      # any backend
    comm = ct.init("out/modules/collectives.collcmod")   # the default group
    y = ct.all_reduce(x, comm)                           # torch.ops.collc.all_reduce
    ct.all_reduce_(x, comm)                              # in place

Every collective is an op of the `collc` namespace (torch.ops.collc.*),
with a fake (meta) implementation, so torch.compile traces it without a
graph break; the in-place forms mutate their tensor argument and return
nothing, which torch.compile functionalizes. A call runs on the current
CUDA stream, and is safe to capture in a CUDA graph and replay. Every
rank must issue the same collectives in the same order, and a compiler may
reorder independent ops (Inductor did, differently in two processes, on
PyTorch 2.11); so while torch.compile traces, the entry points of this
module call the ops' chained forms (torch.ops.collc.*_chained), each of
which reads the token tensor the previous collective on its device returned
and returns the next: the collectives depend on each other by data, and
compiled code runs them in program order. The in-place and out= entry
points then copy the chained op's result. Call the entry points, not
torch.ops.collc.* directly, in compiled code.

A call collc cannot serve (an element type or operator the module lacks, a
rank count it has no kernel for, a host or non-contiguous tensor, a size it
refuses) runs on torch.distributed over the communicator's group instead,
ordered on the stream as the call would have been, counted by reason
(Communicator.fallbacks) and logged once per reason at INFO on logger
"collc"; strict=True raises FallbackRefused instead (collc.dispatch).

Tensors that live for the whole run (a server's activation buffers) take
the zero-copy path once registered: comm.register(tensor), or
comm.empty(...) which allocates and registers.

One process may drive several ranks (init_all: ranks sharing a GPU, for
tests and single-GPU development); those communicators have no group, so a
call collc cannot serve raises. There one thread launches every rank's
collective in turn, each kernel waiting on the GPU for the next rank's, so
nothing may wait for the device between them: set CUDA_MODULE_LOADING=EAGER
(CUDA's lazy loading loads a kernel at its first launch, which waits for
the device), warm up every kernel the ranks' code launches before the
first collective, and compile with torch.compile's aot_eager backend
(Inductor's kernels load their modules at first launch too). A wait that
never ends is bounded: the collective fails with collc's timeout.

The ops have no derivative (communication in inference and in the
forward of hand-written parallel layers); autograd does not see through
them.

Shapes follow torch.distributed: all_gather_into_tensor concatenates along
dim 0, reduce_scatter_tensor and all_to_all_single split along dim 0, and
the V forms take row counts (sizes along dim 0) per rank.
"""
import itertools
import logging
import os

import torch
import torch.distributed as dist

from . import Collective, Comm, DataType, Module, RedOp
from .dispatch import Dispatcher, FallbackRefused

__all__ = [
    "Communicator", "FallbackRefused", "init", "init_all", "collc_dtype",
    "all_reduce", "all_reduce_", "all_gather_into_tensor",
    "reduce_scatter_tensor", "all_to_all_single", "broadcast", "broadcast_",
    "all_gather_v", "reduce_scatter_v", "all_to_all_v",
]

log = logging.getLogger("collc")

_DTYPES = {torch.bfloat16: "bfloat16", torch.float16: "float16",
           torch.float32: "float32"}
for _name, _collc in (("float8_e4m3fn", "float8_e4m3"),
                      ("float8_e5m2", "float8_e5m2")):
    if hasattr(torch, _name):
        _DTYPES[getattr(torch, _name)] = _collc

_TORCH_OPS = {"sum": "SUM", "max": "MAX", "min": "MIN", "product": "PRODUCT",
              "avg": None}


def collc_dtype(dtype):
    """collc's name for a torch dtype (e.g. "bfloat16"), or torch's own
    (e.g. "int32") where collc has none."""
    return _DTYPES.get(dtype, str(dtype).replace("torch.", ""))


def _op_name(op):
    """"sum", "max", "min", "avg", "product" from a name or a
    torch.distributed.ReduceOp."""
    name = (op if isinstance(op, str) else str(op).split(".")[-1]).lower()
    if name not in _TORCH_OPS:
        raise ValueError("collc: reduction operator %r: expected one of %s" %
                         (op, ", ".join(sorted(_TORCH_OPS))))
    return name


# ---------------------------------------------------------------------------
# Communicators
# ---------------------------------------------------------------------------

_communicators = {}
_ids = itertools.count(1)


def _lookup(comm_id):
    c = _communicators.get(comm_id)
    if c is None:
        raise ValueError("collc: no communicator %d (destroyed, or not made "
                         "by collc.torch.init / init_all)" % comm_id)
    return c


class _Comms:
    """This rank's collc communicators, one per module (e.g. the fixed-size
    and the V collectives of the shipped library), as one: a call runs on
    the first whose module serves it (collc.dispatch asks supports())."""

    def __init__(self, comms):
        self.comms = comms
        self._serving = {}

    def supports(self, collective, dtype, op):
        why = None
        for comm in self.comms:
            ok, reason = comm.supports(collective, dtype, op)
            if ok:
                self._serving[(collective, dtype, op)] = comm
                return True, None
            why = why or reason
        return False, why

    def serving(self, collective, dtype, op):
        return self._serving[(Collective[collective], DataType[dtype],
                              RedOp[op] if op in RedOp.__members__
                              else RedOp.sum)]


class Communicator:
    """One rank: its collc communicators (one per module; none: every call
    falls back) and the torch.distributed group calls fall back to (or
    None: none can). `id` is what the torch ops take."""

    def __init__(self, comms, group, rank, nranks, strict=False, device=None):
        if isinstance(comms, Comm):
            comms = [comms]
        self.comms = list(comms or [])
        self.group = group
        self.rank, self.nranks = rank, nranks
        self.device = device
        self._comms = _Comms(self.comms) if self.comms else None
        self.dispatch = Dispatcher(self._comms, strict)
        self._windows = {}  # data_ptr -> ([Window per comm], tensor)
        self.id = next(_ids)
        _communicators[self.id] = self
        _token_for(device)

    @property
    def fallbacks(self):
        """Calls that fell back, by "collective: reason"."""
        return self.dispatch.fallbacks

    @property
    def collc_calls(self):
        return self.dispatch.collc_calls

    def serving(self, collective, dtype, op="sum"):
        return self._comms.serving(collective, dtype, op)

    def register(self, tensor):
        """Registers a CUDA tensor's memory for the zero-copy path with
        every module's communicator (collective: every rank registers its
        tensor, in the same order); the tensor is kept alive until
        deregister(). Returns the tensor."""
        if not self.comms:
            raise RuntimeError("collc: register: this communicator has no "
                               "collc communicator (its calls fall back)")
        if not tensor.is_cuda or not tensor.is_contiguous():
            raise ValueError("collc: register takes a contiguous CUDA "
                             "tensor, not %s %s" % (
                                 tensor.device, "contiguous" if
                                 tensor.is_contiguous() else "strided"))
        ptr = tensor.data_ptr()
        if ptr in self._windows:
            raise ValueError("collc: register: the tensor at 0x%x is "
                             "registered already" % ptr)
        nbytes = tensor.numel() * tensor.element_size()
        windows = []
        try:
            for comm in self.comms:
                windows.append(comm.register(ptr, nbytes))
        except Exception:
            for comm, window in zip(self.comms, windows):
                comm.deregister(window)
            raise
        self._windows[ptr] = (windows, tensor)
        return tensor

    def deregister(self, tensor):
        """Deregisters a tensor register() took (collective)."""
        entry = self._windows.pop(tensor.data_ptr(), None)
        if entry is None:
            raise ValueError("collc: deregister: the tensor at 0x%x is not "
                             "registered" % tensor.data_ptr())
        for comm, window in zip(self.comms, entry[0]):
            comm.deregister(window)

    def empty(self, *size, dtype=torch.bfloat16):
        """A registered CUDA tensor on this rank's device (collective)."""
        t = torch.empty(*size, dtype=dtype, device=self.device)
        return self.register(t)

    def destroy(self):
        """Deregisters every tensor and frees the collc communicators."""
        _communicators.pop(self.id, None)
        for windows, _ in list(self._windows.values()):
            for comm, window in zip(self.comms, windows):
                comm.deregister(window)
        self._windows.clear()
        for comm in self.comms:
            comm.destroy()
        self.comms = []


def _modules(modules):
    """Module objects from a module, a path, or a list of either."""
    if isinstance(modules, (list, tuple)):
        return [m if isinstance(m, Module) else Module(m) for m in modules]
    return [modules if isinstance(modules, Module) else Module(modules)]


def init(modules, group=None, device=None, config=None, strict=False):
    """This process's rank of `group` (default: the default group), with a
    collc communicator per module (`modules`: a path, a Module, or a list:
    e.g. the library's collectives and variable modules; a call runs on
    the first that serves it), built from an allgather of bytes over the
    group (any backend). `device`: the CUDA device (default: the current
    one). Without CUDA every call falls back. Every rank of the group
    calls init together."""
    group = group if group is not None else dist.group.WORLD
    rank, nranks = dist.get_rank(group), dist.get_world_size(group)
    modules = _modules(modules)  # a bad module is an error on any machine
    if not torch.cuda.is_available():
        return Communicator(None, group, rank, nranks, strict)
    if device is None:
        device = torch.cuda.current_device()
    device = torch.device("cuda", device) if isinstance(device, int) else \
        torch.device(device)
    if device.type != "cuda" or device.index is None:
        raise ValueError("collc: init: device %s is not one CUDA device" %
                         device)

    def allgather(data):
        out = [None] * nranks
        dist.all_gather_object(out, data, group=group)
        return b"".join(out)

    comms = [Comm.init_rank(m, nranks, rank, device.index, allgather, config)
             for m in modules]
    return Communicator(comms, group, rank, nranks, strict, device)


def init_all(modules, devices, config=None, strict=False):
    """A Communicator per entry of `devices` in this process (rank i on
    devices[i]; a device may repeat), with a collc communicator per module.
    No group: what collc cannot serve raises."""
    devices = list(devices)
    if os.environ.get("CUDA_MODULE_LOADING", "").upper() != "EAGER":
        log.warning("collc: init_all: CUDA_MODULE_LOADING is not EAGER: a "
                    "kernel loaded at its first launch between two ranks' "
                    "collectives waits for the device, where the first "
                    "waits for the second (a timeout); see collc.torch")
    per_module = [Comm.init_all(m, devices, config)
                  for m in _modules(modules)]
    return [Communicator([comms[i] for comms in per_module], None, i,
                         len(devices), strict, torch.device("cuda", d))
            for i, d in enumerate(devices)]


# ---------------------------------------------------------------------------
# Shapes (the ops' fake implementations use these too)
# ---------------------------------------------------------------------------

def _rows(t):
    return t.shape[0] if t.dim() else 1


def _row_shape(t):
    return tuple(t.shape[1:]) if t.dim() else ()


def _row_elems(t):
    n = 1
    for s in _row_shape(t):
        n *= s
    return n


def _split_check(what, t, n):
    if _rows(t) % n:
        raise ValueError("collc: %s: the input's %d rows (dim 0) do not "
                         "split among %d ranks" % (what, _rows(t), n))


def _counts_check(what, counts, n, name="counts"):
    if len(counts) != n:
        raise ValueError("collc: %s: %s has %d entries for %d ranks" % (
            what, name, len(counts), n))
    if any(c < 0 for c in counts):
        raise ValueError("collc: %s: %s has a negative entry: %s" % (
            what, name, list(counts)))


def _gather_shape(t, n):
    return (n * _rows(t),) + _row_shape(t)


def _scatter_shape(what, t, n):
    _split_check(what, t, n)
    return (_rows(t) // n,) + _row_shape(t)


# ---------------------------------------------------------------------------
# The fallback: torch.distributed on the communicator's group
# ---------------------------------------------------------------------------

def _group(c, what, why):
    if c.group is None:
        raise FallbackRefused(
            "collc: %s: collc cannot serve the call (%s) and the "
            "communicator has no torch.distributed group to fall back to "
            "(collc.torch.init_all)" % (what, why))
    return c.group


def _native(group):
    """NCCL runs every torch.distributed collective natively on CUDA
    tensors and is capturable; other backends (gloo) get the collectives
    composed from all_reduce, all_gather and all_to_all_single, on host
    copies of CUDA tensors."""
    # "nccl", or a per-device list such as "cpu:gloo,cuda:nccl".
    return "nccl" in str(dist.get_backend(group))


def _global_rank(group, rank):
    if group is None or group is dist.group.WORLD:
        return rank
    if hasattr(dist, "get_global_rank"):
        return dist.get_global_rank(group, rank)
    return dist.distributed_c10d._get_global_rank(group, rank)


def _staged(group, outputs, inputs, run, reduce=False):
    """run(outputs, inputs) on tensors the backend takes, outputs copied
    back: contiguous; for NCCL device copies of host tensors; for other
    backends (gloo) host copies of CUDA tensors (.cpu() waits for the current stream, copy_ is queued on
    it), floats under 32 bits reduced as float32 (gloo has no bf16 or fp8)
    and moved as bytes (bitwise)."""
    host = not _native(group)
    narrow = lambda t: t.is_floating_point() and t.element_size() < 4
    if host and any(t.is_cuda for t in outputs + inputs) and \
            torch.cuda.is_current_stream_capturing():
        raise RuntimeError(
            "collc: a call falls back to torch.distributed over %s, whose "
            "host copies cannot be captured in a CUDA graph; capture only "
            "calls collc serves (see the communicator's fallbacks) or use "
            "an NCCL group" % dist.get_backend(group))

    def stage(t):
        if host and t.is_cuda:
            t = t.cpu()
        elif not host and not t.is_cuda:  # NCCL takes CUDA tensors only
            return t.to(torch.device("cuda", torch.cuda.current_device()))
        if host and narrow(t):
            if reduce:
                return t.float()
            # Rows kept (a V call's counts are rows), each row as bytes.
            return t.contiguous().reshape(_rows(t), -1).view(torch.uint8)
        return t if t.is_contiguous() else t.contiguous()

    outs, ins = [stage(t) for t in outputs], [stage(t) for t in inputs]
    run(outs, ins)
    for t, s in zip(outputs, outs):
        if s is t:
            continue
        if s.dtype == torch.uint8 and t.dtype != torch.uint8:
            s = s.view(t.dtype).reshape(t.shape)
        t.copy_(s)


def _reduce_op(op):
    return getattr(dist.ReduceOp, _TORCH_OPS[op])


def _fb_all_reduce(group, t, op, nranks):
    def run(outs, _):
        if op != "avg":
            dist.all_reduce(outs[0], _reduce_op(op), group=group)
        elif _native(group):
            dist.all_reduce(outs[0], dist.ReduceOp.AVG, group=group)
        else:
            dist.all_reduce(outs[0], dist.ReduceOp.SUM, group=group)
            outs[0].div_(nranks)
    _staged(group, [t], [], run, reduce=True)


def _fb_all_gather(group, out, inp, nranks):
    def run(outs, ins):
        if _native(group):
            dist.all_gather_into_tensor(outs[0], ins[0], group=group)
        else:
            dist.all_gather(list(outs[0].chunk(nranks)), ins[0], group=group)
    _staged(group, [out], [inp], run)


def _fb_reduce_scatter(group, out, inp, op, rank, nranks):
    if _native(group) and op != "avg":
        _staged(group, [out], [inp],
                lambda outs, ins: dist.reduce_scatter_tensor(
                    outs[0], ins[0], _reduce_op(op), group=group),
                reduce=True)
        return
    tmp = inp.contiguous().clone()
    _fb_all_reduce(group, tmp, op, nranks)
    out.copy_(tmp.chunk(nranks)[rank])


def _fb_all_to_all(group, out, inp, out_splits=None, in_splits=None):
    _staged(group, [out], [inp], lambda outs, ins: dist.all_to_all_single(
        outs[0], ins[0], out_splits, in_splits, group=group))


def _fb_broadcast(group, t, root):
    _staged(group, [t], [], lambda outs, _: dist.broadcast(
        outs[0], _global_rank(group, root), group=group))


def _fb_all_gather_v(group, out, inp, counts):
    # Every rank's rows padded to the largest, gathered, then unpadded:
    # all_gather needs equal sizes on every backend.
    most = max(counts)
    padded = inp.new_zeros((most,) + _row_shape(inp))
    padded[:_rows(inp)].copy_(inp.reshape((_rows(inp),) + _row_shape(inp)))
    gathered = inp.new_empty((len(counts) * most,) + _row_shape(inp))
    _fb_all_gather(group, gathered, padded, len(counts))
    start = 0
    for r, c in enumerate(counts):
        out[start:start + c].copy_(gathered[r * most:r * most + c])
        start += c


def _fb_reduce_scatter_v(group, out, inp, counts, op, rank):
    tmp = inp.contiguous().clone()
    _fb_all_reduce(group, tmp, op, len(counts))
    start = sum(counts[:rank])
    out.copy_(tmp[start:start + counts[rank]])


# ---------------------------------------------------------------------------
# The ops' implementations (CPU and CUDA; CPU tensors always fall back)
# ---------------------------------------------------------------------------

def _stream(t):
    return torch.cuda.current_stream(t.device).cuda_stream


def _where(c, *tensors):
    """A reason collc cannot take these tensors, or None."""
    for t in tensors:
        if not t.is_cuda:
            return "a tensor is in %s memory; collc runs on CUDA devices" % (
                t.device.type)
        if c.device is not None and t.device != c.device:
            return "a tensor is on %s, the communicator on %s" % (
                t.device, c.device)
    return None


def _run(c, collective, tensors, collc_call, fallback, op="sum"):
    """collc_call(the serving collc.Comm) or fallback(group), as collc's
    dispatch decides."""
    dtype = collc_dtype(tensors[0].dtype)
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise ValueError("collc: %s: the tensors' types differ (%s, %s)"
                             % (collective, tensors[0].dtype, t.dtype))
    contiguous = all(t.is_contiguous() for t in tensors)
    c.dispatch.run(collective, dtype,
                   lambda: collc_call(c.serving(collective, dtype, op)),
                   lambda: fallback(_group(c, collective,
                                           c.dispatch.last_reason)),
                   op=op, contiguous=contiguous,
                   other=_where(c, *tensors))


def _all_reduce_(t, comm, op="sum"):
    c, op = _lookup(comm), _op_name(op)
    _run(c, "all_reduce", [t],
         lambda cc: cc.all_reduce(t.data_ptr(), t.data_ptr(), t.numel(),
                                   collc_dtype(t.dtype), op,
                                   stream=_stream(t)),
         lambda g: _fb_all_reduce(g, t, op, c.nranks), op)


def _all_reduce(t, comm, op="sum"):
    c, op = _lookup(comm), _op_name(op)
    out = torch.empty_like(t, memory_format=torch.contiguous_format)

    def fallback(g):
        out.copy_(t)
        _fb_all_reduce(g, out, op, c.nranks)

    _run(c, "all_reduce", [t, out],
         lambda cc: cc.all_reduce(t.data_ptr(), out.data_ptr(), t.numel(),
                                   collc_dtype(t.dtype), op,
                                   stream=_stream(t)),
         fallback, op)
    return out


def _all_gather_out(t, out, comm):
    c = _lookup(comm)
    if tuple(out.shape) != _gather_shape(t, c.nranks):
        raise ValueError("collc: all_gather_into_tensor: output shape %s, "
                         "expected %s" % (tuple(out.shape),
                                          _gather_shape(t, c.nranks)))
    _run(c, "all_gather", [t, out],
         lambda cc: cc.all_gather(t.data_ptr(), out.data_ptr(), t.numel(),
                                   collc_dtype(t.dtype), stream=_stream(t)),
         lambda g: _fb_all_gather(g, out, t, c.nranks))


def _all_gather(t, comm):
    c = _lookup(comm)
    out = t.new_empty(_gather_shape(t, c.nranks))
    _all_gather_out(t, out, comm)
    return out


def _reduce_scatter_out(t, out, comm, op="sum"):
    c, op = _lookup(comm), _op_name(op)
    shape = _scatter_shape("reduce_scatter_tensor", t, c.nranks)
    if tuple(out.shape) != shape:
        raise ValueError("collc: reduce_scatter_tensor: output shape %s, "
                         "expected %s" % (tuple(out.shape), shape))
    _run(c, "reduce_scatter", [t, out],
         lambda cc: cc.reduce_scatter(t.data_ptr(), out.data_ptr(),
                                       out.numel(), collc_dtype(t.dtype), op,
                                       stream=_stream(t)),
         lambda g: _fb_reduce_scatter(g, out, t, op, c.rank, c.nranks), op)


def _reduce_scatter(t, comm, op="sum"):
    c = _lookup(comm)
    out = t.new_empty(_scatter_shape("reduce_scatter_tensor", t, c.nranks))
    _reduce_scatter_out(t, out, comm, op)
    return out


def _all_to_all_out(t, out, comm):
    c = _lookup(comm)
    _split_check("all_to_all_single", t, c.nranks)
    if out.shape != t.shape:
        raise ValueError("collc: all_to_all_single: output shape %s, "
                         "expected the input's %s" % (tuple(out.shape),
                                                     tuple(t.shape)))
    _run(c, "all_to_all", [t, out],
         lambda cc: cc.all_to_all(t.data_ptr(), out.data_ptr(),
                                   t.numel() // c.nranks,
                                   collc_dtype(t.dtype), stream=_stream(t)),
         lambda g: _fb_all_to_all(g, out, t))


def _all_to_all(t, comm):
    out = torch.empty_like(t, memory_format=torch.contiguous_format)
    _all_to_all_out(t, out, comm)
    return out


def _root_check(c, root):
    if not 0 <= root < c.nranks:
        raise ValueError("collc: broadcast: root %d is not a rank of %d" %
                         (root, c.nranks))


def _broadcast_(t, root, comm):
    c = _lookup(comm)
    _root_check(c, root)
    _run(c, "broadcast", [t],
         lambda cc: cc.broadcast(t.data_ptr(), t.data_ptr(), t.numel(),
                                  collc_dtype(t.dtype), root,
                                  stream=_stream(t)),
         lambda g: _fb_broadcast(g, t, root))


def _broadcast(t, root, comm):
    c = _lookup(comm)
    _root_check(c, root)
    out = torch.empty_like(t, memory_format=torch.contiguous_format)

    def fallback(g):
        out.copy_(t)
        _fb_broadcast(g, out, root)

    _run(c, "broadcast", [t, out],
         lambda cc: cc.broadcast(t.data_ptr(), out.data_ptr(), t.numel(),
                                  collc_dtype(t.dtype), root,
                                  stream=_stream(t)),
         fallback)
    return out


def _v_shape_all_gather(t, counts, c):
    _counts_check("all_gather_v", counts, c.nranks)
    if _rows(t) != counts[c.rank]:
        raise ValueError("collc: all_gather_v: rank %d's input has %d rows, "
                         "counts[%d] is %d" % (c.rank, _rows(t), c.rank,
                                               counts[c.rank]))
    return (sum(counts),) + _row_shape(t)


def _all_gather_v(t, counts, comm):
    c = _lookup(comm)
    out = t.new_empty(_v_shape_all_gather(t, counts, c))
    row = _row_elems(t)
    _run(c, "all_gather_v", [t, out],
         lambda cc: cc.all_gather_v(t.data_ptr(), t.numel(), out.data_ptr(),
                                     [k * row for k in counts],
                                     collc_dtype(t.dtype),
                                     stream=_stream(t)),
         lambda g: _fb_all_gather_v(g, out, t, counts))
    return out


def _v_shape_reduce_scatter(t, counts, c):
    _counts_check("reduce_scatter_v", counts, c.nranks)
    if _rows(t) != sum(counts):
        raise ValueError("collc: reduce_scatter_v: the input has %d rows, "
                         "the counts sum to %d" % (_rows(t), sum(counts)))
    return (counts[c.rank],) + _row_shape(t)


def _reduce_scatter_v(t, counts, comm, op="sum"):
    c, op = _lookup(comm), _op_name(op)
    out = t.new_empty(_v_shape_reduce_scatter(t, counts, c))
    row = _row_elems(t)
    _run(c, "reduce_scatter_v", [t, out],
         lambda cc: cc.reduce_scatter_v(t.data_ptr(), out.data_ptr(),
                                         [k * row for k in counts],
                                         collc_dtype(t.dtype), op,
                                         stream=_stream(t)),
         lambda g: _fb_reduce_scatter_v(g, out, t, counts, op, c.rank), op)
    return out


def _v_shape_all_to_all(t, send, recv, c):
    _counts_check("all_to_all_v", send, c.nranks, "send_counts")
    _counts_check("all_to_all_v", recv, c.nranks, "recv_counts")
    if _rows(t) != sum(send):
        raise ValueError("collc: all_to_all_v: the input has %d rows, "
                         "send_counts sum to %d" % (_rows(t), sum(send)))
    return (sum(recv),) + _row_shape(t)


def _all_to_all_v(t, send, recv, comm):
    c = _lookup(comm)
    out = t.new_empty(_v_shape_all_to_all(t, send, recv, c))
    row = _row_elems(t)
    _run(c, "all_to_all_v", [t, out],
         lambda cc: cc.all_to_all_v(t.data_ptr(), [k * row for k in send],
                                     out.data_ptr(), [k * row for k in recv],
                                     collc_dtype(t.dtype),
                                     stream=_stream(t)),
         lambda g: _fb_all_to_all(g, out, t, list(recv), list(send)))
    return out


# ---------------------------------------------------------------------------
# Registration with torch.library
# ---------------------------------------------------------------------------

# name: (schema, implementation, fake implementation)
_OPS = {
    "all_reduce": (
        "(Tensor input, int comm, str op='sum') -> Tensor", _all_reduce,
        lambda t, comm, op="sum": torch.empty_like(t)),
    "all_reduce_": (
        "(Tensor(a!) tensor, int comm, str op='sum') -> ()", _all_reduce_,
        lambda t, comm, op="sum": None),
    "all_gather_into_tensor": (
        "(Tensor input, int comm) -> Tensor", _all_gather,
        lambda t, comm: t.new_empty(_gather_shape(t, _lookup(comm).nranks))),
    "all_gather_into_tensor_out": (
        "(Tensor input, Tensor(a!) out, int comm) -> ()", _all_gather_out,
        lambda t, out, comm: None),
    "reduce_scatter_tensor": (
        "(Tensor input, int comm, str op='sum') -> Tensor", _reduce_scatter,
        lambda t, comm, op="sum": t.new_empty(_scatter_shape(
            "reduce_scatter_tensor", t, _lookup(comm).nranks))),
    "reduce_scatter_tensor_out": (
        "(Tensor input, Tensor(a!) out, int comm, str op='sum') -> ()",
        _reduce_scatter_out, lambda t, out, comm, op="sum": None),
    "all_to_all_single": (
        "(Tensor input, int comm) -> Tensor", _all_to_all,
        lambda t, comm: torch.empty_like(t)),
    "all_to_all_single_out": (
        "(Tensor input, Tensor(a!) out, int comm) -> ()", _all_to_all_out,
        lambda t, out, comm: None),
    "broadcast": (
        "(Tensor input, int root, int comm) -> Tensor", _broadcast,
        lambda t, root, comm: torch.empty_like(t)),
    "broadcast_": (
        "(Tensor(a!) tensor, int root, int comm) -> ()", _broadcast_,
        lambda t, root, comm: None),
    "all_gather_v": (
        "(Tensor input, int[] counts, int comm) -> Tensor", _all_gather_v,
        lambda t, counts, comm: t.new_empty(
            _v_shape_all_gather(t, counts, _lookup(comm)))),
    "reduce_scatter_v": (
        "(Tensor input, int[] counts, int comm, str op='sum') -> Tensor",
        _reduce_scatter_v,
        lambda t, counts, comm, op="sum": t.new_empty(
            _v_shape_reduce_scatter(t, counts, _lookup(comm)))),
    "all_to_all_v": (
        "(Tensor input, int[] send_counts, int[] recv_counts, int comm) -> "
        "Tensor", _all_to_all_v,
        lambda t, send, recv, comm: t.new_empty(
            _v_shape_all_to_all(t, send, recv, _lookup(comm)))),
}


def _chained_schema(schema):
    """The functional op's schema with a token after the input and returned
    after the result: "(Tensor input, Tensor token, ...) -> (Tensor,
    Tensor)"."""
    assert schema.startswith("(Tensor input, ") and \
        schema.endswith(") -> Tensor")
    return "(Tensor input, Tensor token, " + \
        schema[len("(Tensor input, "):-len("Tensor")] + "(Tensor, Tensor)"


_TOKEN_DTYPE = torch.uint8


def _new_token(device):
    return torch.empty(0, dtype=_TOKEN_DTYPE, device=device)


def _chain(impl):
    # The token returned is a new tensor, never the argument: an op's output
    # may not alias its input unless its schema says so.
    return lambda t, token, *args: (impl(t, *args),
                                    _new_token(token.device))

# The functional ops again, each taking and returning a token tensor: what
# the entry points call while torch.compile traces (_compiled), so that
# every collective depends by data on the one before it (_tokens).
CHAINED = [name for name, (schema, _, _) in _OPS.items()
           if "(a!)" not in schema]
for _name in CHAINED:
    _schema, _impl, _fake = _OPS[_name]
    _OPS[_name + "_chained"] = (_chained_schema(_schema), _chain(_impl),
                                _chain(_fake))

_library = torch.library.Library("collc", "DEF")
for _name, (_schema, _impl, _fake) in _OPS.items():
    _library.define(_name + _schema)
    _library.impl(_name, _impl, "CPU")
    _library.impl(_name, _impl, "CUDA")
    if hasattr(torch.library, "register_fake"):  # PyTorch 2.4+
        torch.library.register_fake("collc::" + _name, _fake, lib=_library)
    else:
        _library.impl(_name, _fake, "Meta")

_ops = torch.ops.collc


def _order_collectives():
    """Marks the functional ops as having an ordered side effect, so that
    torch.compile threads an effect token through them where a program
    calls torch.ops.collc.* itself. The entry points below do not rely on
    it: on PyTorch 2.11 Inductor dropped that ordering between such ops and
    reordered them, differently in two processes compiling the same
    function, each rank then waiting for the other's next collective until
    the timeout (pytorch/pytorch#188301). While compiling they call the
    chained ops instead (_compiled), which no compiler may reorder.
    PyTorch orders only ops whose schema has no alias annotation (its
    has_aliasing), so the in-place and out= forms stay unordered. Returns
    (ordered op names, {name: why not}) over the ops without a token;
    older PyTorch (1.13 among them) has no effect registration at all.
    collc.torch.ORDERED and UNORDERED hold the answer."""
    names = [n for n in _OPS if not n.endswith("_chained")]
    try:
        from torch._library.effects import EffectType as effect
    except ImportError:
        try:
            from torch._higher_order_ops.effects import _EffectType as effect
        except ImportError:
            return [], {n: "this PyTorch has no effect registration"
                        for n in names}
    register = getattr(torch.library, "_register_effectful_op", None)
    if register is None:
        from torch._higher_order_ops.effects import \
            _register_effectful_op as register
    ordered, unordered = [], {}
    for name in names:
        op = getattr(_ops, name).default
        schema = op._schema
        if any(a.alias_info is not None
               for a in list(schema.arguments) + list(schema.returns)):
            unordered[name] = ("it writes its input or out= tensor: PyTorch "
                               "orders only ops without aliasing")
            continue
        try:
            register(op, effect.ORDERED)
            ordered.append(name)
        except Exception as e:  # a version's own refusal, kept as the reason
            unordered[name] = repr(e)
    return ordered, unordered


ORDERED, UNORDERED = _order_collectives()


def _id(comm):
    return comm.id if isinstance(comm, Communicator) else comm


def _compiling():
    """Whether torch.compile is tracing the caller (a constant there)."""
    for module in (getattr(torch, "compiler", None),
                   getattr(torch, "_dynamo", None)):
        is_compiling = getattr(module, "is_compiling", None)
        if is_compiling is not None:
            return bool(is_compiling())
    return False


# Per device (its index; -1: the CPU), the token the last collective traced
# on it returned. Every rank must issue its collectives in one order, and
# a compiler may reorder independent ops (and drop an unused result's op):
# traced through the chained ops, each collective reads the token the one
# before it on the device returned, whatever communicator it is on, and the
# last token is stored back here (a graph output), so the compiled code
# runs them in program order and runs every one. Made per device when a
# communicator is, so that compiled code finds it (no recompilation).
_tokens = {}


def _token_for(device):
    key = -1 if device is None or device.type == "cpu" else device.index
    if key not in _tokens:
        _tokens[key] = _new_token(device or "cpu")


def _compiled(name, t, *args):
    """Collective `name` (a functional op) through its chained op, reading
    and replacing the token of t's device."""
    key = t.get_device()
    token = _tokens.get(key)
    if token is None:
        token = _new_token(t.device)
    out, _tokens[key] = getattr(_ops, name + "_chained")(t, token, *args)
    return out


def _functional(name, t, *args):
    if _compiling():
        return _compiled(name, t, *args)
    return getattr(_ops, name)(t, *args)


# The Python entry points: `comm` is a Communicator (or its id). While
# torch.compile traces, every one runs a chained op (_functional); the
# in-place and out= forms copy its result (in eager they write in place:
# on registered tensors the zero-copy path).

def all_reduce(t, comm, op="sum"):
    return _functional("all_reduce", t, _id(comm), _op_name(op))


def all_reduce_(t, comm, op="sum"):
    if _compiling():
        return t.copy_(_compiled("all_reduce", t, _id(comm), _op_name(op)))
    _ops.all_reduce_(t, _id(comm), _op_name(op))
    return t


def all_gather_into_tensor(t, comm, out=None):
    if out is None:
        return _functional("all_gather_into_tensor", t, _id(comm))
    if _compiling():
        return out.copy_(_compiled("all_gather_into_tensor", t, _id(comm)))
    _ops.all_gather_into_tensor_out(t, out, _id(comm))
    return out


def reduce_scatter_tensor(t, comm, op="sum", out=None):
    if out is None:
        return _functional("reduce_scatter_tensor", t, _id(comm),
                           _op_name(op))
    if _compiling():
        return out.copy_(_compiled("reduce_scatter_tensor", t, _id(comm),
                                   _op_name(op)))
    _ops.reduce_scatter_tensor_out(t, out, _id(comm), _op_name(op))
    return out


def all_to_all_single(t, comm, out=None):
    if out is None:
        return _functional("all_to_all_single", t, _id(comm))
    if _compiling():
        return out.copy_(_compiled("all_to_all_single", t, _id(comm)))
    _ops.all_to_all_single_out(t, out, _id(comm))
    return out


def broadcast(t, root, comm):
    return _functional("broadcast", t, root, _id(comm))


def broadcast_(t, root, comm):
    if _compiling():
        return t.copy_(_compiled("broadcast", t, root, _id(comm)))
    _ops.broadcast_(t, root, _id(comm))
    return t


def all_gather_v(t, counts, comm):
    return _functional("all_gather_v", t, list(counts), _id(comm))


def reduce_scatter_v(t, counts, comm, op="sum"):
    return _functional("reduce_scatter_v", t, list(counts), _id(comm),
                       _op_name(op))


def all_to_all_v(t, send_counts, recv_counts, comm):
    return _functional("all_to_all_v", t, list(send_counts),
                       list(recv_counts), _id(comm))
