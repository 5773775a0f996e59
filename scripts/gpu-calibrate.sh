#!/usr/bin/env bash
# Calibration of the library's variants on one GPU (issue 12): collc-bench
# --calibrate (bench/collc-bench) times every variant of AllReduce,
# AllGather, ReduceScatter and AllToAll (SPEC=variable: AllGather_v and
# ReduceScatter_v, even partitions), forced in turn, bf16, ranks 2, 4
# and 8 in one process sharing GPU 0, ordinary and registered buffers, each
# configuration checked bitwise before it is timed; fits T = a + b*K per
# variant, finds the crossings, re-measures around them, and writes the
# policy table that `collc --policy-table` bakes into a module.
#
#   scripts/gpu-calibrate.sh prepare   here (CPU): out/calibrate/ (both
#                                      specs for sm_90 compiled with the
#                                      seed table, so that every program's
#                                      band starts at 0; needs build/bin/collc
#                                      with --policy-table) and .deps (JSON
#                                      headers); prints the plan's estimate
#   scripts/gpu-calibrate.sh run       on the GPU machine, with
#                                      "out/calibrate" and ".deps" carried:
#                                      build the runtime and the measurer
#                                      (bench/bandwidth), calibrate, all under
#                                      $OUT
#   scripts/gpu-calibrate.sh check     on the GPU machine, with "out/modules"
#                                      and ".deps" carried: collc-bench
#                                      --check-table on the shipped module
#                                      out/modules/collectives.collcmod (its
#                                      policy_table's choice, unforced,
#                                      against every variant forced, at the
#                                      calibration's sizes and their
#                                      geometric midpoints), under $OUT
#                                      (default build-gpu/check-out):
#                                      check.json, check.md, check.log
#
# `run` may be called several times in one device call with different OUTs
# (e.g. OUT=$OUT/run1 then OUT=$OUT/run2, then collc-bench --compare
# run1/policy-table.json run2/policy-table.json): the measurer is built
# once (BUILD, shared; later calls only run ninja, a no-op), each call's
# LIMIT counts from its own start. `check` builds the measurer only where
# BUILD has none configured (else ninja brings it up to date).
#
# Outputs ($OUT, default build-gpu/calibrate-out): policy-table.json (only
# when every measurement passed; else policy-table.rejected.json and exit
# status 1), calibration.json (every record), selection.json (per entry:
# the times at every key, the winners, the crossings, what was refined),
# calibration.log, env.txt, build.log, and the measurer's rows, plans and
# records per run (sweep-nN*, refine*).
#
# Time: one device call is at most 10 minutes, build included. LIMIT
# (default 470 s) bounds the whole run: the calibration gets what the build
# left (less 20 s for the analysis and the copy back) as collc-bench's
# --budget-s: its measurer runs get the rest as their alarm, and refinement
# runs are added only while their estimate fits; `timeout` ends it 30 s
# after that in any case. collc-bench prints its estimate before each
# measurer run and the time taken after it.
# Estimates (one H200, the first calibration, 2026-12-02): build of the
# runtime and the measurer about 1 minute (not measured exactly); run with
# the defaults 62 s of measurement (its printed estimate 228 s: the
# estimate is about 4x pessimistic); check with ranks 2,4,8 2526
# measurements, estimated 447 s, so about 2 minutes. Two runs and a check
# in one 10-minute device call: LIMIT=200 for each run, LIMIT=240 for
# check (each prints its estimate first and its time after).
# Environment: prepare: COLLC (default build/bin/collc), LIBRARY (default
# "specs/collectives.coll specs/variable.coll"), TABLE (default
# bench/collc-bench/seed-table.json); run: SPEC (the module of
# out/calibrate to calibrate: collectives, the default, or variable), RANKS
# (default 2,4,8), SIZES (bytes, comma-separated; default collc-bench's: 8 B
# to 32 MiB by factor 4, 64 MiB and three odd sizes), COLLECTIVES (default
# every collective of the module there is a choice for), LIMIT (seconds, default 470), MACHINE
# (default the GPU's name in lower case, dashes for spaces: nvidia-h200),
# GPUS (default 1: every rank on GPU 0; rank q on GPU q % GPUS: on two
# GPUs `GPUS=2 RANKS=2` calibrates one rank per GPU, over NVLink).
# check: MODULE (default out/modules/collectives.collcmod), RANKS, SIZES
# (default the sizes the table's method lists), COLLECTIVES, LIMIT, MACHINE,
# GPUS.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1

