#!/bin/bash
# Times sum.py and checks its output; writes the time as runtime_sec.
set -uo pipefail
mkdir -p /logs/verifier
start=$(date +%s.%N)
out=$(python3 sum.py 3000000)
end=$(date +%s.%N)
ok=0
[ "$out" = "4499998500000" ] && ok=1
awk -v ok="$ok" -v s="$start" -v e="$end" 'BEGIN { printf "{\"reward\": %d, \"runtime_sec\": %.6f}\n", ok, e - s }' \
  > /logs/verifier/reward.json
