"""Modules: loading from a file and from bytes, and what is refused."""
import os

import pytest

import collc


def test_a_module_loads_from_a_file_and_from_bytes(modules_dir):
    path = os.path.join(modules_dir, "collectives.collcmod")
    with collc.Module(path) as m:
        assert m.handle.value
    with open(path, "rb") as f:
        m = collc.Module(data=f.read())
    assert m.handle.value
    m.close()
    m.close()  # closing twice is harmless
    with pytest.raises(collc.InvalidUsage, match="the module was closed"):
        m.handle


def test_a_missing_file_is_named():
    with pytest.raises(collc.InvalidArgument,
                       match="cannot open module file "
                             "'/nonexistent/x.collcmod'"):
        collc.Module("/nonexistent/x.collcmod")


def test_corrupt_bytes_are_refused(modules_dir):
    with pytest.raises(collc.InvalidArgument, match="not valid JSON"):
        collc.Module(data=b"garbage")
    with open(os.path.join(modules_dir, "collectives.collcmod"), "rb") as f:
        data = f.read()
    with pytest.raises(collc.InvalidArgument):
        collc.Module(data=data[:len(data) // 2])


def test_path_or_data_not_both():
    with pytest.raises(TypeError, match="a path or data="):
        collc.Module()
    with pytest.raises(TypeError, match="a path or data="):
        collc.Module("x", data=b"")
