# -*- Python -*-
# lit configuration for collc: spec, dialect, tool and unit tests.

import os
import sys

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "collc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".coll", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "check_module.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.collc_obj_root, "test")

# Make FileCheck variables local to a CHECK-LABEL block unless prefixed with $.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%collc_src_root", config.collc_src_root))
config.substitutions.append(("%spec_dir", config.collc_spec_dir))
# The main job's modules of the spec library (scripts/test.sh passes
# --param library_modules=DIR after building them with the same collc):
# Target/Module/module-library.test checks those instead of compiling the
# library a second time; without the parameter it compiles its own.
config.substitutions.append(
    ("%library_modules", lit_config.params.get("library_modules", "")))
# The toolkit's stub libcuda, linked as libcuda.so.1 by test/unit/runtime.
config.substitutions.append(
    ("%stub_driver_dir", os.path.join(config.collc_obj_root, "test", "unit", "runtime", "stub-driver")))

# The runtime library itself (test/Runtime/no-multicast.test reads it).
config.substitutions.append(
    ("%libcollc", os.path.join(config.collc_obj_root, "lib", "libcollc.so")))

llvm_config.use_default_substitutions()
config.substitutions.append(("%python", sys.executable))
# The CUDA toolkit's ptxas checks the PTX collc emits.
ptxas = os.path.join(config.cuda_bin_dir, "ptxas")
config.substitutions.append(("%ptxas", ptxas))
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = [
    ToolSubst("collc", unresolved="fatal"),
    ToolSubst("collc-opt", unresolved="fatal"),
    ToolSubst("collc-translate", unresolved="fatal"),
    ToolSubst("collc-unit-tests", unresolved="fatal"),
    ToolSubst("collc-sim-model-tests", unresolved="fatal"),
    ToolSubst("collc-bench-partitions-tests", unresolved="fatal"),
    ToolSubst("collc-runtime-unittests", unresolved="fatal"),
    ToolSubst("collc-runtime-stub-driver-test", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.collc_tools_dir, config.llvm_tools_dir])
