#!/usr/bin/env bash
# The bandwidth regime of issue 11 on one GPU (bench/bandwidth/bandwidth.cpp):
# AllReduce, AllGather, ReduceScatter and AllToAll through the runtime, bf16,
# ranks in one process sharing GPU 0, one stream each; the library module
# (the chunked programs above the latency bands), its v1 kernels
# (COLLC_FORCE_VARIANT=v1) and the ablation rows, against a plain vectorized
# device-to-device copy with the same CTAs, all in one run; every
# configuration checked bitwise before it is timed (CUDA graph of K calls
# per rank, 2 warm-up and 5 timed replays, max over ranks).
#
#   scripts/gpu-bandwidth.sh prepare   here (CPU): the modules (packed into
#                                      out/bandwidth/modules.tgz) and the rows
#                                      file in out/bandwidth/ (needs
#                                      build/bin/collc)
#   scripts/gpu-bandwidth.sh run       on the GPU machine, with
#                                      "out/bandwidth" and ".deps" carried:
#                                      unpack, build, run, table
#
# The rows, in order (label, module, COLLC_FORCE_VARIANT):
#   collc                      the library (specs/collectives.coll, sm_90,
#                              with its policy table
#                              specs/collectives.policy.json, as shipped),
#                              default routing: the table's variant per
#                              size; ordinary buffers read in place where
#                              its registered entries name a zero-copy
#                              program (direct buffers)
#   collc registered           the same with the buffers registered
#                              (collcCommRegister): the zero-copy programs
#                              in the same bands
#   collc staged               the library, ordinary buffers staged
#                              (COLLC_CLIQUE_DIRECT=0: what one process per
#                              rank runs; the ablation "zero-copy off"); the
#                              row collc reads them in place (direct
#                              buffers of the one process)
#   v1                         the same module, COLLC_FORCE_VARIANT=v1
#   chunk N KiB                bench/bandwidth/collectives.coll (the four
#                              collectives, bf16, 2 ranks) with
#                              `policy stream_chunk_bytes = N KiB` (ring
#                              depth: bytes per CTA, partition and step)
#   chunk 128 KiB (default)    that spec unchanged (128 KiB, 16 CTAs)
#   ctas N                     that spec with `policy ctas = N` (channels;
#                              it changes the latency programs' grid too)
#   grain 16 (1 vector)        that spec's snac IR (collc --emit=snac) with
#                              the chunked programs' grain 128 -> 16: one
#                              16-byte vector in flight per thread, not 8
#                              (the Atom's register path off: the plain
#                              copy loop's shape), compiled back
# (the chunk, ctas and grain rows stage their buffers, as collc staged: they
# vary the chunked programs)
# and, in a second run of the bench (rows-v.tsv, --collectives of the _v
# variants, even, skewed and zero-sized partitions), bench/bandwidth/
# variable.coll (AllGather_v, ReduceScatter_v, AllToAll_v, bf16, 2 ranks)
# in the rows collc, collc registered, collc staged and v1.
# Outputs ($OUT, default build-gpu/bandwidth-out): bandwidth.json (one
# record per measurement), bandwidth.log, bandwidth-v.json and
# bandwidth-v.log (the _v run), table.md, env.txt, build.log.
# Environment: prepare: COLLC (default build/bin/collc), LIBRARY (default
# specs/collectives.coll), CHUNKS (default "32 64 256 512", KiB, besides the
# default 128), CTAS_SWEEP (default "4 8", besides the default 16); run:
# RANKS (default 2; the ablation modules have 2 ranks only, the library 2,
# 4 and 8), SIZES (bytes, default 1, 4, 16, 64 and 256 MiB), CTAS (the
# copy's CTAs per rank; default: the routed kernel's grid in the manifest),
# ALARM (seconds the bench may run, default 400), GPUS (default 1: every
# rank on GPU 0; rank q on GPU q % GPUS: `GPUS=2` on two GPUs puts a rank
# on each, and the copy baseline stays on each rank's own GPU).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1

