#!/usr/bin/env bash
# The benchmark (issue 12): collc-bench --run (bench/collc-bench/sweep.py)
# on the GPU machine: the shipped module's typed calls (the runtime's choice
# by its policy table; ordinary and registered buffers; out of place and in
# place) against NCCL (ordinary buffers and symmetric windows) and PyTorch
# symmetric memory (one-shot and two-shot AllReduce), every collective, bf16,
# each configuration checked before it is timed; the table with ratios, the
# JSON records and the plots.
#
#   scripts/gpu-bench.sh prepare   here (CPU): .deps (JSON headers); checks
#                                  that out/modules/collectives.collcmod
#                                  exists (scripts/build.sh)
#   scripts/gpu-bench.sh run       on the GPU machine, with "out/modules"
#                                  and ".deps" carried: builds the runtime
#                                  and the measurer (bench/bandwidth, with
#                                  NCCL), runs collc-bench --run under $OUT
#                                  (default build-gpu/bench-out)
#
# Environment (run): GPUS (default: every GPU of the machine; rank q on GPU
# q % GPUS), RANKS (default: GPUS when above 1, else 1,2,4,8: one GPU has no
# link, NCCL and symmetric memory need a GPU per rank, so there they run at
# 1 rank only, beside collc's ranks sharing the GPU), SIZES (default
# collc-bench's: 8 B to 1 GiB by 4, and 3000, 100000, 3000000 bytes),
# COLLECTIVES (default: the four fixed ones and all_gather_v,
# reduce_scatter_v, all_to_all_v, those from VMODULE, default
# out/modules/variable.collcmod, with Purlin's Zipf split), PLACEMENT
# (default out,in), BASELINES (default nccl,symm),
# LIMIT (seconds for everything, build included; default 560), MODULE
# (default out/modules/collectives.collcmod), NCCL_ROOT (another NCCL than
# the system's, e.g. PyTorch's wheel), PYTHON (default: a python3 that
# imports torch and matplotlib), MACHINE.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1

BENCH=bench/collc-bench/collc-bench
# build_measurer, env_txt, machine_name.
. scripts/lib/gpu-measurer.sh

prepare() {
  prepare_modules_and_deps gpu-bench
}

# The first python that imports torch (and matplotlib, for the plots).
pick_python() {
  local p
  for p in ${PYTHON:-} python3 /opt/torch/.venv/bin/python3; do
    if "$p" -c 'import torch, matplotlib' >/dev/null 2>&1; then
      echo "$p"
      return
    fi
  done
  echo python3
}

run() {
  local out=${OUT:-build-gpu/bench-out} limit=${LIMIT:-560} start=$SECONDS
  local module=${MODULE:-out/modules/collectives.collcmod} status budget
  local gpus=${GPUS:-$(nvidia-smi --list-gpus | wc -l)} ranks py
  build=${BUILD:-build-gpu/bandwidth}
  if [ -n "${RANKS:-}" ]; then
    ranks=$RANKS
  elif [ "$gpus" -gt 1 ]; then
    ranks=$gpus
  else
    ranks=1,2,4,8
  fi
  mkdir -p "$out" "$build"
  [ -s "$module" ] || {
    echo "gpu-bench: no $module: build it (scripts/build.sh) and carry out/modules" >&2
    exit 2
  }
  py=$(pick_python)
  {
    env_txt
    echo "python $py: $("$py" -c 'import torch; print("torch", torch.__version__)' 2>&1)"
    echo "COLLC_COMMIT=${COLLC_COMMIT:-unknown} module $module"
    echo "GPUS=$gpus RANKS=$ranks SIZES=${SIZES:-default} LIMIT=$limit NCCL_ROOT=${NCCL_ROOT:-system}"
  } >"$out/env.txt" 2>&1
  build_measurer "$out/build.log"
  grep -h "collc_bandwidth: " "$out/build.log" | head -2
  budget=$((limit - (SECONDS - start) - 20))
  echo "gpu-bench: budget $budget s (OUT=$out)"
  [ "$budget" -gt 30 ] || {
    echo "gpu-bench: less than 30 s left for the benchmark (LIMIT=$limit)" >&2
    exit 2
  }
  timeout --signal=TERM --kill-after=10 $((budget + 20)) \
    "$py" "$BENCH" --run --module "$module" \
    --measurer "$build/collc_bandwidth" --gpus "$gpus" --ranks "$ranks" \
    --variable-module "${VMODULE:-out/modules/variable.collcmod}" \
    ${SIZES:+--sizes "$SIZES"} ${COLLECTIVES:+--collectives "$COLLECTIVES"} \
    --placement "${PLACEMENT:-out,in}" --baselines "${BASELINES-nccl,symm}" \
    --symm "$py bench/bandwidth/symm_mem.py" \
    --target sm_90 --machine "$(machine_name)" --date "$(date -u +%Y-%m-%d)" \
    --budget-s "$budget" --out "$out"
  status=$?
  [ $status = 124 ] &&
    echo "gpu-bench: collc-bench ended by timeout; what it wrote so far is in $out" >&2
  echo "gpu-bench: $((SECONDS - start)) s in all (exit status $status)"
  return $status
}

case ${1:-} in
prepare) prepare ;;
run) run ;;
*)
  echo "usage: scripts/gpu-bench.sh prepare|run" >&2
  exit 2
  ;;
esac
