#!/usr/bin/env bash
# Runs every command of README.md's "Using collc" block as written, from the
# repository root, after scripts/build.sh: a command that fails, or that
# refers to a file a fresh clone lacks, fails the check. Ends with a line
# "readme: N commands, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

mapfile -t commands < <(awk '
  /^## Using collc/ { section = 1; next }
  /^## / { section = 0 }
  section && /^```sh/ { block = 1; next }
  section && block && /^```/ { block = 0; next }
  section && block && NF { print }' README.md)
if [ ${#commands[@]} -eq 0 ]; then
  echo "check-readme: no commands found under '## Using collc' in README.md" >&2
  exit 1
fi
failed=0
for c in "${commands[@]}"; do
  log=$(mktemp)
  if bash -c "$c" >"$log" 2>&1; then
    echo "PASS: readme: $c"
  else
    failed=$((failed + 1))
    echo "FAIL: readme: $c"
    tail -20 "$log" | sed 's/^/  | /'
  fi
  rm -f "$log"
done
echo "readme: ${#commands[@]} commands, $failed failed"
[ "$failed" -eq 0 ]
