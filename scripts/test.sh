#!/usr/bin/env bash
# The test job: install dependencies, build everything, run the lit suite
# (spec, dialect, tool and unit tests), then check that the runtime-only
# build configures and compiles with CUDA and CMake alone.
#   BUILD_DIR (default build), JOBS (default nproc)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD_DIR" -j "$JOBS"

# The runtime-only build must not need MLIR, fmt, nlohmann/json or GoogleTest:
# configure it with the LLVM prefix hidden so a stray dependency fails here.
RT_DIR="$BUILD_DIR-runtime-only"
cmake -S . -B "$RT_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCOLLC_RUNTIME_ONLY=ON -DCMAKE_IGNORE_PREFIX_PATH=/usr/lib/llvm-22 \
  -DCMAKE_DISABLE_FIND_PACKAGE_MLIR=ON -DCMAKE_DISABLE_FIND_PACKAGE_LLVM=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON >/dev/null
ninja -C "$RT_DIR" -j "$JOBS"
echo "runtime-only build: OK ($RT_DIR)"

log=$(mktemp)
set +e
/usr/lib/llvm-22/bin/lit -sv "$BUILD_DIR/test" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
rm -f "$log"
echo "${passed:-0} passed, ${failed:-0} failed"
exit "$status"
