"""The package installs without network from the system's setuptools
(pip install --no-build-isolation), and the installed copy works."""
import os
import shutil
import subprocess
import sys

from conftest import ROOT


def test_pip_installs_it_offline(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(os.path.join(ROOT, "python"), src,
                    ignore=shutil.ignore_patterns("tests", "build",
                                                  "*.egg-info",
                                                  "__pycache__"))
    target = tmp_path / "site"
    p = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-build-isolation",
         "--no-deps", "--no-index", "--target", str(target), str(src)],
        capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    p = subprocess.run(
        [sys.executable, "-c", "import collc; print(collc.__file__, "
         "collc.version())"], env=dict(os.environ, PYTHONPATH=str(target)),
        cwd=str(tmp_path), capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(str(target))
    assert "(0, 1, 0)" in p.stdout
