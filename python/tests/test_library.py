"""Loading libcollc: its version against the header, error strings, a
library that is missing or is not libcollc, a machine without a driver."""
import os
import re
import subprocess
import sys

import collc
from collc import _capi
from conftest import ROOT


def header_version():
    text = open(os.path.join(ROOT, "runtime", "include", "collc",
                             "collc.h")).read()
    return tuple(int(re.search(r"#define COLLC_%s (\d+)" % k, text).group(1))
                 for k in ("MAJOR", "MINOR", "PATCH"))


def test_version_is_the_headers():
    assert collc.version() == header_version()
    assert (_capi.MAJOR, _capi.MINOR, _capi.PATCH) == header_version()


def test_every_result_has_a_description():
    texts = [collc.error_string(r) for r in range(8)]
    assert all(texts)
    assert len(set(texts)) == 8
    assert "unknown" in collc.error_string(99)


def load_in_subprocess(library):
    env = dict(os.environ, COLLC_LIBRARY=library)
    return subprocess.run(
        [sys.executable, "-c", "import collc; collc.version()"], env=env,
        cwd=os.path.join(ROOT, "python"), capture_output=True, text=True)


def test_a_missing_library_is_named():
    p = load_in_subprocess("/nonexistent/libcollc.so")
    assert p.returncode != 0
    assert "LibraryNotFound" in p.stderr
    assert "cannot load libcollc from $COLLC_LIBRARY: " \
           "/nonexistent/libcollc.so: no such file" in p.stderr


def test_another_library_is_refused():
    p = load_in_subprocess("libm.so.6")
    assert p.returncode != 0
    assert "libm.so.6: not libcollc (no collcGetErrorString)" in p.stderr


def test_no_driver_says_so(no_gpu):
    try:
        collc.driver_info()
    except collc.SystemError as e:
        assert e.result == 2 and e.name == "collcSystemError"
        assert "libcuda.so.1" in str(e)
    else:
        raise AssertionError("driver_info() did not raise")