DIR=out/calibrate
COLLC=${COLLC:-build/bin/collc}
LIBRARY=${LIBRARY:-specs/collectives.coll specs/variable.coll}
TABLE=${TABLE:-bench/collc-bench/seed-table.json}
BENCH=bench/collc-bench/collc-bench
# build_measurer, env_txt, machine_name.
. scripts/lib/gpu-measurer.sh

prepare() {
  [ -x "$COLLC" ] || {
    echo "gpu-calibrate: no $COLLC: build collc first (scripts/build.sh)" >&2
    exit 2
  }
  # (Not `| grep -q`: with pipefail, collc's SIGPIPE would fail the test.)
  case $("$COLLC" --help 2>&1) in
  *--policy-table*) ;;
  *)
    echo "gpu-calibrate: $COLLC has no --policy-table: rebuild collc" >&2
    exit 2
    ;;
  esac
  rm -rf "$DIR"
  mkdir -p "$DIR"
  local start spec name
  for spec in $LIBRARY; do
    name=$(basename "$spec" .coll)
    start=$SECONDS
    "$COLLC" "$spec" --emit=module --target=sm_90 --policy-table="$TABLE" \
      -o "$DIR/$name.collcmod" 2>"$DIR/collc.err" || {
      echo "gpu-calibrate: $spec: $(head -5 "$DIR/collc.err")" >&2
      exit 1
    }
    rm -f "$DIR/collc.err"
    echo "compiled $spec for sm_90 with $TABLE in $((SECONDS - start)) s"
    "$COLLC" --validate-module "$DIR/$name.collcmod" || exit 1
    # The plan and its estimate (no measurement).
    python3 "$BENCH" --calibrate --dry-run --module "$DIR/$name.collcmod" \
      --measurer none --ranks "${RANKS:-2,4,8}" --out "$DIR/dry-run" \
      ${SIZES:+--sizes "$SIZES"} ${COLLECTIVES:+--collectives "$COLLECTIVES"} |
      grep -E '^(sweep|WARNING)'
    rm -rf "$DIR/dry-run"
  done
  # The tree the module came from (the GPU machine's copy has no git).
  {
    echo "COLLC_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "uncommitted: $(git status --porcelain 2>/dev/null | wc -l) paths;$(git diff --shortstat 2>/dev/null)"
    echo "prepared $(date -u '+%Y-%m-%d %H:%M:%S UTC') with $COLLC ($(date -u -r "$COLLC" '+%Y-%m-%d %H:%M:%S UTC')), table $TABLE"
  } >"$DIR/commit.txt"
  # The runtime's JSON header for the GPU machine's build (as gpu-prepare.sh).
  mkdir -p .deps/include
  rm -rf .deps/include/nlohmann
  cp -r /usr/include/nlohmann .deps/include/
  du -sh "$DIR" .deps
  echo "ready: carry [\"out/calibrate\", \".deps\"] and run scripts/gpu-calibrate.sh run on the GPU machine"
}

