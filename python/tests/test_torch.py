"""collc.torch without a GPU (CI): the ops' registration and fake
implementations, argument errors, and the fallback to torch.distributed
(gloo, ranks in processes of this machine), every op checked against the
collective's definition (torch_cases). Needs PyTorch (Debian's
python3-torch); the GPU run is test/gpu/torch/run.py."""
import multiprocessing
import os
import re

import pytest
import torch
import torch.distributed as dist

import collc
import collc.torch as ct
from torch_cases import cases

# Gloo on the loopback interface: CI machines may not resolve their own
# hostname.
os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")

OPS = ["all_reduce", "all_reduce_", "all_gather_into_tensor",
       "all_gather_into_tensor_out", "reduce_scatter_tensor",
       "reduce_scatter_tensor_out", "all_to_all_single",
       "all_to_all_single_out", "broadcast", "broadcast_", "all_gather_v",
       "reduce_scatter_v", "all_to_all_v"]


def test_every_op_is_registered():
    for name in OPS:
        op = getattr(torch.ops.collc, name)
        assert "collc::" + name in str(op.default._schema)
    # The in-place forms say what they mutate (torch.compile relies on it).
    assert "Tensor(a!)" in str(torch.ops.collc.all_reduce_.default._schema)
    # Every functional op has a chained form: a token in, a token out.
    assert sorted(ct.CHAINED) == sorted(n for n in OPS if not (
        n.endswith("_") or n.endswith("_out")))
    for name in ct.CHAINED:
        schema = str(getattr(torch.ops.collc,
                             name + "_chained").default._schema)
        assert schema.startswith("collc::%s_chained(Tensor input, Tensor "
                                 "token, " % name), schema
        assert schema.endswith("-> (Tensor, Tensor)"), schema


@pytest.fixture
def rank1_of_4():
    c = ct.Communicator(None, None, rank=1, nranks=4)
    yield c
    c.destroy()


def test_every_op_is_ordered_or_says_why_not():
    # The functional ops are ordered side effects where PyTorch can order
    # them; an op that writes its arguments never claims to be (PyTorch's
    # effect tokens skip aliasing ops), and every op without a token is in
    # one of the two.
    names = set(OPS)
    assert set(ct.ORDERED) | set(ct.UNORDERED) == names
    assert not set(ct.ORDERED) & set(ct.UNORDERED)
    for name in ct.ORDERED:
        assert "(a!)" not in ct._OPS[name][0], name
    for name in ("all_reduce_", "broadcast_", "all_gather_into_tensor_out"):
        assert name in ct.UNORDERED and ct.UNORDERED[name]
    try:
        import torch._higher_order_ops.effects  # noqa: F401
    except ImportError:  # no effect tokens in this PyTorch: nothing ordered
        assert ct.ORDERED == []
        assert "no effect registration" in ct.UNORDERED["all_reduce"]


def test_entry_points_chain_their_collectives_while_compiling(monkeypatch):
    # While torch.compile traces, every entry point runs the chained op with
    # the token the previous collective on the device returned, and stores
    # the one it returns; the in-place and out= forms copy its result. In
    # eager the plain ops run (the writing ones in place) and no token moves.
    calls = []

    class Ops:
        def __getattr__(self, name):
            def op(t, *args):
                if name.endswith("_chained"):
                    token, args = args[0], args[1:]
                    calls.append((name, token))
                    return t * 2, torch.empty(0, dtype=torch.uint8)
                calls.append((name, None))
                return None if name.endswith(("_", "_out")) else t * 2
            return op

    monkeypatch.setattr(ct, "_ops", Ops())
    monkeypatch.setattr(ct, "_tokens", {-1: torch.empty(0)})
    t = torch.ones(4)
    out = torch.zeros(4)
    for compiling in (False, True):
        calls.clear()
        first = ct._tokens[-1]
        monkeypatch.setattr(ct, "_compiling", lambda: compiling)
        ct.all_reduce_(t, 7)
        ct.broadcast_(t, 0, 7)
        ct.all_to_all_single(t, 7, out=out)
        ct.all_gather_into_tensor(t, 7, out=out)
        ct.reduce_scatter_tensor(t, 7, out=out)
        ct.all_gather_v(t, [4], 7)
        names = [n for n, _ in calls]
        if not compiling:
            assert names == ["all_reduce_", "broadcast_",
                             "all_to_all_single_out",
                             "all_gather_into_tensor_out",
                             "reduce_scatter_tensor_out", "all_gather_v"]
            assert ct._tokens[-1] is first
            continue
        assert names == ["all_reduce_chained", "broadcast_chained",
                         "all_to_all_single_chained",
                         "all_gather_into_tensor_chained",
                         "reduce_scatter_tensor_chained",
                         "all_gather_v_chained"]
        tokens = [tok for _, tok in calls]
        assert tokens[0] is first
        assert all(a is not b for a, b in zip(tokens, tokens[1:]))
        assert ct._tokens[-1] is not tokens[-1]  # the last one's result
    # The copies landed while compiling (the fake writing ops write
    # nothing): 1 -> 2 (all_reduce_) -> 4 (broadcast_), out = 2 * 4.
    assert torch.equal(t, torch.full((4,), 4.0))
    assert torch.equal(out, torch.full((4,), 8.0))


