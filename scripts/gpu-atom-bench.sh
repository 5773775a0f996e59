#!/usr/bin/env bash
# The Atom's per-CTA throughput (bench/atom/atom_throughput.cu, issue 11):
# copy and reduce per datapath against a plain vectorized copy with the same
# CTAs, the kernels on GPU 0: local memory by default; with two GPUs,
# --src-device=1 (reading the peer's memory over NVLink) or --dst-device=1
# (writing it). Run on the GPU machine (needs CUDA and CMake only, nothing
# carried):
#   scripts/gpu-atom-bench.sh [atom_throughput arguments]
# Writes $OUT (default build-gpu/atom-out): atom.json (one record per
# measurement), atom.log, env.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1

OUT=${OUT:-build-gpu/atom-out}
BUILD=${BUILD:-build-gpu/atom}
mkdir -p "$OUT" "$BUILD"
{
  date -u '+%Y-%m-%d %H:%M:%S UTC'
  nvidia-smi --query-gpu=index,name,driver_version,compute_cap \
    --format=csv,noheader
  nvcc --version | tail -2
  echo "${COLLC_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
} >"$OUT/env.txt" 2>&1
cmake -S bench/atom -B "$BUILD" -G Ninja >/dev/null &&
  ninja -C "$BUILD" >"$OUT/build.log" 2>&1 || {
  tail -20 "$OUT/build.log"
  exit 2
}
machine=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
"$BUILD/atom_throughput" --json="$OUT/atom.json" --machine="$machine" \
  --date="$(date -u +%Y-%m-%d)" "$@" | tee "$OUT/atom.log"
exit "${PIPESTATUS[0]}"
