"""Communicators and collectives without a GPU: what Python checks before
the library is called, what the library checks (a NULL communicator), the
allgather bridge, and a machine without a driver."""
import ctypes

import pytest

import collc
from collc import _capi

BF16 = collc.DataType.bfloat16


def dead_comm():
    """A Comm whose handle is gone (destroyed): refused by Python."""
    return collc.Comm(None, None)


def test_a_destroyed_communicator_is_refused():
    c = dead_comm()
    with pytest.raises(collc.InvalidUsage, match="destroyed or aborted"):
        c.all_reduce(0x1000, 0x2000, 8, BF16)
    c.destroy()  # harmless


@pytest.mark.parametrize("call", [
    lambda c: c.all_reduce(0x1000, 0x2000, -1, BF16),
    lambda c: c.all_gather(0x1000, 0x2000, -8, BF16),
    lambda c: c.reduce_scatter_v(0x1000, 0x2000, [4, -4], BF16),
    lambda c: c.all_reduce(-16, 0x2000, 8, BF16),
])
def test_negative_numbers_are_refused(call):
    with pytest.raises(ValueError, match="must not be negative|not an "
                                         "address"):
        call(dead_comm())


@pytest.mark.parametrize("call, what", [
    (lambda c: c.all_reduce(0x1000, 0x2000, 8, "int8"), "dtype"),
    (lambda c: c.all_reduce(0x1000, 0x2000, 8, BF16, op="prod"), "op"),
    (lambda c: c.all_reduce(0x1000, 0x2000, 8.0, BF16), "count"),
    (lambda c: c.all_reduce("buf", 0x2000, 8, BF16), "send"),
    (lambda c: c.broadcast(0x1000, 0x2000, 8, BF16, root=None), "root"),
    (lambda c: c.all_to_all(0x1000, 0x2000, 8, BF16, stream=1.0), "stream"),
])
def test_wrong_types_are_refused(call, what):
    with pytest.raises(TypeError, match=what):
        call(dead_comm())


# Every typed entry point of the library, with a NULL communicator: the
# library's own argument check, with its message.
NULL_CALLS = {
    "collcAllReduce": (None, None, 8, 0, 0, None, None),
    "collcAllGather": (None, None, 8, 0, None, None),
    "collcReduceScatter": (None, None, 8, 0, 0, None, None),
    "collcAllToAll": (None, None, 8, 0, None, None),
    "collcBroadcast": (None, None, 8, 0, 0, None, None),
    "collcReduce": (None, None, 8, 0, 0, 0, None, None),
    "collcScatter": (None, None, 8, 0, 0, None, None),
    "collcGather": (None, None, 8, 0, 0, None, None),
    "collcAllGatherV": (None, 8, None, None, None, 0, None, None),
    "collcReduceScatterV": (None, None, None, 0, 0, None, None),
    "collcAllToAllV": (None, None, None, None, None, None, 0, None, None),
    "collcLaunch": (None, b"all_reduce", None, None, 8, None, 0, 0, None),
    "collcCommGetDeviceHandle": (None, None, None),
}


@pytest.mark.parametrize("name", sorted(NULL_CALLS))
def test_the_library_refuses_a_null_communicator(name):
    lib = collc.library()
    assert getattr(lib, name)(*NULL_CALLS[name]) == 4
    assert b"comm" in lib.collcGetLastError()


def test_init_all_checks_its_devices(modules_dir):
    with collc.Module(modules_dir + "/collectives.collcmod") as m:
        with pytest.raises(ValueError, match="at least one device"):
            collc.Comm.init_all(m, [])
        with pytest.raises(ValueError, match="devices\\[1\\]"):
            collc.Comm.init_all(m, [0, -1])
        with pytest.raises(TypeError, match="allgather must be callable"):
            collc.Comm.init_rank(m, 2, 0, 0, allgather=None)


def test_without_a_driver_creation_says_so(modules_dir, no_gpu):
    with collc.Module(modules_dir + "/collectives.collcmod") as m:
        with pytest.raises(collc.SystemError, match="libcuda.so.1"):
            collc.Comm.init_all(m, [0, 0])
        with pytest.raises(collc.SystemError, match="libcuda.so.1"):
            collc.Comm.init_rank(m, 2, 0, 0, allgather=lambda b: b * 2)


def test_trace_with_a_module_without_hooks_is_refused(modules_dir,
                                                     monkeypatch, tmp_path):
    """COLLC_TRACE with a module compiled without --device-trace would
    record nothing: refused, before the driver is asked anything."""
    monkeypatch.setenv("COLLC_TRACE", str(tmp_path / "trace.json"))
    with collc.Module(modules_dir + "/collectives.collcmod") as m:
        for make in (lambda: collc.Comm.init_all(m, [0]),
                     lambda: collc.Comm.init_rank(m, 2, 0, 0,
                                                  allgather=lambda b: b * 2)):
            with pytest.raises(collc.InvalidUsage,
                               match="COLLC_TRACE=.*trace.json is set, but "
                               "the module \\(collectives.coll\\) was "
                               "compiled without --device-trace"):
                make()