def test_a_chained_op_returns_a_new_token():
    # An op's output may not alias its input (its schema says none does);
    # the fake implementation gives the same.
    c = ct.Communicator(None, None, rank=0, nranks=2)
    try:
        token = torch.empty(0, dtype=torch.uint8, device="meta")
        x = torch.empty(6, 3, dtype=torch.bfloat16, device="meta")
        with torch.inference_mode():
            y, nxt = torch.ops.collc.reduce_scatter_tensor_chained(
                x, token, c.id)
        assert y.shape == (3, 3) and nxt.shape == (0,)
        assert nxt is not token and nxt.dtype == torch.uint8
    finally:
        c.destroy()


@torch.inference_mode()  # the ops have no derivative (PyTorch 1.13 then
def test_fake_implementations_give_the_shapes(rank1_of_4):  # needs this)
    c = rank1_of_4.id
    m = dict(device="meta", dtype=torch.bfloat16)
    x = torch.empty(8, 5, **m)
    ops = torch.ops.collc
    assert ops.all_reduce(x, c).shape == (8, 5)
    assert ops.all_gather_into_tensor(x, c).shape == (32, 5)
    assert ops.reduce_scatter_tensor(x, c).shape == (2, 5)
    assert ops.all_to_all_single(x, c).shape == (8, 5)
    assert ops.broadcast(x, 3, c).shape == (8, 5)
    assert ops.all_gather_v(torch.empty(3, 5, **m), [1, 3, 0, 4],
                            c).shape == (8, 5)
    assert ops.reduce_scatter_v(x, [1, 3, 0, 4], c).shape == (3, 5)
    assert ops.all_to_all_v(x, [2, 2, 0, 4], [1, 1, 1, 1],
                            c).shape == (4, 5)
    assert ops.all_reduce_(x, c) is None or ops.all_reduce_(x, c) == ()
    assert ops.all_reduce(torch.empty((), **m), c).shape == ()


