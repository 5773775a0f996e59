"""The package's tests run without a GPU (CI): the library is the build's
(COLLC_LIBRARY, default build/lib/libcollc.so), the modules the main job's
(COLLC_MODULES, default out/modules)."""
import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("COLLC_LIBRARY",
                      os.path.join(ROOT, "build", "lib", "libcollc.so"))


@pytest.fixture
def modules_dir():
    d = os.environ.get("COLLC_MODULES", os.path.join(ROOT, "out", "modules"))
    if not os.path.exists(os.path.join(d, "collectives.collcmod")):
        pytest.fail("no %s/collectives.collcmod: run scripts/build.sh first (or "
                    "set COLLC_MODULES)" % d)
    return d


@pytest.fixture
def no_gpu():
    """Skips where a CUDA driver is present (these tests check what a
    machine without one reports)."""
    import collc
    try:
        collc.driver_info()
    except collc.SystemError:
        return
    pytest.skip("a CUDA driver is present")
