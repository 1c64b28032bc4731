#!/bin/bash
# Times sum.py and checks its output; writes the time as runtime_sec.
set -uo pipefail
mkdir -p /logs/verifier
start=$(date +%s.%N)
out=$(python3 sum.py 3000000)
end=$(date +%s.%N)
ok=0
[ "$out" = "4499998500000" ] && ok=1
printf '{"reward": %d, "runtime_sec": %s}\n' "$ok" "$(echo "$end - $start" | bc)" > /logs/verifier/reward.json
