#!/usr/bin/env bash
# The main job: install dependencies, build collc, and compile the shipped
# spec library (specs/*.coll) into out/.
#   BUILD_DIR (default build), OUT_DIR (default out), JOBS (default nproc)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${OUT_DIR:-out}
JOBS=${JOBS:-$(nproc)}

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD_DIR" -j "$JOBS" collc collc-opt

mkdir -p "$OUT_DIR"
for spec in specs/*.coll; do
  name=$(basename "$spec" .coll)
  "$BUILD_DIR/bin/collc" "$spec" --emit=coll -o "$OUT_DIR/$name.coll.mlir"
  echo "collc: $spec -> $OUT_DIR/$name.coll.mlir ($(grep -c 'coll.collective' "$OUT_DIR/$name.coll.mlir") collectives)"
done