DIR=out/bandwidth
SPEC=bench/bandwidth/collectives.coll
COLLC=${COLLC:-build/bin/collc}
LIBRARY=${LIBRARY:-specs/collectives.coll}
CHUNKS=${CHUNKS-32 64 256 512}
CTAS_SWEEP=${CTAS_SWEEP-4 8}

# The ablation spec with a policy line of the entries $2... into
# $DIR/$1.coll (as scripts/gpu-ablation.sh).
spec_with() {
  local name=$1 IFS=,
  shift
  {
    grep -v '^#' "$SPEC"
    [ $# -gt 0 ] && echo "policy $*"
  } >"$DIR/$name.coll"
}

# $DIR/$1.coll -> $DIR/$1.collcmod.
module_of() {
  "$COLLC" "$DIR/$1.coll" --emit=module --target=sm_90 \
    -o "$DIR/$1.collcmod" 2>"$DIR/$1.err" || {
    echo "gpu-bandwidth: $1: $(head -3 "$DIR/$1.err")" >&2
    return 1
  }
}

# The grid and chunk of $1's chunked program of all_reduce at 2 ranks, for
# the rows file's comment ("16x512 chunk 131072").
chunked_of() {
  python3 - "$1" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
for k in m["kernels"]:
    p = k.get("program", {})
    if (k["collective"] == "all_reduce" and k["element_type"] == "bf16"
            and k["world_size"] == 2 and p.get("chunk", 0) > 0
            and not p.get("registered")):
        print("%s %dx%d chunk %d" % (p["variant"], k["grid"], k["threads"],
                                     p["chunk"]))
        break
else:
    print("no chunked program")
EOF
}

prepare() {
  [ -x "$COLLC" ] || {
    echo "gpu-bandwidth: no $COLLC: build collc first (scripts/build.sh)" >&2
    exit 2
  }
  rm -rf "$DIR"
  mkdir -p "$DIR"
  local rows=$DIR/rows.tsv c lib_pid status=0
  # The library: the slowest (every collective, type and rank count), in
  # the background while the ablation modules build one after another.
  # With its policy table (specs/NAME.policy.json, as scripts/build.sh
  # ships it): the runtime's choice per size, and where a clique reads
  # ordinary buffers in place (its registered entries).
  local table=()
  [ -f "${LIBRARY%.coll}.policy.json" ] &&
    table=("--policy-table=${LIBRARY%.coll}.policy.json")
  "$COLLC" "$LIBRARY" --emit=module --target=sm_90 "${table[@]}" \
    -o "$DIR/lib.collcmod" 2>"$DIR/lib.err" &
  lib_pid=$!
  spec_with base
  module_of base || status=1
  for c in $CHUNKS; do
    spec_with "chunk$c" "stream_chunk_bytes = ${c}KiB"
    module_of "chunk$c" || status=1
  done
  for c in $CTAS_SWEEP; do
    spec_with "ctas$c" "ctas = $c"
    module_of "ctas$c" || status=1
  done
  # The Atom path off: the default spec's chunked programs (grain 128, the
  # only programs with it) with one vector in flight per thread.
  "$COLLC" "$DIR/base.coll" --emit=snac -o "$DIR/grain16.mlir" &&
    sed -i 's/grain = 128,/grain = 16,/g' "$DIR/grain16.mlir" &&
    grep -q 'grain = 16, pdl = true, chunk' "$DIR/grain16.mlir" &&
    "$COLLC" "$DIR/grain16.mlir" --emit=module --target=sm_90 \
      -o "$DIR/grain16.collcmod" 2>"$DIR/grain16.err" || {
    echo "gpu-bandwidth: grain16: $(head -3 "$DIR/grain16.err" 2>/dev/null)" >&2
    status=1
  }
  grep -v '^#' bench/bandwidth/variable.coll >"$DIR/var.coll"
  module_of var || status=1
  wait "$lib_pid" || {
    echo "gpu-bandwidth: $LIBRARY: $(head -3 "$DIR/lib.err")" >&2
    status=1
  }
  [ $status = 0 ] || exit 1
  {
    echo "# label	module	COLLC_FORCE_VARIANT ('-': default routing)	buffers"
    echo "# collc: $(chunked_of "$DIR/lib.collcmod")"
    printf 'collc\t%s\t-\n' "$DIR/lib.collcmod"
    echo "# collc registered: buffers registered (collcCommRegister): the zero-copy programs"
    printf 'collc registered\t%s\t-\tregistered\n' "$DIR/lib.collcmod"
    echo "# collc staged: ordinary buffers staged (COLLC_CLIQUE_DIRECT=0), as one process per rank runs them"
    printf 'collc staged\t%s\t-\tstaged\n' "$DIR/lib.collcmod"
    printf 'v1\t%s\tv1\n' "$DIR/lib.collcmod"
    for c in $CHUNKS 128; do
      echo "$c"
    done | sort -n | while read -r c; do
      if [ "$c" = 128 ]; then
        echo "# chunk 128 KiB (default): $(chunked_of "$DIR/base.collcmod")"
        printf 'chunk 128 KiB (default)\t%s\t-\tstaged\n' "$DIR/base.collcmod"
      else
        echo "# chunk $c KiB: $(chunked_of "$DIR/chunk$c.collcmod")"
        printf 'chunk %s KiB\t%s\t-\tstaged\n' "$c" "$DIR/chunk$c.collcmod"
      fi
    done
    for c in $CTAS_SWEEP; do
      echo "# ctas $c: $(chunked_of "$DIR/ctas$c.collcmod")"
      printf 'ctas %s\t%s\t-\tstaged\n' "$c" "$DIR/ctas$c.collcmod"
    done
    echo "# grain 16: the chunked programs with one 16-byte vector in flight per thread"
    printf 'grain 16 (1 vector)\t%s\t-\tstaged\n' "$DIR/grain16.collcmod"
  } >"$rows"
  {
    echo "# label	module	COLLC_FORCE_VARIANT ('-': default routing)	buffers"
    printf 'collc\t%s\t-\n' "$DIR/var.collcmod"
    printf 'collc registered\t%s\t-\tregistered\n' "$DIR/var.collcmod"
    printf 'collc staged\t%s\t-\tstaged\n' "$DIR/var.collcmod"
    printf 'v1\t%s\tv1\n' "$DIR/var.collcmod"
  } >"$DIR/rows-v.tsv"
  rm -f "$DIR"/*.err "$DIR"/*.mlir
  # The tree the modules came from (the GPU machine's copy has no git).
  {
    echo "COLLC_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "uncommitted: $(git status --porcelain 2>/dev/null | wc -l) paths;$(git diff --shortstat 2>/dev/null)"
    echo "prepared $(date -u '+%Y-%m-%d %H:%M:%S UTC') with $COLLC ($(date -u -r "$COLLC" '+%Y-%m-%d %H:%M:%S UTC'))"
  } >"$DIR/commit.txt"
  # The modules travel packed (the device tool carries at most 64 MiB; the
  # library alone is about 43 MB, 8 MB packed); `run` unpacks them.
  (cd "$DIR" && tar czf modules.tgz ./*.collcmod) || exit 1
  du -sh "$DIR"/*.collcmod | sort -h | tail -3
  rm -f "$DIR"/*.collcmod
  # The runtime's JSON header for the GPU machine's build (as gpu-prepare.sh).
  mkdir -p .deps/include
  rm -rf .deps/include/nlohmann
  cp -r /usr/include/nlohmann .deps/include/
  cat "$rows"
  du -sh "$DIR" .deps
  echo "ready: carry [\"out/bandwidth\", \".deps\"] and run scripts/gpu-bandwidth.sh run on the GPU machine"
}

run() {
  local out=${OUT:-build-gpu/bandwidth-out} build=${BUILD:-build-gpu/bandwidth}
  mkdir -p "$out" "$build"
  [ -s "$DIR/rows.tsv" ] || {
    echo "gpu-bandwidth: no $DIR/rows.tsv: run 'scripts/gpu-bandwidth.sh prepare' on the CPU machine and carry out/bandwidth" >&2
    exit 2
  }
  if [ -f "$DIR/modules.tgz" ]; then
    tar xzf "$DIR/modules.tgz" -C "$DIR" || exit 2
  fi
  {
    date -u '+%Y-%m-%d %H:%M:%S UTC'
    nvidia-smi --query-gpu=index,name,driver_version,compute_cap \
      --format=csv,noheader
    nvcc --version | tail -2
    if [ -n "${COLLC_COMMIT:-}" ]; then
      echo "COLLC_COMMIT=$COLLC_COMMIT"
    else
      cat "$DIR/commit.txt"
    fi
    echo "RANKS=${RANKS:-2} GPUS=${GPUS:-1} SIZES=${SIZES:-default} CTAS=${CTAS:-manifest}"
    cat "$DIR/rows.tsv"
  } >"$out/env.txt" 2>&1
  cmake -S bench/bandwidth -B "$build" -G Ninja \
    -DCOLLC_JSON_INCLUDE_DIR="$PWD/.deps/include" >"$out/build.log" 2>&1 &&
    ninja -C "$build" -j "$(nproc)" >>"$out/build.log" 2>&1 || {
    tail -30 "$out/build.log"
    exit 2
  }
  local machine status ranks=${RANKS:-2} gpus=${GPUS:-1}
  machine=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '_')
  "$build/collc_bandwidth" "$DIR/rows.tsv" --ranks="$ranks" --gpus="$gpus" \
    ${SIZES:+--sizes=$SIZES} ${CTAS:+--ctas=$CTAS} --alarm="${ALARM:-400}" \
    --json="$out/bandwidth.json" --machine="$machine" \
    --date="$(date -u +%Y-%m-%d)" >"$out/bandwidth.log" 2>&1
  status=$?
  [ $status -gt 128 ] &&
    echo "collc_bandwidth ended by signal $((status - 128)) (ALARM=${ALARM:-400} s: the records so far are kept)" |
    tee -a "$out/bandwidth.log"
  grep -E '^(FAIL|FATAL)|passed, ' "$out/bandwidth.log" | head -30
  local vstatus=0
  if [ -s "$DIR/rows-v.tsv" ]; then
    "$build/collc_bandwidth" "$DIR/rows-v.tsv" --ranks="$ranks" --gpus="$gpus" \
      --collectives=all_gather_v,reduce_scatter_v,all_to_all_v \
      ${SIZES:+--sizes=$SIZES} ${CTAS:+--ctas=$CTAS} --alarm="${ALARM:-400}" \
      --json="$out/bandwidth-v.json" --machine="$machine" \
      --date="$(date -u +%Y-%m-%d)" >"$out/bandwidth-v.log" 2>&1
    vstatus=$?
    grep -E '^(FAIL|FATAL)|passed, ' "$out/bandwidth-v.log" | head -30
  fi
  local vtable=()
  [ -s "$out/bandwidth-v.json" ] && vtable=(--variable="$out/bandwidth-v.json")
  python3 bench/bandwidth/table.py "$DIR/rows.tsv" "$out/bandwidth.json" \
    "$out/bandwidth.log" --ranks="${ranks%%,*}" "${vtable[@]}" |
    tee "$out/table.md"
  [ $status = 0 ] && status=$vstatus
  return $status
}

case ${1:-} in
prepare) prepare ;;
run) run ;;
*)
  echo "usage: scripts/gpu-bandwidth.sh prepare|run" >&2
  exit 2
  ;;
esac
