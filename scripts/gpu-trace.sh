#!/usr/bin/env bash
# Device timelines on the GPU machine (issue 15): AllReduce at 1 KiB and
# 256 MiB, 2 ranks sharing GPU 0, through a module compiled with
# `collc --device-trace`; the traces (Chrome JSON) and their pictures.
#
#   scripts/gpu-trace.sh prepare   here (CPU): out/trace/collectives.collcmod
#                                  (sm_90, --device-trace) and .deps
#   scripts/gpu-trace.sh run       there, with "out/trace" and ".deps"
#                                  carried: builds libcollc, writes
#                                  allreduce-<bytes>.json under $OUT
#                                  (default build-gpu/trace-out)
#   scripts/gpu-trace.sh exchange  there, with "out/trace" and ".deps"
#                                  carried: AllToAll and AllToAll_v at
#                                  SIZES (default 1024) replayed from CUDA
#                                  graphs (bench/trace/exchange_trace.py),
#                                  through out/trace/collectives.collcmod
#                                  and each out/trace/variable*.collcmod,
#                                  AllToAll also forced to VARIANTS (default
#                                  one_shot:flag); the traces and
#                                  bench/trace/call_gaps.py's tables
#   scripts/gpu-trace.sh plot DIR  here: a PNG per trace in DIR
#                                  (compiler/tools/collc-trace-plot)
#   scripts/gpu-trace.sh cost      there, with "out" and ".deps" carried:
#                                  the latency of AllReduce (2 ranks sharing
#                                  GPU 0, 8 B to 1 MiB) through the shipped
#                                  module and through out/trace's without
#                                  COLLC_TRACE (scripts/gpu-bench.sh, the
#                                  same method), compared by
#                                  bench/trace/trace_cost.py into cost.md
#                                  under $OUT (default build-gpu/trace-cost)
#
# Environment (run): SIZES (bytes, default 1024,268435456), RANKS (default
# 2), PYTHON (default: a python3 that imports torch).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1

# build_runtime.
. scripts/lib/gpu-measurer.sh

prepare() {
  mkdir -p out/trace .deps/include
  build/bin/collc specs/collectives.coll --emit=module --device-trace \
    --target=sm_90 --policy-table=specs/collectives.policy.json \
    -o out/trace/collectives.collcmod || exit 2
  rm -rf .deps/include/nlohmann
  cp -r /usr/include/nlohmann .deps/include/
  echo "ready: carry [\"out/trace\", \".deps\"] and run scripts/gpu-trace.sh run on the GPU machine"
}

run() {
  local out=${OUT:-build-gpu/trace-out} build=build-gpu/runtime py status=0 b
  mkdir -p "$out"
  py=${PYTHON:-python3}
  "$py" -c 'import torch' 2>/dev/null || py=/opt/torch/.venv/bin/python3
  build_runtime "$build" "$out/build.log"
  local sizes=${SIZES:-1024,268435456}
  for b in ${sizes//,/ }; do
    COLLC_TRACE=$out/allreduce-$b.json timeout 120 "$py" \
      bench/trace/allreduce_trace.py --module out/trace/collectives.collcmod \
      --bytes "$b" --ranks "${RANKS:-2}" || status=1
  done
  ls -la "$out"
  return $status
}

exchange() {
  local out=${OUT:-build-gpu/trace-out} build=build-gpu/runtime py status=0
  local b m v name
  mkdir -p "$out"
  py=${PYTHON:-python3}
  "$py" -c 'import torch' 2>/dev/null || py=/opt/torch/.venv/bin/python3
  build_runtime "$build" "$out/build.log"
  trace() { # name, then exchange_trace.py's arguments
    local name=$1
    shift
    COLLC_TRACE=$out/$name.json timeout 120 "$py" \
      bench/trace/exchange_trace.py "$@" || status=1
    python3 bench/trace/call_gaps.py "$out/$name.json" >"$out/$name.md" &&
      cat "$out/$name.md"
  }
  for b in ${SIZES:-1024}; do
    for r in ${RANKS:-2}; do
      trace "a2a-n$r-$b" --module out/trace/collectives.collcmod \
        --collective all_to_all --bytes "$b" --ranks "$r"
      for v in ${VARIANTS:-one_shot:flag}; do
        COLLC_FORCE_VARIANT=$v trace "a2a-${v//:/-}-n$r-$b" \
          --module out/trace/collectives.collcmod --collective all_to_all \
          --bytes "$b" --ranks "$r"
      done
      for m in out/trace/variable*.collcmod; do
        name=$(basename "$m" .collcmod)
        trace "a2av-$name-n$r-$b" --module "$m" --collective all_to_all_v \
          --bytes "$b" --ranks "$r"
      done
    done
  done
  return $status
}

plot() {
  local dir=${1:?usage: scripts/gpu-trace.sh plot DIR} f
  for f in "$dir"/*.json; do
    compiler/tools/collc-trace-plot/collc-trace-plot "$f" -o "${f%.json}.png" \
      --title "$(basename "${f%.json}")" || return 1
  done
}

cost() {
  local out=${OUT:-build-gpu/trace-cost} m
  mkdir -p "$out"
  unset COLLC_TRACE
  for m in modules trace; do
    OUT=$out/$m MODULE=out/$m/collectives.collcmod COLLECTIVES=all_reduce \
      RANKS=2 SIZES=${SIZES:-8,64,512,4096,32768,262144,1048576} \
      PLACEMENT=out BASELINES= LIMIT=${LIMIT:-240} \
      bash scripts/gpu-bench.sh run >"$out/$m.log" 2>&1 || {
      tail -20 "$out/$m.log"
      return 1
    }
  done
  python3 bench/trace/trace_cost.py "$out/modules/bench.json" \
    "$out/trace/bench.json" | tee "$out/cost.md"
}

case ${1:-} in
prepare) prepare ;;
run) run ;;
exchange) exchange ;;
plot) shift; plot "$@" ;;
cost) cost ;;
*)
  echo "usage: scripts/gpu-trace.sh prepare|run|exchange|plot DIR|cost" >&2
  exit 2
  ;;
esac
