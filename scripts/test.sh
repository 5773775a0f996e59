#!/usr/bin/env bash
# The test job: install dependencies, build everything, check that the
# runtime-only build configures and compiles with CUDA and CMake alone, run
# the main job (scripts/build.sh: modules of the spec library), the lit suite
# (spec, dialect, tool, interpreter, target and unit tests), and every command
# of README.md's "Using collc" as written.
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

# The main job, as a newcomer runs it (its modules are what the README's
# commands use).
BUILD_DIR="$BUILD_DIR" JOBS="$JOBS" bash scripts/build.sh

log=$(mktemp)
set +e
# module-library.test checks the main job's modules (out/modules) rather
# than compiling the library again.
/usr/lib/llvm-22/bin/lit -sv --param library_modules="$PWD/${OUT_DIR:-out}/modules" \
  "$BUILD_DIR/test" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
bash scripts/check-readme.sh 2>&1 | tee -a "$log"
readme_status=${PIPESTATUS[0]}
# The Python package's tests (python/tests: no GPU), with Debian's pytest on
# the system's python3, against this build's library and modules.
pylog=$(mktemp)
COLLC_LIBRARY="$PWD/$BUILD_DIR/lib/libcollc.so" \
  COLLC_MODULES="$PWD/${OUT_DIR:-out}/modules" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests 2>&1 |
  tee "$pylog"
py_status=${PIPESTATUS[0]}
set -e
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
readme_passed=$(grep -c '^PASS: readme:' "$log" || true)
readme_failed=$(grep -c '^FAIL: readme:' "$log" || true)
# pytest's last line: "N passed", "M failed", "K errors" (setup failures).
py_count() {
  sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p;s/^\([0-9][0-9]*\) $1.*/\1/p" "$pylog" | tail -1
}
py_passed=$(py_count passed)
py_failed=$(($(py_count failed || true) + $(py_count error || true) + 0))
[ "$py_status" -eq 0 ] || [ "$py_failed" -gt 0 ] || py_failed=1
rm -f "$log" "$pylog"
echo "$((${passed:-0} + readme_passed + ${py_passed:-0})) passed, $((${failed:-0} + readme_failed + ${py_failed:-0})) failed"
[ "$status" -eq 0 ] && [ "$readme_status" -eq 0 ] && [ "$py_status" -eq 0 ]
