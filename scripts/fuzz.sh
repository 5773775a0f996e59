#!/usr/bin/env bash
# Fuzzes the whole front end with libFuzzer (compiler/fuzz/FrontEndFuzz.h:
# parser, verifiers, derivation, interpreter) for a given time:
#   bash scripts/fuzz.sh [seconds]        (default 60)
# Builds build-fuzz/ with clang-22 (coverage and AddressSanitizer on collc's
# code), runs one nice'd job over the seed corpus (test/Fuzz/corpus, specs/,
# test/Spec), prints the inputs executed and any findings (their inputs are
# under build-fuzz/fuzz-findings/), and exits 1 on a finding.
#   FUZZ_BUILD_DIR (default build-fuzz), JOBS (build, default 2),
#   FUZZ_KEEP_CORPUS=1 to start from the last run's corpus (default: a fresh
#   run from the seeds alone)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
bash scripts/install-deps.sh --fuzz
dir=${FUZZ_BUILD_DIR:-build-fuzz}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="-g -fsanitize=fuzzer-no-link,address" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address" -DCOLLC_LIBFUZZER=ON >/dev/null
nice ninja -C "$dir" -j "${JOBS:-2}" collc-fuzz

corpus="$dir/fuzz-corpus"       # what libFuzzer adds; the seeds stay as they are
findings="$dir/fuzz-findings"
rm -rf "$findings" "$dir"/fuzz-*.log
[ -n "${FUZZ_KEEP_CORPUS:-}" ] || rm -rf "$corpus"
mkdir -p "$corpus" "$findings"
corpus=$(realpath "$corpus"); findings=$(realpath "$findings")
echo "fuzz: running for ${seconds}s (log: $dir/fuzz-0.log)"
start=$SECONDS
set +e
# LLVM's BumpPtrAllocator poisons its free space when compiled with ASan, as
# collc's code is, but not in the uninstrumented libMLIR.so that shares it:
# user poisoning would report use-after-poison in MLIR's own allocations.
(cd "$dir" && ASAN_OPTIONS=allow_user_poisoning=0 nice -n 10 ./bin/collc-fuzz \
  -jobs=1 -workers=1 -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
  -dict=../test/Fuzz/coll.dict -artifact_prefix="$findings/" \
  "$corpus" ../test/Fuzz/corpus ../specs ../test/Spec)
set -e
elapsed=$((SECONDS - start))

log="$dir/fuzz-0.log"
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
found=$(find "$findings" -type f | wc -l)
echo "fuzz: ${execs:-unknown} inputs executed in ${elapsed}s;" \
     "working corpus $(find "$corpus" -type f | wc -l) inputs; $found findings"
if [ "$found" -ne 0 ] || [ -z "$execs" ]; then
  grep -h -A12 "FINDING\|ERROR: AddressSanitizer\|ERROR: libFuzzer" "$log" | head -60 >&2
  for f in "$findings"/*; do
    [ -f "$f" ] && echo "fuzz: finding input: $f" >&2
  done
  [ -z "$execs" ] && echo "fuzz: the run did not finish (no final stats in $log)" >&2
  exit 1
fi