@pytest.mark.parametrize("call, message", [
    (lambda c: ct.reduce_scatter_tensor(torch.zeros(6, 2), c),
     "the input's 6 rows (dim 0) do not split among 4 ranks"),
    (lambda c: ct.all_to_all_single(torch.zeros(5), c),
     "do not split among 4 ranks"),
    (lambda c: ct.all_gather_v(torch.zeros(2, 2), [1, 2, 3], c),
     "counts has 3 entries for 4 ranks"),
    (lambda c: ct.all_gather_v(torch.zeros(2, 2), [1, 3, 0, 0], c),
     "rank 1's input has 2 rows, counts[1] is 3"),
    (lambda c: ct.reduce_scatter_v(torch.zeros(4), [1, 1, -1, 3], c),
     "counts has a negative entry"),
    (lambda c: ct.reduce_scatter_v(torch.zeros(4), [1, 1, 1, 2], c),
     "the input has 4 rows, the counts sum to 5"),
    (lambda c: ct.all_to_all_v(torch.zeros(4), [1, 1, 1, 1], [1, 1], c),
     "recv_counts has 2 entries for 4 ranks"),
    (lambda c: ct.broadcast(torch.zeros(4), 4, c),
     "root 4 is not a rank of 4"),
    (lambda c: ct.all_reduce(torch.zeros(4), c, op="xor"),
     "reduction operator 'xor'"),
    (lambda c: ct.all_gather_into_tensor(torch.zeros(2), c,
                                         out=torch.zeros(7)),
     "output shape (7,), expected (8,)"),
    (lambda c: ct.all_reduce(torch.zeros(4), 12345),
     "no communicator 12345"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_arguments_are_refused(rank1_of_4, call, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        call(rank1_of_4)


def test_no_group_and_no_collc_raises(rank1_of_4):
    with pytest.raises(ct.FallbackRefused,
                       match="all_reduce: collc cannot serve the call "
                             r"\(no collc communicator for this group\) and "
                             "the communicator has no torch.distributed"):
        ct.all_reduce(torch.ones(4), rank1_of_4)


def test_register_needs_a_collc_communicator(rank1_of_4):
    with pytest.raises(RuntimeError, match="has no collc communicator"):
        rank1_of_4.register(torch.zeros(4))


# ---------------------------------------------------------------------------
# The fallback on gloo, ranks in processes
# ---------------------------------------------------------------------------

def _rank_main(rank, nranks, store, module, queue):
    try:
        dist.init_process_group("gloo", init_method="file://" + store,
                                rank=rank, world_size=nranks)
        comm = ct.init(module)
        failures, ran = [], 0
        for case in cases(nranks, [torch.float32, torch.bfloat16,
                                   torch.int32],
                          ops=("sum", "max", "min", "product")):
            if case.dtype == torch.int32 and case.op == "avg":
                continue
            try:
                result = case.run(case.input(rank).clone(), comm)
                error = case.check(rank, result)
            except Exception as e:  # reported, not raised: every rank goes on
                error = "%r rank %d raised %r" % (case, rank, e)
            ran += 1
            if error:
                failures.append(error)
        # avg (float types only: torch's gloo has no AVG; the fallback
        # divides the sum).
        for case in cases(nranks, [torch.float32], ops=("avg",), seed=7):
            result = case.run(case.input(rank).clone(), comm)
            error = case.check(rank, result)
            ran += 1
            if error:
                failures.append(error)
        # The chained ops (what compiled code calls), forced in eager: the
        # same results, each call replacing the CPU token.
        ct._compiling = lambda: True
        for case in cases(nranks, [torch.float32], seed=11):
            before = ct._tokens[-1]
            result = case.run(case.input(rank).clone(), comm)
            error = case.check(rank, result) or (
                None if ct._tokens[-1] is not before else
                "%r: the token did not move" % case)
            ran += 1
            if error:
                failures.append(error)
        ct._compiling = lambda: False
        strict = ct.Communicator(None, comm.group, rank, nranks, strict=True)
        try:
            ct.all_reduce(torch.ones(3), strict)
            failures.append("strict=True did not refuse a fallback")
        except ct.FallbackRefused as e:
            if "no collc communicator" not in str(e):
                failures.append("strict: %s" % e)
        queue.put((rank, ran, failures, dict(comm.fallbacks)))
        dist.destroy_process_group()
    except BaseException as e:
        queue.put((rank, 0, ["rank %d: %r" % (rank, e)], {}))


@pytest.mark.parametrize("nranks", [2, 3])
def test_every_op_falls_back_to_gloo_correctly(tmp_path, modules_dir, nranks):
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    module = os.path.join(modules_dir, "collectives.collcmod")
    store = str(tmp_path / "store")
    procs = [ctx.Process(target=_rank_main,
                         args=(r, nranks, store, module, queue))
             for r in range(nranks)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    failures = [f for _, _, fs, _ in results for f in fs]
    assert not failures, "\n".join(failures[:20])
    ran = {rank: n for rank, n, _, _ in results}
    assert len(set(ran.values())) == 1 and ran[0] > 100
    # Without a GPU every call falls back, for that reason, and is counted.
    for _, n, _, fallbacks in results:
        assert sum(fallbacks.values()) == n
        assert all("no collc communicator for this group" in k
                   for k in fallbacks)


def test_init_refuses_a_bad_module(tmp_path):
    store = str(tmp_path / "store")
    dist.init_process_group("gloo", init_method="file://" + store, rank=0,
                            world_size=1)
    try:
        with pytest.raises(collc.CollcError):
            ct.init(str(tmp_path / "missing.collcmod"))
    finally:
        dist.destroy_process_group()
