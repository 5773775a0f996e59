#!/usr/bin/env bash
# The speed proof of SNAC v2 programs before the emitter lands (issue 10):
# builds test/gpu/programs/allreduce_probe.cu (the contract's one-shot
# AllReduce, bf16, 2 ranks, each encoding, hand-written) with nvcc and runs
# it on the GPU machine: correctness (bitwise, fresh data, poisoned outputs),
# a timeout and a sequence mismatch, then the latency sweep over the work
# assignment. Needs nothing but the tree (no module, no collc).
#   scripts/gpu-programs-probe.sh [--quick]
# Writes $OUT (default build-gpu/probe): probe.log, probe.json, env.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1

OUT=${OUT:-build-gpu/probe}
mkdir -p "$OUT" build-gpu
{
  date -u '+%Y-%m-%d %H:%M:%S UTC'
  nvidia-smi --query-gpu=index,name,driver_version,compute_cap \
    --format=csv,noheader
  nvcc --version | tail -2
} >"$OUT/env.txt" 2>&1
machine=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
nvcc -std=c++17 -O2 -arch=sm_90 -Iruntime/include \
  test/gpu/programs/allreduce_probe.cu -o build-gpu/allreduce_probe ||
  exit 2
build-gpu/allreduce_probe --json="$OUT/probe.json" --machine="$machine" \
  --date="$(date -u +%Y-%m-%d)" "$@" 2>&1 | tee "$OUT/probe.log"
