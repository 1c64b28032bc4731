#!/usr/bin/python3
"""Builds a synthetic ISO-Bench repository root of about N files for `bench/legacy-root`: the real sample trees
(../shared/isobench-data, -more, -wide) copied under distinct folders (about 6 % of the files: the real root holds
~2,000 results, 1,724 journals and 1,174 micro results among 106k files), agent-run folders (one in 60 files: a
journal with its own commit, its run_summary.json, a 270 kB trajectory, a patch, predictions, the task), and the rest
small files that are not results, as in the real root's worktrees: Python sources, Markdown, JSON files of no result
schema (configs), patches, logs. Deterministic (the same N gives the same tree). Standard library only.
usage: legacy_root_tree.py SHARED_DIR N OUT_DIR"""
import os
import shutil
import sys

shared, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
samples = [s for s in ("isobench-data", "isobench-data-more", "isobench-data-wide")
           if os.path.isdir(os.path.join(shared, s))]
if not samples:
    sys.exit("legacy_root_tree.py: no sample tree under " + shared)
per_copy = sum(sum(len(f) for _, _, f in os.walk(os.path.join(shared, s))) for s in samples)
copies = max(1, int(n * 0.06) // per_copy)
written = 0
for c in range(copies):
    for s in samples:
        shutil.copytree(os.path.join(shared, s), os.path.join(out, "copy%04d" % c, s))
    written += per_copy
# agent-run folders (state/runs/…/<item>/), about 10 % of the real root: a journal (imported), its run_summary.json
# (derived, skipped), a trajectory (~256 kB of JSON of no result schema: refused, content not copied), a patch,
# predictions (JSON lines, not the export), the task text
journal = open(os.path.join(shared, "isobench-data-wide/ISO-Bench/state/runs/sglan/trae/"
                            "us-anthropic-claude-sonnet-4-5-20250929-v1-0/2025-12-24_09-35-05/sglang_smoke_10189d08/"
                            "journal.json"), encoding="utf-8").read() if "isobench-data-wide" in samples else None
STEP = '{"step": %d, "role": "assistant", "content": "' + "x" * 200 + '", "tool_calls": []}'
TRAJECTORY = '{"agent": "trae", "steps": [' + ", ".join(STEP % k for k in range(1000)) + ']}'
k = 0
while journal and written + 6 <= n and k < n // 60:
    run = os.path.join(out, "ISO-Bench", "state", "runs", "vllm", "agent%d" % (k % 4), "model", "2026-01-01_00-00-%02d" %
                       (k % 60), "item-%05d" % k)
    os.makedirs(run)
    c8 = "%08x" % (0x10000000 + k)
    files = {"journal.json": journal.replace("10189d08", c8),
             "run_summary.json": '{"commits": {"human": "%s"}, "_sources": {"journal": "j", "patch": "p"}}' % c8,
             "trajectory.json": TRAJECTORY, "model_patch.diff": "diff --git a/x b/x\n",
             "prediction.jsonl": '{"instance_id": "%s", "model_patch": ""}\n' % c8, "task.txt": "optimise\n"}
    for name, text in files.items():
        with open(os.path.join(run, name), "w", encoding="utf-8") as f:
            f.write(text)
    written += len(files)
    k += 1
PY = "import os\n\n\ndef f(x):\n    return x * 2  # %d\n" + "# filler line of a source file\n" * 60
MD = "# Notes %d\n\nSome text about a run.\n" + "More prose.\n" * 20
CONFIG = '{"name": "config-%d", "version": 3, "options": {"a": 1, "b": [1, 2, 3]}}\n'
DIFF = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = %d\n+a = 2\n"
LOG = "INFO step %d\n" * 40
kinds = [(70, ".py", PY), (10, ".md", MD), (5, ".json", CONFIG), (8, ".diff", DIFF), (7, ".txt", LOG)]
i = 0
while written < n:
    folder = os.path.join(out, "ISO-Bench", "archive", "work", "worktrees", "w%03d" % (i // 1000), "d%02d" % (i % 1000 // 100))
    os.makedirs(folder, exist_ok=True)
    for weight, ext, text in kinds:
        for _ in range(weight):
            if written >= n:
                break
            name = os.path.join(folder, "f%07d%s" % (i, ext))
            with open(name, "w", encoding="utf-8") as f:
                f.write(text % i if text.count("%d") == 1 else text.replace("%d", str(i)))
            i += 1
            written += 1
print("%d files: %d copies of %s (%d files each), %d agent-run folders (6 files each), %d other files" % (
    written, copies, "+".join(samples), per_copy, k, written - copies * per_copy - 6 * k))
