# Helpers of the GPU scripts that run bench/bandwidth's measurer
# (scripts/gpu-calibrate.sh, scripts/gpu-bench.sh) or the runtime from
# Python (scripts/gpu-torch.sh, scripts/gpu-trace.sh); sourced from the
# repository's root.

# Builds libcollc alone into $1 (log: $2), configuring only once, and
# points COLLC_LIBRARY (the Python package's) at it.
build_runtime() {
  local build=$1 log=$2
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S runtime -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCOLLC_JSON_INCLUDE_DIR="$PWD/.deps/include" >"$log" 2>&1 ||
      { tail -20 "$log"; exit 2; }
  fi
  ninja -C "$build" >>"$log" 2>&1 || { tail -20 "$log"; exit 2; }
  export COLLC_LIBRARY=$PWD/$build/libcollc.so
}

# `prepare` of gpu-bench.sh and gpu-torch.sh (here, CPU): checks that the
# shipped module exists and copies the JSON headers the runtime builds with
# there into .deps; $1: the script's name, for its messages.
prepare_modules_and_deps() {
  [ -s out/modules/collectives.collcmod ] || {
    echo "$1: no out/modules/collectives.collcmod: run scripts/build.sh first" >&2
    exit 2
  }
  mkdir -p .deps/include
  rm -rf .deps/include/nlohmann
  cp -r /usr/include/nlohmann .deps/include/
  du -sh out/modules .deps
  echo "ready: carry [\"out/modules\", \".deps\"] and run scripts/$1.sh run on the GPU machine"
}

# Builds the runtime and the measurer into $build (log: $1): configures
# only where $build has no build.ninja, then ninja (incremental). NCCL: the
# system's, or NCCL_ROOT's (bench/bandwidth/CMakeLists.txt).
build_measurer() {
  local log=$1 t0=$SECONDS
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S bench/bandwidth -B "$build" -G Ninja \
      -DCOLLC_JSON_INCLUDE_DIR="$PWD/.deps/include" \
      ${NCCL_ROOT:+-DNCCL_ROOT="$NCCL_ROOT"} >"$log" 2>&1 || {
      tail -30 "$log"
      exit 2
    }
  else
    echo "${0##*/}: $build already configured" >"$log"
  fi
  ninja -C "$build" -j "$(nproc)" >>"$log" 2>&1 || {
    tail -30 "$log"
    exit 2
  }
  echo "${0##*/}: measurer $build/collc_bandwidth ready in $((SECONDS - t0)) s"
}

env_txt() {
  date -u '+%Y-%m-%d %H:%M:%S UTC'
  nvidia-smi --query-gpu=index,name,driver_version,compute_cap \
    --format=csv,noheader
  nvcc --version | tail -2
  python3 --version
}

machine_name() {
  echo "${MACHINE:-$(nvidia-smi --query-gpu=name --format=csv,noheader |
    head -1 | tr 'A-Z ' 'a-z-')}"
}