check() {
  local out=${OUT:-build-gpu/check-out}
  local limit=${LIMIT:-470} status budget
  local module=${MODULE:-out/modules/collectives.collcmod}
  build=${BUILD:-build-gpu/bandwidth}
  local start=$SECONDS
  mkdir -p "$out" "$build"
  [ -s "$module" ] || {
    echo "gpu-calibrate: no $module: build the shipped modules (scripts/build.sh) and carry out/modules" >&2
    exit 2
  }
  {
    env_txt
    echo "COLLC_COMMIT=${COLLC_COMMIT:-unknown} module $module"
    echo "RANKS=${RANKS:-2,4,8} SIZES=${SIZES:-from-the-table} COLLECTIVES=${COLLECTIVES:-default} LIMIT=$limit"
  } >"$out/env.txt" 2>&1
  build_measurer "$out/build.log"
  budget=$((limit - (SECONDS - start) - 20))
  echo "gpu-calibrate: check budget $budget s"
  [ "$budget" -gt 60 ] || {
    echo "gpu-calibrate: less than a minute left for the check (LIMIT=$limit)" >&2
    exit 2
  }
  python3 "$BENCH" --check-table --dry-run --module "$module" \
    --measurer none --ranks "${RANKS:-2,4,8}" --out "$out/dry-run" \
    ${SIZES:+--sizes "$SIZES"} ${COLLECTIVES:+--collectives "$COLLECTIVES"} \
    --target sm_90 --budget-s "$budget" | grep -E '^(check|WARNING)'
  rm -rf "$out/dry-run"
  bench --check-table "$module" "$budget" "$out"
  status=$?
  echo "gpu-calibrate: check $((SECONDS - start)) s in all (exit status $status)"
  return $status
}

# collc-bench MODE MODULE BUDGET OUT with the measurer built in $build,
# bounded by the budget (plus 30 s for its outputs); its exit status.
bench() {
  local mode=$1 module=$2 budget=$3 out=$4 status
  timeout --signal=TERM --kill-after=10 $((budget + 30)) \
    python3 "$BENCH" "$mode" --module "$module" \
    --measurer "$build/collc_bandwidth" --ranks "${RANKS:-2,4,8}" \
    --gpus "${GPUS:-1}" \
    ${SIZES:+--sizes "$SIZES"} ${COLLECTIVES:+--collectives "$COLLECTIVES"} \
    --target sm_90 --machine "$(machine_name)" --date "$(date -u +%Y-%m-%d)" \
    --budget-s "$budget" --out "$out"
  status=$?
  [ $status = 124 ] &&
    echo "gpu-calibrate: collc-bench ended by timeout ($((budget + 30)) s); what it wrote so far is in $out" >&2
  return $status
}

run() {
  local out=${OUT:-build-gpu/calibrate-out}
  local limit=${LIMIT:-470} status budget start=$SECONDS
  build=${BUILD:-build-gpu/bandwidth}
  mkdir -p "$out" "$build"
  local module=$DIR/${SPEC:-collectives}.collcmod
  [ -s "$module" ] || {
    echo "gpu-calibrate: no $module: run 'scripts/gpu-calibrate.sh prepare' on the CPU machine and carry out/calibrate" >&2
    exit 2
  }
  {
    env_txt
    if [ -n "${COLLC_COMMIT:-}" ]; then
      echo "COLLC_COMMIT=$COLLC_COMMIT"
    else
      cat "$DIR/commit.txt"
    fi
    echo "SPEC=${SPEC:-collectives} RANKS=${RANKS:-2,4,8} SIZES=${SIZES:-default} COLLECTIVES=${COLLECTIVES:-default} LIMIT=$limit"
  } >"$out/env.txt" 2>&1
  build_measurer "$out/build.log"
  budget=$((limit - (SECONDS - start) - 20))
  echo "gpu-calibrate: calibration budget $budget s (OUT=$out)"
  [ "$budget" -gt 60 ] || {
    echo "gpu-calibrate: less than a minute left for the calibration (LIMIT=$limit)" >&2
    exit 2
  }
  bench --calibrate "$module" "$budget" "$out"
  status=$?
  echo "gpu-calibrate: run $((SECONDS - start)) s in all (OUT=$out)"
  return $status
}

case ${1:-} in
prepare) prepare ;;
run) run ;;
check) check ;;
*)
  echo "usage: scripts/gpu-calibrate.sh prepare|run|check" >&2
  exit 2
  ;;
esac
