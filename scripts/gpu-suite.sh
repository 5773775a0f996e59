#!/usr/bin/env bash
# The GPU suite of the collc runtime, run on the GPU machine (nvidia-h200-x2:
# two H200s) from a clean tree: builds libcollc and test/gpu/collectives with
# CMake + ninja, runs collc_gpu_tests in both modes (one process per GPU, and
# one process driving both GPUs), runs compute-sanitizer memcheck on a small
# representative run, and writes logs and a summary. On one GPU the procs
# phase runs two processes sharing it (correctness, stalled and killed
# ranks; the processes take turns on the GPU, so no timing means anything).
#
#   scripts/gpu-suite.sh [PHASE...]     PHASE: build procs single staged
#                                       sanitizer robust programs (default:
#                                       the first five, in that order;
#                                       staged: single mode with
#                                       COLLC_CLIQUE_DIRECT=0, so that the
#                                       clique stages ordinary buffers as
#                                       one process per rank does (the
#                                       correctness, graphs and zero_copy
#                                       suites); racecheck: compute-
#                                       sanitizer memcheck, then racecheck,
#                                       on the zero_copy suite (--quick:
#                                       registered and direct buffers,
#                                       peers reading user memory in place;
#                                       racecheck AllGather and every
#                                       collective named *reduce*: the
#                                       spreads among them); robust: the
#                                       robustness suite, single mode, ranks
#                                       sharing the GPUs: needs
#                                       robust.collcmod; programs: the SNAC
#                                       v2 programs of collectives.collcmod
#                                       and programs-<encoding>.collcmod,
#                                       every (variant, encoding) a module's
#                                       manifest holds forced in turn, 2, 3,
#                                       5 and 8 ranks sharing GPU 0, through
#                                       test/gpu/programs/runtime_programs)
#
# What must exist before the run (made on the CPU machine, e.g. by
# scripts/gpu-prepare.sh, and sent with carry: ["out/modules", ".deps"]):
#   out/modules/collectives.collcmod  } build/bin/collc --emit=module
#   out/modules/variable.collcmod     }   --target=sm_90 -o out/modules
#   .deps/include/nlohmann/json.hpp     (a copy of /usr/include/nlohmann)
# Optional, used by the misuse suite when present:
#   out/modules/sm100/collectives.collcmod  (--target=sm_100 only: must be
#                                            refused on an sm_90 GPU)
#   out/modules/sm80/collectives.collcmod   (--target=sm_80 only: JIT-run
#                                            correctly or refused clearly)
# Without the sm_100 module the misuse suite still checks the refusal with
# a copy of the sm_90 module relabelled sm_100.
#
# Outputs: $OUT (default build-gpu/out) gets at most 8 flat files:
# summary.txt, env.txt, build.log, procs.log, single.log, staged.log,
# sanitizer.log, racecheck.log, robust.log, programs.log (the device tool
# returns at most 8: the default phases write 7; tar more).
# Phase results are also kept in build-gpu/results/, so PHASES run in
# separate calls (each call is limited to 10 minutes) add up in the summary
# of the last call: e.g. `scripts/gpu-suite.sh build procs`, then
# `scripts/gpu-suite.sh single sanitizer` on the same (warm) machine.
#
# Environment: JOBS (default nproc), BUILD_DIR (default build-gpu),
# PROCS_TIMEOUT / SINGLE_TIMEOUT / STAGED_TIMEOUT / SANITIZER_TIMEOUT /
# RACECHECK_TIMEOUT / ROBUST_TIMEOUT / PROGRAMS_TIMEOUT (seconds, default
# 420 / 420 / 420 / 360 / 300 / 420 / 420),
# PROGRAM_RANKS (default 2,3,5,8), PROGRAM_MODULES (the programs phase's
# modules under out/modules, default "collectives programs-ll16
# programs-sentinel programs-flag"),
# TEST_ARGS (extra collc_gpu_tests arguments for both modes), ROBUST_ARGS (extra arguments of the robust
# phase, e.g. --robust=stall,streams or --shapes=1000), COLLC_COMMIT (the
# commit to name in the summary when the tree's git metadata is not its own).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1

BUILD_DIR=${BUILD_DIR:-build-gpu}
JOBS=${JOBS:-$(nproc)}
OUT=${OUT:-$BUILD_DIR/out}
RESULTS=$BUILD_DIR/results
MODULES=out/modules
TEST_ARGS=${TEST_ARGS:-}
mkdir -p "$OUT" "$RESULTS"

