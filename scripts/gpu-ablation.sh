#!/usr/bin/env bash
# The ablation of issue 10 (Done-when 3, SiFAR figure 22 style): what each
# technique of the SNAC v2 programs contributes to AllReduce latency, every
# row in one run on one machine, the same method (bench/ablation/ablation.cpp:
# bf16, ranks sharing one GPU, CUDA graph of 64 calls per rank, events, max
# over ranks; every row checked bitwise before it is timed).
#
#   scripts/gpu-ablation.sh prepare   here (CPU): the modules and the rows file
#                                     in out/ablation/ (build/bin/collc first)
#   scripts/gpu-ablation.sh run       on the GPU machine, with "out/ablation"
#                                     and ".deps" carried: build, run, table
#
# The rows, in order; each is a module of its own, compiled from
# bench/ablation/allreduce.coll with one knob changed, and the runtime's
# COLLC_FORCE_VARIANT choosing among its kernels. The knobs are real
# compile inputs: the spec's policy keys (`protocol`, `one_hop_max_bytes`)
# or the fields of the programs' #snac.policy (ctas, threads, grain, pdl,
# speculate) in the snac IR that `collc --emit=snac` prints, edited and
# compiled back with `collc --emit=module` (snac-assign-work keeps a
# policy's non-zero fields; snac-place-dependent-launch removes
# launch_dependents where pdl = false):
#   v1                 default spec, COLLC_FORCE_VARIANT=v1
#   flag               protocol = flag, 16 x 512 threads, one 16-byte unit
#                      per thread-step, no PDL (the step-1 contract's
#                      example grid; no work assignment), forced one_shot:flag
#   sentinel           protocol = sentinel, the same grid
#   ll16               protocol = ll16, the same grid, one packet per step
#   +PDL               ll16, pdl = true
#   +work assignment   ll16, snac-assign-work's ctas/threads/grain, PDL
#   +speculate         the same with speculate = true (skipped with a note
#                      when collc does not know the field)
#   two-shot band      default spec, default routing, when the module has a
#                      two_shot program (skipped with a note otherwise)
#   one-shot to 1 MiB  protocol = ll16, one_hop_max_bytes = 1MiB
#   ctas N (1 MiB)     the same with ctas = N, 256 threads (the cap sweep)
# Outputs ($OUT, default build-gpu/ablation-out): ablation.json (one record
# per measurement), ablation.log, table.md, env.txt.
# Environment: COLLC (default build/bin/collc), RANKS (2,8), SIZES (bytes,
# default 0 to 1 MiB), CAP_SWEEP (ctas of the sweep rows, default
# "16 32 64 128"; empty: none).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1

DIR=out/ablation
SPEC=bench/ablation/allreduce.coll
COLLC=${COLLC:-build/bin/collc}
CAP_SWEEP=${CAP_SWEEP-16 32 64 128}

