"""The fallback decision (collc.dispatch) on stand-in communicators: what
goes to collc, what falls back and why, counting, logging once, strict
mode, and errors that must not be hidden."""
import logging

import pytest

import collc
from collc.dispatch import Dispatcher, FallbackRefused


class FakeComm:
    """supports(): bf16 and f32 sum AllReduce, any AllGather; counts the
    questions."""

    def __init__(self):
        self.asked = 0

    def supports(self, collective, dtype, op):
        self.asked += 1
        if collective == collc.Collective.all_gather:
            return True, None
        if collective != collc.Collective.all_reduce:
            return False, "no collective computing %s" % collective.name
        if dtype not in (collc.DataType.bfloat16, collc.DataType.float32):
            return False, "no kernel for %s at 2 ranks" % dtype.name
        if op != collc.RedOp.sum:
            return False, "reduces with sum, not %s" % op.name
        return True, None


def test_what_collc_serves_goes_to_collc():
    d = Dispatcher(FakeComm())
    assert d.run("all_reduce", "bfloat16", lambda: "collc",
                 lambda: "nccl") == "collc"
    assert d.run(collc.Collective.all_gather, "float16", lambda: "collc",
                 lambda: "nccl") == "collc"
    assert d.collc_calls == 2 and not d.fallbacks


@pytest.mark.parametrize("kwargs, why", [
    (dict(collective="all_reduce", dtype="int32"),
     "collc has no element type int32"),
    (dict(collective="all_reduce", dtype="float16"),
     "no kernel for float16 at 2 ranks"),
    (dict(collective="all_reduce", dtype="float32", op="max"),
     "reduces with sum, not max"),
    (dict(collective="all_to_all", dtype="float32"),
     "no collective computing all_to_all"),
    (dict(collective="all_reduce", dtype="float32", contiguous=False),
     "a tensor is not contiguous"),
])
def test_what_collc_cannot_serve_falls_back(kwargs, why):
    d = Dispatcher(FakeComm())
    assert d.reason(**kwargs) == why
    ran = d.run(collc_call=lambda: pytest.fail("collc called"),
                fallback_call=lambda: "nccl", **kwargs)
    assert ran == "nccl"
    assert list(d.fallbacks.values()) == [1]
    assert why in list(d.fallbacks)[0]


def test_a_reason_naming_its_collective_is_not_prefixed_twice():
    d = Dispatcher(FakeComm())
    d._fall_back("all_reduce", "all_reduce: the module's all_reduce reduces "
                 "with sum, not max", lambda: None)
    d._fall_back("all_reduce", "collc has no element type int32",
                 lambda: None)
    assert sorted(d.fallbacks) == [
        "all_reduce: collc has no element type int32",
        "all_reduce: the module's all_reduce reduces with sum, not max"]


def test_no_communicator_falls_back():
    d = Dispatcher(None)
    assert d.reason("all_reduce", "bfloat16") == \
        "no collc communicator for this group"


def test_a_refused_call_falls_back_with_its_reason():
    d = Dispatcher(FakeComm())

    def refused():
        raise collc.InvalidArgument(4, "collcAllReduce : all_reduce: rank 0:"
                                       " recvbuff is not aligned")

    assert d.run("all_reduce", "float32", refused, lambda: "nccl") == "nccl"
    (reason, calls), = d.fallbacks.items()
    assert "recvbuff is not aligned" in reason and calls == 1


def test_other_errors_are_not_hidden():
    d = Dispatcher(FakeComm())

    def timed_out():
        raise collc.Timeout(6, "rank 1 never signalled")

    with pytest.raises(collc.Timeout):
        d.run("all_reduce", "float32", timed_out, lambda: "nccl")
    assert not d.fallbacks


def test_supports_is_asked_once_per_key_and_logged_once(caplog):
    comm = FakeComm()
    d = Dispatcher(comm)
    with caplog.at_level(logging.INFO, logger="collc"):
        for _ in range(5):
            d.run("all_reduce", "float16", lambda: "collc", lambda: "nccl")
            d.run("all_reduce", "float32", lambda: "collc", lambda: "nccl")
    assert comm.asked == 2
    assert d.collc_calls == 5
    assert list(d.fallbacks.values()) == [5]
    infos = [r for r in caplog.records if r.levelno == logging.INFO]
    assert len(infos) == 1
    assert "all_reduce falls back to torch.distributed: no kernel for " \
           "float16" in infos[0].getMessage()


def test_strict_turns_a_fallback_into_an_error():
    d = Dispatcher(FakeComm(), strict=True)
    with pytest.raises(FallbackRefused, match="all_reduce: collc has no "
                                              "element type int8"):
        d.run("all_reduce", "int8", lambda: "collc", lambda: "nccl")
