#!/usr/bin/env bash
# The main job: install dependencies, build collc, and compile the shipped
# spec library (specs/*.coll) into module files, one per spec, for the
# spec's targets (default sm_80, sm_90, sm_100), under out/modules/.
#   BUILD_DIR (default build), OUT_DIR (default out), JOBS (default nproc),
#   TARGETS   (comma-separated, e.g. sm_90: overrides the specs' targets)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${OUT_DIR:-out}
JOBS=${JOBS:-$(nproc)}
TARGETS=${TARGETS:-}

echo "build: collc and collc-opt in $BUILD_DIR/"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD_DIR" -j "$JOBS" collc collc-opt >/dev/null

collc=("$BUILD_DIR/bin/collc" --emit=module --progress)
[ -n "$TARGETS" ] && collc+=("--target=$TARGETS")
modules="$OUT_DIR/modules"
mkdir -p "$modules"
start=$SECONDS
# The specs compile at once, and each collc compiles all its targets at
# once (--jobs): NVRTC and ptxas are nearly all of the time, one thread per
# target, and the cores share them to the end rather than one spec's last
# target running alone.
names=() pids=()
for spec in specs/*.coll; do
  name=$(basename "$spec" .coll)
  # A spec's policy table (specs/NAME.policy.json, a calibration run's
  # output, committed verbatim: docs/module-format.md "Policy tables").
  table=()
  [ -f "specs/$name.policy.json" ] && table=("--policy-table=specs/$name.policy.json")
  "${collc[@]}" "${table[@]}" "$spec" -o "$modules/$name.collcmod" \
    2>"$modules/$name.log" &
  names+=("$name") pids+=($!)
done
made=() failed=0
for i in "${!names[@]}"; do
  name=${names[$i]}
  wait "${pids[$i]}" || failed=1
  cat "$modules/$name.log" >&2
  rm -f "$modules/$name.log"
done
[ $failed = 0 ] || { echo "collc: a spec failed to compile (above)" >&2; exit 1; }
for name in "${names[@]}"; do
  "$BUILD_DIR/bin/collc" --validate-module "$modules/$name.collcmod" >/dev/null
  made+=("$name.collcmod ($(du -h "$modules/$name.collcmod" | cut -f1))")
done
echo "collc: ${#made[@]} modules in $modules/ ($((SECONDS - start)) s): ${made[*]}"
# What each target costs in a module (issue 12's bounds: the library in at
# most 120 s on the 2-core CI machine, at most 8 MB a target).
python3 scripts/module-sizes.py --seconds $((SECONDS - start)) \
  "$modules"/*.collcmod
