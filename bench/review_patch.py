#!/usr/bin/env python3
"""Writes a synthetic unified diff of about N bytes (default 50 MB) to stdout for bench/review: 100+ files of
400 hunks each, every hunk with context, removed and added lines, a lowered max_num_seqs and a prompt-keyed
memo lookup (so every check runs, and every hunk is a finding). Deterministic (seeded)."""
import sys, random
target = int(sys.argv[1]) if len(sys.argv) > 1 else 50 * 1024 * 1024
rnd = random.Random(1)
out = sys.stdout
size = 0
def w(s):
    global size
    out.write(s); size += len(s) + 0
fileno = 0
while size < target:
    fileno += 1
    path = f"vllm/generated/mod_{fileno:03d}.py"
    # one modified file: 50 hunks of mixed change blocks
    w(f"diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n")
    line = 1
    for h in range(400):
        body = []
        old = new = 0
        for k in range(25):
            r = rnd.random()
            t = f"    value_{rnd.randint(0, 9999)} = compute(x, y={rnd.randint(0, 99)})  # step {k}"
            if r < 0.5:
                body.append(" " + t); old += 1; new += 1
            elif r < 0.75:
                body.append("-" + t); old += 1
            else:
                body.append("+" + t.replace("compute", "compute_fast")); new += 1
        body.insert(3, "+    if cache_key in self._memo: return self._memo[cache_key]"); new += 1
        body.insert(5, "+    max_num_seqs = 256"); new += 1
        body.insert(6, "-    max_num_seqs = 512"); old += 1
        w(f"@@ -{line},{old} +{line},{new} @@ def f_{h}():\n")
        w("\n".join(body) + "\n")
        line += old + 10
print(f"# {size} bytes", file=sys.stderr)
