#!/usr/bin/env bash
# The CPU side of a GPU run: builds collc (scripts/build.sh), compiles the
# spec library into the module files the GPU suite loads, and copies the
# header-only JSON library the runtime needs (the GPU machines have no Debian
# packages). Then send the tree to the GPU machine with
# carry: ["out/modules", ".deps"] and run scripts/gpu-suite.sh there (the
# device takes at most 64 MB with the tracked tree: carry only what a run uses).
#   TARGET (default sm_90: the H200s)
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=${TARGET:-sm_90}
# The main job, for the GPU's target only: out/modules/{collectives,variable}.
TARGETS="$TARGET" bash scripts/build.sh
mkdir -p out/modules/sm100 .deps/include
# One and three ranks, for the robustness suite (test/gpu/collectives).
build/bin/collc test/gpu/collectives/robust.coll --emit=module \
  --target="$TARGET" -o out/modules/robust.collcmod
# The v1 baseline of the SNAC v2 program timings (scripts/gpu-programs.sh v1).
build/bin/collc test/gpu/programs/v1-baseline.coll --emit=module \
  --target="$TARGET" -o out/modules/v1-baseline.collcmod
# The programs phase: one module per encoding, every program forced to it.
for enc in ll16 sentinel flag; do
  build/bin/collc test/gpu/programs/encoding-$enc.coll --emit=module \
    --target="$TARGET" -o out/modules/programs-$enc.collcmod
done
# A module for another architecture only: the misuse suite checks that the
# runtime refuses it on the GPU it runs on.
build/bin/collc specs/collectives.coll --emit=module --target=sm_100 \
  -o out/modules/sm100/collectives.collcmod
rm -rf .deps/include/nlohmann
cp -r /usr/include/nlohmann .deps/include/
du -sh out .deps
echo "ready: carry [\"out/modules\", \".deps\"] and run scripts/gpu-suite.sh on the GPU machine"