# The spec with a policy line of the entries $2... into $DIR/$1.coll.
spec_with() {
  local name=$1 IFS=,
  shift
  {
    grep -v '^#' "$SPEC"
    [ $# -gt 0 ] && echo "policy $*"
  } >"$DIR/$name.coll"
}

# $DIR/$1.coll -> snac IR -> every program's policy fields set from $2
# (e.g. "ctas=16 threads=512 pdl=false speculate=") -> $DIR/$1.collcmod.
# An empty value removes the field (speculate= : not speculating).
module_with() {
  local name=$1 fields=$2
  "$COLLC" "$DIR/$name.coll" --emit=snac -o "$DIR/$name.mlir" || return 1
  python3 - "$DIR/$name.mlir" "$fields" <<'EOF' || return 1
import re, sys
path, fields = sys.argv[1], sys.argv[2].split()
text = open(path).read()
def edit(m):
    body = m.group(1)
    for f in fields:
        key, value = f.split("=", 1)
        pat = r",\s*%s = [^,>]*" % key
        if value == "":
            body = re.sub(pat, "", body)
        elif re.search(pat, body):
            body = re.sub(pat, ", %s = %s" % (key, value), body)
        else:
            body += ", %s = %s" % (key, value)
    return "#snac.policy<" + body + ">"
new, count = re.subn(r"#snac\.policy<([^>]*)>", edit, text)
if count == 0:
    sys.exit("no #snac.policy in " + path)
open(path, "w").write(new)
EOF
  "$COLLC" "$DIR/$name.mlir" --emit=module -o "$DIR/$name.collcmod"
}

prepare() {
  rm -rf "$DIR"
  mkdir -p "$DIR"
  local rows=$DIR/rows.tsv skipped=$DIR/skipped.tsv naive="ctas=16 threads=512"
  : >"$rows"
  : >"$skipped"
  # Independent modules, two at a time (NVRTC dominates).
  spec_with base
  spec_with flag "protocol = flag"
  spec_with sentinel "protocol = sentinel"
  spec_with ll16 "protocol = ll16"
  spec_with ll16pdl "protocol = ll16"
  spec_with work "protocol = ll16"
  spec_with spec "protocol = ll16"
  spec_with onehop "protocol = ll16" "one_hop_max_bytes = 1MiB"
  for c in $CAP_SWEEP; do
    spec_with "cap$c" "protocol = ll16" "one_hop_max_bytes = 1MiB"
  done
  local jobs=()
  "$COLLC" "$DIR/base.coll" --emit=module -o "$DIR/base.collcmod" &
  jobs+=($!)
  module_with flag "$naive grain=16 pdl=false speculate=" & jobs+=($!)
  wait "${jobs[@]}" || return 1
  jobs=()
  module_with sentinel "$naive grain=16 pdl=false speculate=" & jobs+=($!)
  module_with ll16 "$naive grain=8 pdl=false speculate=" & jobs+=($!)
  wait "${jobs[@]}" || return 1
  jobs=()
  module_with ll16pdl "$naive grain=8 pdl=true speculate=" & jobs+=($!)
  module_with work "speculate=" & jobs+=($!)
  wait "${jobs[@]}" || return 1
  local have_spec=0
  if module_with spec "speculate=true" 2>"$DIR/spec.err"; then
    have_spec=1
  else
    echo "+speculate	collc does not know the policy field 'speculate' ($(head -1 "$DIR/spec.err" | cut -c1-160))" >>"$skipped"
  fi
  "$COLLC" "$DIR/onehop.coll" --emit=module -o "$DIR/onehop.collcmod" || return 1
  for c in $CAP_SWEEP; do
    module_with "cap$c" "ctas=$c threads=256 grain=8 pdl=true" || return 1
  done
  {
    printf 'v1\t%s\tv1\n' "$DIR/base.collcmod"
    printf 'flag\t%s\tone_shot:flag\n' "$DIR/flag.collcmod"
    printf 'sentinel\t%s\tone_shot:sentinel\n' "$DIR/sentinel.collcmod"
    printf 'll16\t%s\tone_shot:ll16\n' "$DIR/ll16.collcmod"
    printf '+PDL\t%s\tone_shot:ll16\n' "$DIR/ll16pdl.collcmod"
    printf '+work assignment\t%s\tone_shot:ll16\n' "$DIR/work.collcmod"
    [ $have_spec = 1 ] &&
      printf '+speculate\t%s\tone_shot:ll16\n' "$DIR/spec.collcmod"
    if grep -q '"two_shot"' "$DIR/base.collcmod"; then
      printf 'two-shot band\t%s\t-\n' "$DIR/base.collcmod"
    else
      echo "two-shot band	the module has no two_shot program (collc without two-shot programs)" >>"$skipped"
    fi
    printf 'one-shot to 1 MiB\t%s\tone_shot:ll16\n' "$DIR/onehop.collcmod"
    for c in $CAP_SWEEP; do
      printf 'ctas %s (1 MiB band)\t%s\tone_shot:ll16\n' "$c" "$DIR/cap$c.collcmod"
    done
  } >"$rows"
  rm -f "$DIR"/*.mlir "$DIR"/*.err
  # The runtime's JSON header for the GPU machine's build (as gpu-prepare.sh).
  mkdir -p .deps/include
  rm -rf .deps/include/nlohmann
  cp -r /usr/include/nlohmann .deps/include/
  cat "$rows" "$skipped"
  du -sh "$DIR"
  echo "ready: carry [\"out/ablation\", \".deps\"] and run scripts/gpu-ablation.sh run on the GPU machine"
}

run() {
  local out=${OUT:-build-gpu/ablation-out} build=${BUILD:-build-gpu/ablation}
  mkdir -p "$out" "$build"
  [ -s "$DIR/rows.tsv" ] || {
    echo "gpu-ablation: no $DIR/rows.tsv: run 'scripts/gpu-ablation.sh prepare' on the CPU machine and carry out/ablation" >&2
    exit 2
  }
  {
    date -u '+%Y-%m-%d %H:%M:%S UTC'
    nvidia-smi --query-gpu=index,name,driver_version,compute_cap \
      --format=csv,noheader
    nvcc --version | tail -2
    echo "COLLC_COMMIT=${COLLC_COMMIT:-unknown}"
    cat "$DIR/rows.tsv" "$DIR/skipped.tsv"
  } >"$out/env.txt" 2>&1
  cmake -S bench/ablation -B "$build" -G Ninja \
    -DCOLLC_JSON_INCLUDE_DIR="$PWD/.deps/include" >"$out/build.log" 2>&1 &&
    ninja -C "$build" -j "$(nproc)" >>"$out/build.log" 2>&1 || {
    tail -30 "$out/build.log"
    exit 2
  }
  local machine status
  machine=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
  "$build/collc_ablation" "$DIR/rows.tsv" --ranks="${RANKS:-2,8}" \
    ${SIZES:+--sizes=$SIZES} --json="$out/ablation.json" \
    --machine="$machine" --date="$(date -u +%Y-%m-%d)" >"$out/ablation.log" 2>&1
  status=$?
  grep -E '^(FAIL|FATAL)|passed, ' "$out/ablation.log" | head -30
  python3 bench/ablation/table.py "$DIR/rows.tsv" "$out/ablation.json" \
    "$DIR/skipped.tsv" | tee "$out/table.md"
  return $status
}

case ${1:-} in
prepare) prepare ;;
run) run ;;
*)
  echo "usage: scripts/gpu-ablation.sh prepare|run" >&2
  exit 2
  ;;
esac