def call_bridge(fn, payload, nranks):
    send = ctypes.create_string_buffer(payload, len(payload))
    recv = ctypes.create_string_buffer(len(payload) * nranks)
    return fn(ctypes.addressof(send), ctypes.addressof(recv), len(payload),
              None), recv.raw


def test_the_allgather_bridge_copies_every_ranks_bytes():
    holder = {}
    fn = collc._allgather_callback(lambda b: b + b[::-1], 2, holder)
    status, got = call_bridge(fn, b"abcd", 2)
    assert status == 0 and got == b"abcddcba" and not holder


def test_the_allgather_bridge_reports_failures():
    holder = {}
    fn = collc._allgather_callback(lambda b: b, 2, holder)
    status, _ = call_bridge(fn, b"abcd", 2)
    assert status == 1
    assert "returned 4 bytes, expected 8 (2 ranks x 4)" in str(
        holder["error"])

    def boom(_):
        raise RuntimeError("the process group is gone")

    holder = {}
    fn = collc._allgather_callback(boom, 2, holder)
    status, _ = call_bridge(fn, b"abcd", 2)
    assert status == 1 and isinstance(holder["error"], RuntimeError)


def test_errors_carry_the_result():
    e = collc.InvalidArgument(4, "x: count is wrong", "collcAllReduce")
    assert (e.result, e.name, e.call) == (4, "collcInvalidArgument",
                                          "collcAllReduce")
    assert str(e) == "collcInvalidArgument: x: count is wrong"
    assert isinstance(e, collc.CollcError)


def test_supports_checks_its_arguments():
    lib = collc.library()
    yes = ctypes.c_int(7)
    assert lib.collcCommSupports(None, 0, 0, 0, ctypes.byref(yes)) == 4
    assert b"comm argument is NULL" in lib.collcGetLastError()
    assert yes.value == 0
    with pytest.raises(TypeError, match="collective must be a "
                                        "collc.Collective"):
        dead_comm().supports("all_reduce_twice", BF16)
    with pytest.raises(collc.InvalidUsage, match="destroyed"):
        dead_comm().supports("all_reduce", BF16)


def test_a_refusal_is_a_reason_without_the_entry_points_name(monkeypatch):
    class Lib:
        def collcCommSupports(self, handle, coll, dtype, op, yes):
            return 0  # success, *supported left 0: refused

        def collcGetLastError(self):
            return (b"collcCommSupports : all_reduce: the module's all_reduce "
                    b"reduces with sum, not max")

    monkeypatch.setattr(collc, "library", lambda: Lib())
    c = collc.Comm(ctypes.c_void_p(1), None)  # live as far as Python knows
    assert c.supports("all_reduce", BF16, "max") == (
        False, "all_reduce: the module's all_reduce reduces with sum, not max")


def test_device_handle_checks_its_arguments():
    with pytest.raises(collc.InvalidUsage, match="destroyed or aborted"):
        dead_comm().device_handle()
    with pytest.raises(TypeError, match="a Window of this communicator"):
        dead_comm().device_handle(window=object())


def test_device_handle_layout_is_the_headers(tmp_path):
    # The ctypes mirror against collc/device/device_comm.h as a C compiler
    # lays it out: size, and every field's offset and size.
    import os
    import shutil
    import subprocess
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    include = os.path.join(os.path.dirname(__file__), "..", "..", "runtime",
                           "include")
    fields = [name for name, _ in _capi.DeviceComm._fields_]
    src = tmp_path / "layout.c"
    src.write_text(
        '#include <stddef.h>\n#include <stdio.h>\n'
        '#include "collc/device/device_comm.h"\n'
        "int main(void) {\n"
        '  printf("%zu\\n", sizeof(collcDeviceComm));\n' +
        "".join('  printf("%%zu %%zu\\n", offsetof(collcDeviceComm, %s), '
                "sizeof(((collcDeviceComm *)0)->%s));\n" % (f, f)
                for f in fields) +
        '  printf("%d %d\\n", COLLC_DEVICE_API_VERSION, '
        "COLLC_DEVICE_SIGNAL_SLOTS);\n  return 0;\n}\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-I", include, "-o", str(exe), str(src)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True,
                         text=True).stdout.split("\n")
    assert int(out[0]) == ctypes.sizeof(_capi.DeviceComm)
    for i, f in enumerate(fields):
        field = getattr(_capi.DeviceComm, f)
        assert out[1 + i] == "%d %d" % (field.offset, field.size), f
    assert out[1 + len(fields)] == "%d %d" % (_capi.DEVICE_API_VERSION,
                                             _capi.DEVICE_SIGNAL_SLOTS)
