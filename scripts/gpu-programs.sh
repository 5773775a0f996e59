#!/usr/bin/env bash
# SNAC v2 programs on the GPU machine before the emitter lands (issue 10):
#  probe:   test/gpu/programs/allreduce_probe.cu, the contract's one-shot
#           AllReduce (bf16, 2 ranks, each encoding) hand-written: bitwise
#           correctness, a timeout and a sequence mismatch, and the latency
#           sweep over the work assignment (CTAs, threads, grain);
#  runtime: test/gpu/programs/kernels.cu (every unrooted collective, 2 and 3
#           ranks, each encoding) wrapped in a module by make_module.py and
#           run through libcollc's C API (runtime_programs.cpp): routing,
#           COLLC_FORCE_VARIANT, receive buffers, graph replay, timeouts,
#           per-call time through the runtime.
#  v1:      the v1 kernels of out/modules/v1-baseline.collcmod
#           (test/gpu/programs/v1-baseline.coll: the four collectives, bf16,
#           2 and 8 ranks, sm_90; scripts/gpu-prepare.sh builds it; carry
#           "out") through the same test and timings (COLLC_FORCE_VARIANT=v1):
#           the same-run baseline.
#  library: the library's configuration (the same module, default policy:
#           programs up to 64 KiB) at 2 and 8 ranks, the default routing and
#           v1 forced, in one run: library.log, library.json.
#  rooted:  out/modules/programs-ll16.collcmod (the eight collectives of the
#           library, rooted ones included, with their v1 kernels) at 2 and
#           8 ranks, the ll16 programs and v1 forced in one run, the root
#           moving every eager call: rooted.log, rooted.json.
#   scripts/gpu-programs.sh [probe] [runtime] [v1] [library] [rooted]
#                                               (default: probe runtime)
# Needs .deps/include/nlohmann (scripts/gpu-prepare.sh copies it; carry
# ".deps"). Writes $OUT (default build-gpu/programs-out): env.txt,
# probe.log, probe.json, runtime.log, runtime.json, v1.log, v1.json,
# build.log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1

OUT=${OUT:-build-gpu/programs-out}
BUILD=${BUILD:-build-gpu/programs}
PHASES=("$@")
[ ${#PHASES[@]} -eq 0 ] && PHASES=(probe runtime)
mkdir -p "$OUT" "$BUILD"
{
  date -u '+%Y-%m-%d %H:%M:%S UTC'
  nvidia-smi --query-gpu=index,name,driver_version,compute_cap \
    --format=csv,noheader
  nvcc --version | tail -2
  git rev-parse HEAD 2>/dev/null || echo "${COLLC_COMMIT:-unknown commit}"
} >"$OUT/env.txt" 2>&1
machine=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
today=$(date -u +%Y-%m-%d)

{
  cmake -S test/gpu/programs -B "$BUILD" -G Ninja \
    -DCOLLC_JSON_INCLUDE_DIR="$PWD/.deps/include" &&
    ninja -C "$BUILD" -j "$(nproc)" &&
    nvcc -std=c++17 -arch=sm_90 -Iruntime/include -ptx \
      test/gpu/programs/kernels.cu -o "$BUILD/kernels.ptx" &&
    python3 test/gpu/programs/make_module.py "$BUILD/kernels.ptx" \
      "$BUILD/programs.collcmod"
} >"$OUT/build.log" 2>&1 || {
  tail -30 "$OUT/build.log"
  exit 2
}

status=0
# runtime_programs on module $2 with the rest of its arguments, into
# $OUT/$1.{log,json}: failures and the timings printed.
run_programs() {
  local name=$1 module=$2
  shift 2
  "$BUILD/runtime_programs" "$module" "$@" --json="$OUT/$name.json" \
    --machine="$machine" --date="$today" >"$OUT/$name.log" 2>&1 || status=1
  grep -E '^(FAIL|FATAL|SKIP)|passed, ' "$OUT/$name.log" | head -40
  grep -E '^runtime ' "$OUT/$name.log"
}
for phase in "${PHASES[@]}"; do
  case $phase in
  probe)
    "$BUILD/allreduce_probe" --json="$OUT/probe.json" --machine="$machine" \
      --date="$today" >"$OUT/probe.log" 2>&1 || status=1
    grep -vE '^(program|empty|frame) ' "$OUT/probe.log" | tail -20
    ;;
  runtime)
    run_programs runtime "$BUILD/programs.collcmod"
    ;;
  v1)
    run_programs v1 out/modules/v1-baseline.collcmod --encodings=v1 --ranks=2,8
    ;;
  library)
    run_programs library out/modules/v1-baseline.collcmod \
      --encodings=ll16,v1 --ranks=2,8
    ;;
  rooted)
    run_programs rooted out/modules/programs-ll16.collcmod \
      --encodings=ll16,v1 --ranks=2,8
    ;;
  *)
    echo "gpu-programs: unknown phase '$phase' (probe, runtime, v1, library, rooted)" >&2
    exit 2
    ;;
  esac
done
exit $status
