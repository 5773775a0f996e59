#!/usr/bin/env bash
# collc from PyTorch on the GPU machine (issue 13): builds libcollc, then
# runs test/gpu/torch/run.py (every op of collc.torch checked against the
# collective's definition: eager, CUDA graphs, torch.compile, registered
# tensors, and with one process per rank the fallback to torch.distributed)
# and the tensor-parallel MLP example (examples/tp_mlp.py).
#
#   scripts/gpu-torch.sh prepare   here (CPU): .deps (JSON headers); checks
#                                  that out/modules/collectives.collcmod
#                                  exists (scripts/build.sh)
#   scripts/gpu-torch.sh run       on the GPU machine, with "out/modules"
#                                  and ".deps" carried; logs under $OUT
#                                  (default build-gpu/torch-out)
#
# Environment (run): RANKS (ranks in one process, default 2,8), PROCS
# (processes, one rank each, default: the GPUs when above 1, else 2:
# sharing GPU 0, over gloo), GPUS (default: every GPU), PYTHON (default: a
# python3 that imports torch), MODULE (comma-separated, default the
# library: out/modules/collectives.collcmod,out/modules/variable.collcmod),
# EXAMPLE_RANKS (default 2; 0: no tp_mlp example), RUN_LIMIT (seconds of
# run.py, default 420), RUN_ARGS (more run.py arguments, e.g.
# "--stacks-after 200"). RANKS=, runs no in-process part.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1
# Ranks of one process (and processes sharing a GPU) must not load a kernel
# lazily between collectives (collc.torch's docstring).
export CUDA_MODULE_LOADING=EAGER
# Lines reach the log as they are printed, also from a run the limit kills.
export PYTHONUNBUFFERED=1

# prepare_modules_and_deps, build_runtime.
. scripts/lib/gpu-measurer.sh

prepare() {
  prepare_modules_and_deps gpu-torch
}

pick_python() {
  local p
  for p in ${PYTHON:-} python3 /opt/torch/.venv/bin/python3; do
    if "$p" -c 'import torch' >/dev/null 2>&1; then
      echo "$p"
      return
    fi
  done
  echo "gpu-torch: no python3 imports torch (set PYTHON)" >&2
  exit 2
}

run() {
  local out=${OUT:-build-gpu/torch-out} build=build-gpu/runtime py status=0
  local module=${MODULE:-out/modules/collectives.collcmod,out/modules/variable.collcmod}
  local gpus=${GPUS:-$(nvidia-smi --list-gpus | wc -l)} procs
  procs=${PROCS:-$([ "$gpus" -gt 1 ] && echo "$gpus" || echo 2)}
  mkdir -p "$out"
  py=$(pick_python)
  {
    date -u '+%Y-%m-%d %H:%M:%S UTC'
    nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
    echo "python $py: $("$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)')"
    echo "COLLC_COMMIT=${COLLC_COMMIT:-unknown} module $module GPUS=$gpus RANKS=${RANKS:-2,8} PROCS=$procs"
  } >"$out/env.txt" 2>&1
  cat "$out/env.txt"
  build_runtime "$build" "$out/build.log"
  timeout "${RUN_LIMIT:-420}" "$py" test/gpu/torch/run.py --module "$module" --ranks "${RANKS:-2,8}" \
    --procs "$procs" --gpus "$gpus" --out "$out" ${RUN_ARGS:-} 2>&1 | tee "$out/run.log"
  status=${PIPESTATUS[0]}
  if [ "${EXAMPLE_RANKS:-2}" = 0 ]; then
    :
  elif [ "$gpus" -gt 1 ]; then
    timeout 300 "$py" -m torch.distributed.run --nproc-per-node "$gpus" \
      examples/tp_mlp.py --module "${module%%,*}"
  else
    timeout 300 "$py" examples/tp_mlp.py --module "${module%%,*}" \
      --ranks "${EXAMPLE_RANKS:-2}"
  fi 2>&1 | tee "$out/tp_mlp.log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  echo "gpu-torch: exit status $status"
  return $status
}

case ${1:-} in
prepare) prepare ;;
run) run ;;
*)
  echo "usage: scripts/gpu-torch.sh prepare|run" >&2
  exit 2
  ;;
esac
