#!/bin/bash
# Harbor task format schema_version 1.4, harbor 0.20.0: the verifier of isobench task topp-filter, run by Harbor as
# /tests/test.sh in the separate verifier container (tests/Dockerfile). Written by
# `isobench tasks export harbor`; isobench's docs/harbor.md says what each number of reward.json means.
#  1. rebuilds the sealed commit the agent started from and checks its id;
#  2. collects the agent's patch: /app/repo (copied from the agent's container without .git) against
#     that commit, with isobench's patch rule (isobench tasks collect-patch);
#  3. measures baseline, its A/A twin, human and the patch with isobench (rounds, correctness gate);
#  4. writes the verdicts (isobench-verdict.json: strings) and reward.json (numbers only).
# reward.json is written whatever happens: a failure before a verdict leaves {"reward": 0, "error": 1}.
set -uo pipefail
LOGS="${ISOBENCH_HARBOR_LOGS:-/logs/verifier}"
HOME_DIR="${ISOBENCH_HARBOR_HOME:-/isobench}"
REPO="${ISOBENCH_HARBOR_REPO:-/app/repo}"
JAVA="${ISOBENCH_HARBOR_JAVA:-java}"
SEALED=23def6c685d60d314a9a16261be6d52ca53b7d43
WORK="$HOME_DIR/work"
mkdir -p "$LOGS"
rm -f "$LOGS/reward.json"
finish() {
  local rc=$?
  if [ ! -s "$LOGS/reward.json" ]; then
    echo '{"reward": 0, "error": 1}' > "$LOGS/reward.json"
    echo "isobench verifier: failed before a verdict (exit $rc); see test-stdout.txt" \
      | tee "$LOGS/isobench-error.txt"
  fi
}
trap finish EXIT
set -e
isobench() { "$JAVA" -jar "$HOME_DIR/isobench.jar" --db "$LOGS/isobench.duckdb" "$@"; }

rm -rf "$WORK"
mkdir -p "$WORK/sealed"
tar -xf "$HOME_DIR/sealed.tar" -C "$WORK/sealed"
(cd "$WORK/sealed" && git init -q -b main && git -c core.hooksPath=/dev/null add -A -f && GIT_AUTHOR_NAME=isobench GIT_AUTHOR_EMAIL=isobench@localhost GIT_COMMITTER_NAME=isobench GIT_COMMITTER_EMAIL=isobench@localhost GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z git -c core.hooksPath=/dev/null -c commit.gpgsign=false commit -q --allow-empty -m "isobench: the task's parent tree" && test "$(git rev-parse HEAD)" = "$SEALED")

isobench tasks collect-patch --git-dir "$WORK/sealed/.git" --commit "$SEALED" --tree "$REPO" \
  --out "$WORK/agent.diff"
if [ ! -s "$WORK/agent.diff" ]; then
  echo '{"task": "topp-filter", "agent_verdict": "empty patch"}' > "$LOGS/isobench-verdict.json"
  echo '{"reward": 0, "patch_empty": 1}' > "$LOGS/reward.json"
  exit 0
fi

isobench run "$HOME_DIR/suite/isobench-harbor.yaml" --workdir "$WORK/run" || echo "isobench run exited $?"
isobench verdicts --task topp-filter --agent harbor --format json > "$LOGS/isobench-verdict.json"
isobench verdicts --task topp-filter --agent harbor --format harbor-reward > "$WORK/reward.json"
mv "$WORK/reward.json" "$LOGS/reward.json"
cat "$LOGS/reward.json"
