#!/usr/bin/env bash
# The device API's examples on the GPU machine (issue 16): builds libcollc
# and examples/device-api with nvcc, runs each with ranks in one process
# (2 and 4 ranks sharing GPU 0, and one rank per GPU where there are
# several), eager and CUDA graph, every result checked against the host
# reference, then the stalled-rank check (the others' waits must time out
# with collc's message).
#
#   scripts/gpu-device-api.sh prepare   here (CPU): out/modules and .deps
#   scripts/gpu-device-api.sh run       there, with "out/modules" and
#                                       ".deps" carried; log under $OUT
#                                       (default build-gpu/device-api-out)
#
# Environment (run): LAYOUTS (space-separated device lists, default
# "0,0 0,0,0,0" plus "0,1" with two GPUs), ARCH (default sm_90).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1
# One thread launches every rank's kernel: no module load between them.
export CUDA_MODULE_LOADING=EAGER

# prepare_modules_and_deps, build_runtime.
. scripts/lib/gpu-measurer.sh

prepare() {
  prepare_modules_and_deps gpu-device-api
}

run() {
  local out=${OUT:-build-gpu/device-api-out} build=build-gpu/runtime
  local bin=build-gpu/device-api status=0 ex layout gpus
  mkdir -p "$out" "$bin"
  gpus=$(nvidia-smi --list-gpus | wc -l)
  local layouts=${LAYOUTS:-"0,0 0,0,0,0$([ "$gpus" -gt 1 ] && echo " 0,1")"}
  {
    date -u '+%Y-%m-%d %H:%M:%S UTC'
    nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
    nvcc --version | tail -1
    echo "commit ${COLLC_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
    build_runtime "$build" "$out/build.log"
    for ex in matmul_allgather residual_allreduce; do
      nvcc -std=c++17 -O2 -arch="${ARCH:-sm_90}" -I runtime/include \
        -o "$bin/$ex" "examples/device-api/$ex.cu" -L"$build" -lcollc ||
        { echo "FAIL build $ex"; exit 2; }
    done
    for ex in matmul_allgather residual_allreduce; do
      for layout in $layouts; do
        echo "== $ex --devices $layout"
        LD_LIBRARY_PATH=$build timeout 120 "$bin/$ex" \
          --module out/modules/collectives.collcmod --devices "$layout" ||
          status=1
      done
      echo "== $ex --devices 0,0 --stall 1"
      LD_LIBRARY_PATH=$build timeout 120 "$bin/$ex" \
        --module out/modules/collectives.collcmod --devices 0,0 --stall 1 ||
        status=1
    done
    echo "gpu-device-api: exit status $status"
    exit $status
  } 2>&1 | tee "$out/device-api.log"
  return "${PIPESTATUS[0]}"
}

case ${1:-} in
prepare) prepare ;;
run) run ;;
*)
  echo "usage: scripts/gpu-device-api.sh prepare|run" >&2
  exit 2
  ;;
esac
