#!/usr/bin/env bash
# Several GPU scripts in one call of the device machine, their outputs
# packed into one archive (the device tool brings back at most 8 files).
#
#   scripts/gpu-session.sh PART...   on the GPU machine, with "out" and
#                                    ".deps" carried (scripts/gpu-prepare.sh
#                                    and scripts/gpu-trace.sh prepare here)
#
# PART: suite[:PHASE,PHASE...] (scripts/gpu-suite.sh, default phases "build
# single sanitizer"), trace, device-api, torch, bench, calibrate, bandwidth
# (their scripts' `run`; their environment, e.g. GPUS, passes through).
# Each runs under `timeout PART_TIMEOUT` (seconds, default 300) with its
# own OUT below a scratch folder; $OUT/results.tar.gz (default
# build-gpu/session-out) holds them all, with session.log saying how each
# part ended.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# NEVER NVLink multicast on these machines (DESIGN.md, "GPU machines").
export NCCL_NVLS_ENABLE=0
export TORCH_SYMM_MEM_DISABLE_MULTICAST=1
export NVSHMEM_DISABLE_NVLS=1

[ $# -gt 0 ] || {
  echo "usage: scripts/gpu-session.sh PART... (suite[:PHASES] trace device-api torch bench calibrate bandwidth)" >&2
  exit 2
}
out=${OUT:-build-gpu/session-out}
scratch=$(mktemp -d)
mkdir -p "$out"
status=0
for part in "$@"; do
  name=${part%%:*}
  case $name in
  suite)
    phases=build,single,sanitizer
    [ "$part" != "$name" ] && phases=${part#*:}
    cmd=(bash scripts/gpu-suite.sh ${phases//,/ })
    ;;
  trace | device-api | torch | bench | calibrate | bandwidth)
    cmd=(bash "scripts/gpu-$name.sh" run)
    ;;
  *)
    echo "gpu-session: unknown part '$part'" >&2
    exit 2
    ;;
  esac
  t0=$SECONDS
  OUT=$scratch/$name timeout "${PART_TIMEOUT:-300}" "${cmd[@]}" \
    >"$scratch/$name.console.txt" 2>&1
  rc=$?
  [ $rc = 0 ] || status=1
  echo "$(date -u '+%H:%M:%S') $part: exit $rc after $((SECONDS - t0)) s" |
    tee -a "$scratch/session.log"
done
tar czf "$out/results.tar.gz" -C "$scratch" . && rm -rf "$scratch"
ls -la "$out"
exit $status