PHASES=("$@")
[ ${#PHASES[@]} -eq 0 ] && PHASES=(build procs single staged sanitizer)
for p in "${PHASES[@]}"; do
  case $p in
  build | procs | single | staged | sanitizer | racecheck | robust | programs) ;;
  *)
    echo "gpu-suite: unknown phase '$p' (build, procs, single, staged, sanitizer, racecheck, robust, programs)" >&2
    exit 2
    ;;
  esac
done

die() {
  echo "gpu-suite: $*" | tee -a "$OUT/summary.txt" >&2
  exit 2
}

# Inputs that the CPU machine must provide (the library modules: for every
# phase but the programs phase, which checks its own).
missing=()
LIBRARY=("$MODULES/collectives.collcmod" "$MODULES/variable.collcmod")
[ "${PHASES[*]}" = programs ] && LIBRARY=()
for f in "${LIBRARY[@]}"; do
  [ -s "$f" ] || missing+=("$f")
done
if [ ${#missing[@]} -ne 0 ]; then
  die "missing module file(s): ${missing[*]}. Build them on the CPU machine:
  build/bin/collc --emit=module --target=sm_90 -o out/modules
and send them with the run (carry: [\"out\", \".deps\"])."
fi
for f in "${LIBRARY[@]}"; do
  grep -q '"sm_90"' "$f" ||
    die "$f has no sm_90 target; rebuild it with --target=sm_90"
done
[ -f .deps/include/nlohmann/json.hpp ] ||
  die "missing .deps/include/nlohmann/json.hpp (copy /usr/include/nlohmann \
from the CPU machine into .deps/include/ and carry .deps)"

has() {
  local x
  for x in "${PHASES[@]}"; do [ "$x" = "$1" ] && return 0; done
  return 1
}

# Machine description, once per call.
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host: $(hostname)"
  echo "--- nvidia-smi -L"
  nvidia-smi -L 2>&1
  echo "--- driver"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_cap \
    --format=csv,noheader 2>&1
  echo "--- topology"
  nvidia-smi topo -m 2>&1 | head -20
  echo "--- nvcc"
  nvcc --version 2>&1 | tail -2
  echo "--- nccl (bootstrap)"
  grep -E '^#define NCCL_(MAJOR|MINOR|PATCH) ' /usr/include/nccl.h 2>&1
  echo "--- cmake / ninja"
  cmake --version | head -1
  ninja --version
  echo "--- multicast settings"
  echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE TORCH_SYMM_MEM_DISABLE_MULTICAST=$TORCH_SYMM_MEM_DISABLE_MULTICAST NVSHMEM_DISABLE_NVLS=$NVSHMEM_DISABLE_NVLS"
  echo "--- modules"
  ls -l "$MODULES"/*.collcmod "$MODULES"/sm*/*.collcmod 2>/dev/null
  sha256sum "$MODULES"/*.collcmod 2>/dev/null
} >"$OUT/env.txt" 2>&1

# Records a phase: results/<phase>.{status,time,date,line}.
record() {
  local phase=$1 status=$2 seconds=$3 log=$4
  echo "$status" >"$RESULTS/$phase.status"
  echo "$seconds" >"$RESULTS/$phase.time"
  date -u '+%Y-%m-%d %H:%M:%S UTC' >"$RESULTS/$phase.date"
  local line
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
  case $phase in
  build) line="" ;;
  sanitizer)
    line="$line; $(grep -E 'ERROR SUMMARY' "$log" | tail -1 | sed 's/^=*\s*//')"
    ;;
  racecheck)
    # memcheck's run, then racecheck's: "N passed, M failed" and the
    # tool's summary line each.
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$|(ERROR|RACECHECK) SUMMARY' \
      "$log" | sed 's/^=*\s*//' | paste -sd ';' - | sed 's/;/; /g')
    ;;
  esac
  echo "$line" >"$RESULTS/$phase.line"
  cp "$log" "$RESULTS/$phase.log"
}

run_phase() {
  local phase=$1 limit=$2
  shift 2
  local log="$OUT/$phase.log" start end status
  echo "gpu-suite: $phase: $*"
  start=$(date +%s)
  timeout --signal=TERM --kill-after=20 "$limit" "$@" >"$log" 2>&1
  status=$?
  end=$(date +%s)
  [ $status -eq 124 ] && echo "gpu-suite: $phase ran past ${limit}s and was stopped" >>"$log"
  record "$phase" "$status" "$((end - start))" "$log"
  echo "gpu-suite: $phase: exit $status in $((end - start)) s: $(cat "$RESULTS/$phase.line")"
  tail -3 "$log"
}

BIN=$BUILD_DIR/collc_gpu_tests
EXTRA=()
[ -s "$MODULES/sm100/collectives.collcmod" ] &&
  EXTRA+=("--sm100-module=$MODULES/sm100/collectives.collcmod")
[ -s "$MODULES/sm80/collectives.collcmod" ] &&
  EXTRA+=("--sm80-module=$MODULES/sm80/collectives.collcmod")
# shellcheck disable=SC2206
EXTRA+=($TEST_ARGS)

if has robust && [ ! -s "$MODULES/robust.collcmod" ]; then
  die "missing $MODULES/robust.collcmod: scripts/gpu-prepare.sh makes it"
fi

if has build; then
  rm -f "$RESULTS"/*.status # a new build invalidates earlier results
  run_phase build 600 bash -c "
    cmake -S test/gpu/collectives -B '$BUILD_DIR' -G Ninja \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCOLLC_JSON_INCLUDE_DIR='$ROOT/.deps/include' &&
    ninja -C '$BUILD_DIR' -j '$JOBS'"
fi
# The programs phase builds its own test; the others run collc_gpu_tests.
if has procs || has single || has staged || has sanitizer || has racecheck ||
  has robust; then
  [ -x "$BIN" ] || die "no $BIN: run the build phase first"
fi

# Each process's watchdog (360 s) fires before the phase's limit (420 s), so
# a hang is reported by the tests rather than cut off.
has procs && run_phase procs "${PROCS_TIMEOUT:-420}" \
  "$BIN" --mode=procs --modules="$MODULES" --watchdog=360 "${EXTRA[@]}"
has single && run_phase single "${SINGLE_TIMEOUT:-420}" \
  "$BIN" --mode=single --modules="$MODULES" --watchdog=360 "${EXTRA[@]}"
# The clique staging ordinary buffers (COLLC_CLIQUE_DIRECT=0): the chunked
# programs in one process, as the single phase ran them before direct
# buffers.
has staged && run_phase staged "${STAGED_TIMEOUT:-420}" \
  env COLLC_CLIQUE_DIRECT=0 "$BIN" --mode=single --modules="$MODULES" \
  --suites=correctness,graphs,zero_copy --watchdog=360 "${EXTRA[@]}"
# memcheck: one process, both GPUs, every collective at small sizes, a few
# graph replays; generous bounds because instrumented kernels are slow.
has sanitizer && run_phase sanitizer "${SANITIZER_TIMEOUT:-360}" \
  compute-sanitizer --tool memcheck --leak-check full --error-exitcode 99 \
  "$BIN" --mode=single --modules="$MODULES" --suites=correctness,graphs \
  --quick --no-big --timeout-ms=120000 --watchdog=330 \
  --filter=all_reduce,gather,reduce_scatter_v,all_to_all_v,broadcast

# The zero-copy programs under compute-sanitizer (issue 11): peers read and
# write registered windows and a clique's direct buffers in place.
has racecheck && run_phase racecheck "${RACECHECK_TIMEOUT:-300}" bash -c '
  compute-sanitizer --tool memcheck --error-exitcode 99 "$0" --mode=single \
    --modules="$1" --suites=zero_copy --quick --timeout-ms=120000 &&
    compute-sanitizer --tool racecheck --error-exitcode 99 "$0" \
      --mode=single --modules="$1" --suites=zero_copy --quick \
      --filter=all_gather,reduce \
      --timeout-ms=120000' "$BIN" "$MODULES"

# Robustness (issue 9): single mode, every rank on the one GPU it shares.
# shellcheck disable=SC2086
has robust && run_phase robust "${ROBUST_TIMEOUT:-420}" \
  "$BIN" --mode=single --modules="$MODULES" --suites=robust \
  --watchdog=400 ${ROBUST_ARGS:-}

# SNAC v2 programs (issue 10): every program of the library module and of
# the per-encoding modules (scripts/gpu-prepare.sh: programs-<encoding>,
# every program forced to one encoding), each (variant, encoding) the
# module's manifest holds forced in turn (COLLC_FORCE_VARIANT; listed by
# test/gpu/programs/forced_runs.py, so two-shot and speculating programs
# are covered once a module has them) over its band, ranks sharing GPU 0,
# graph replay, a timeout; calls beyond the bands run the v1 kernels.
if has programs; then
  run_phase programs "${PROGRAMS_TIMEOUT:-420}" bash -c '
    cmake -S test/gpu/programs -B "$0/programs" -G Ninja \
      -DCOLLC_JSON_INCLUDE_DIR="$1/.deps/include" >/dev/null &&
      ninja -C "$0/programs" -j "$2" runtime_programs >/dev/null || exit 2
    s=0
    counts=$(mktemp)
    for name in ${PROGRAM_MODULES:-collectives programs-ll16 programs-sentinel programs-flag}; do
      m=$3/$name.collcmod
      [ -f "$m" ] || { echo "FAIL $m: missing (scripts/gpu-prepare.sh)"; s=1; continue; }
      runs=$(python3 test/gpu/programs/forced_runs.py "$m" \
        --ranks="${PROGRAM_RANKS:-2,3,5,8}") || { echo "FAIL $m: unreadable manifest"; s=1; continue; }
      [ -n "$runs" ] || { echo "FAIL $m: no program kernels"; s=1; continue; }
      while read -r force lo hi ranks spec colls; do
        echo "programs: $name: $force band [$lo, $hi] ranks $ranks speculate $spec"
        "$0/programs/runtime_programs" "$m" --ranks="$ranks" \
          --encodings="$force" --band-bottom="$lo" --band-top="$hi" \
          --programs-of="$colls" |
          tee -a "$counts"
        [ "${PIPESTATUS[0]}" -eq 0 ] || s=1
      done <<<"$runs"
    done
    # The phase line: every run together.
    awk "/^[0-9]+ passed, [0-9]+ failed\$/ {p += \$1; f += \$3}
      END {printf \"%d passed, %d failed\\n\", p, f}" "$counts"
    rm -f "$counts"
    exit $s' "$BUILD_DIR" "$ROOT" "$JOBS" "$MODULES"
fi

# Summary of every phase recorded for this build (this call or earlier ones).
{
  echo "collc GPU suite: scripts/gpu-suite.sh"
  echo "summary written: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  # COLLC_COMMIT: the commit the tree was sent from, where the copy's git
  # metadata is not that of the tree (a device tool sending a working tree).
  if [ -n "${COLLC_COMMIT:-}" ]; then
    commit="$COLLC_COMMIT (given by the caller)"
  elif commit=$(git rev-parse HEAD 2>/dev/null); then
    git diff --quiet HEAD -- 2>/dev/null || commit="$commit (working tree differs)"
  else
    commit="unknown (no git metadata in this tree)"
  fi
  echo "commit: $commit"
  echo "machine:"
  nvidia-smi -L 2>&1 | sed 's/^/  /'
  echo "driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)"
  echo "cuda: $(nvcc --version 2>/dev/null | grep -o 'release [0-9.]*' | head -1)"
  echo "phases:"
  overall=0
  for phase in build procs single staged sanitizer racecheck robust programs; do
    if { [ "$phase" = robust ] || [ "$phase" = programs ] ||
      [ "$phase" = staged ] || [ "$phase" = racecheck ]; } &&
      [ ! -f "$RESULTS/$phase.status" ] && ! has "$phase"; then
      continue # optional phase, not asked for
    fi
    if [ -f "$RESULTS/$phase.status" ]; then
      st=$(cat "$RESULTS/$phase.status")
      [ "$st" = 0 ] && verdict=PASS || verdict=FAIL
      [ "$st" = 0 ] || overall=1
      printf '  %-9s %s (exit %s, %s s, %s) %s\n' "$phase" "$verdict" "$st" \
        "$(cat "$RESULTS/$phase.time")" "$(cat "$RESULTS/$phase.date")" \
        "$(cat "$RESULTS/$phase.line")"
    else
      printf '  %-9s not run\n' "$phase"
      overall=1
    fi
  done
  for phase in procs single staged robust programs; do
    if [ -f "$RESULTS/$phase.log" ]; then
      echo "--- $phase: groups"
      grep -E '^(\[rank 0\] )?(PASS|FAIL|SKIP) |^\[parent\]' "$RESULTS/$phase.log" | sed 's/^/  /'
      grep -E 'FAIL|FATAL' "$RESULTS/$phase.log" |
        grep -vE '(PASS|FAIL) [^ ]+ \([0-9]+ cases' | head -40 | sed 's/^/  detail: /'
      grep -E 'stream finished .* after the launch' "$RESULTS/$phase.log" | sed 's/^/  timeout: /'
    fi
  done
  [ $overall -eq 0 ] && echo "RESULT: PASS" || echo "RESULT: FAIL (or incomplete)"
} >"$OUT/summary.txt"
cp "$OUT/summary.txt" "$RESULTS/summary.txt"
cat "$OUT/summary.txt"
grep -q '^RESULT: PASS' "$OUT/summary.txt"
