#!/usr/bin/env bash
# The device side of these A/B runs (one call each): AllToAll_v alone,
# collc only (BASELINES=), out of place, Zipf split, modules alternated
# REPS times in one call so every ratio is between benches of one machine
# and minutes. Each MODULES entry is name=path to a variable.collcmod built
# here from the tree under test (README.md, "Modules"); carry their folders
# with out/modules and .deps. Writes $OUT/<call>/<name>-<rep>/.
#   MODULES="main=out/modules-old/variable.collcmod warp=out/modules/variable.collcmod"
#   REPS (default 2), RANKS (default 2,4,8), SIZES (default 1 KiB, 64 KiB,
#   1 MiB, 16 MiB), CALL (default ab)
set -uo pipefail
cd "$(dirname "$0")/../../../.." || exit 2
: "${MODULES:?name=path ...}" "${OUT:?}"
for rep in $(seq 1 "${REPS:-2}"); do
  for entry in $MODULES; do
    name=${entry%%=*} module=${entry#*=}
    # The first bench builds the measurer (about 30 s): LIMIT covers it.
    OUT=$OUT/${CALL:-ab}/$name-$rep VMODULE=$module RANKS=${RANKS:-2,4,8} \
      SIZES=${SIZES:-1024,65536,1048576,16777216} COLLECTIVES=all_to_all_v \
      PLACEMENT=out BASELINES= LIMIT=100 bash scripts/gpu-bench.sh run |
      tail -1
  done
done
