#!/usr/bin/env bash
# Builds the toy engine's git repository: a baseline commit plus one human commit per task,
# each a child of the baseline. Commit ids are reproducible (fixed authors and dates).
#
#   examples/toy-engine/build-repo.sh DEST
#
# Prints one line per task on stdout: "task=<id> parent=<sha> human=<sha> tag=task-<id>".
# DEST is replaced when it holds an earlier build (marker .toyllm-demo-repo); any other
# existing, non-empty DEST is refused.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="${1:?usage: build-repo.sh DEST}"
tasks=(tpot latency throughput)

if [[ -e "$dest" ]]; then
  if [[ -f "$dest/.git/toyllm-demo-repo" ]]; then
    rm -rf "$dest"
  elif [[ -n "$(ls -A "$dest" 2>/dev/null)" ]]; then
    echo "build-repo.sh: $dest exists and is not a toy-engine repo built by this script; remove it or pick another DEST" >&2
    exit 2
  fi
fi
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"

# Copy the sources without caches (tar keeps the relative layout; modes are normalised below).
tar -C "$here/src" --exclude=__pycache__ --exclude='*.pyc' -cf - . | tar -C "$dest" -xf -
find "$dest" -type d -exec chmod 755 {} + && find "$dest" -type f -exec chmod 644 {} +

export GIT_AUTHOR_NAME="toyllm baseline" GIT_AUTHOR_EMAIL="baseline@toyllm.invalid"
export GIT_COMMITTER_NAME="isobench demo" GIT_COMMITTER_EMAIL="demo@isobench.invalid"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git -C "$dest" -c commit.gpgsign=false -c tag.gpgsign=false -c core.autocrlf=false "$@"; }

g init -q -b main
touch "$dest/.git/toyllm-demo-repo"
g add -A
GIT_AUTHOR_DATE="2026-01-05T10:00:00+00:00" GIT_COMMITTER_DATE="2026-01-05T10:00:00+00:00" \
  g commit -q -m "toyllm: baseline engine (no batching, sleep-polling loop, full re-detokenization)"
g tag baseline
parent="$(g rev-parse HEAD)"

declare -A subject=(
  [tpot]="[Perf] Detokenize incrementally instead of re-decoding the whole output every step"
  [latency]="[Perf] Wake the engine loop with a condition variable instead of sleep-polling"
  [throughput]="[Perf] Batch all running sequences (up to max_num_seqs) into one forward pass"
)
i=0
for task in "${tasks[@]}"; do
  i=$((i + 1))
  g checkout -q --detach "$parent"
  g apply --whitespace=nowarn "$here/patches/human/$task.patch"
  g add -A
  GIT_AUTHOR_NAME="toyllm contributor $i" GIT_AUTHOR_EMAIL="human$i@toyllm.invalid" \
  GIT_AUTHOR_DATE="2026-01-1${i}T12:00:00+00:00" GIT_COMMITTER_DATE="2026-01-1${i}T12:00:00+00:00" \
    g commit -q -m "${subject[$task]}"
  g tag "task-$task"
  echo "task=$task parent=$parent human=$(g rev-parse HEAD) tag=task-$task"
done
g checkout -q main
