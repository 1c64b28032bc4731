#!/usr/bin/python3
"""Builds an HF schema-v5 CSV of N rows from the real `updated_rows_only.csv` (11 rows, 76 columns, multi-line raw
texts) by repeating its rows under new commit ids: the input `bench/foundation` times `import hf` on (the published
table has 361 rows). Standard library only.  usage: hf_rows.py SOURCE.csv N OUT.csv"""
import csv
import hashlib
import sys

csv.field_size_limit(1 << 30)
src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(src, newline="", encoding="utf-8") as f:
    reader = csv.DictReader(f)
    header = reader.fieldnames
    rows = list(reader)
agents = [("claude_code", "claude-sonnet-4-20250514"), ("codex", "gpt-5"), ("trae", "sonnet-4.5"), ("trae", "gpt-5")]
with open(out, "w", newline="", encoding="utf-8") as f:
    w = csv.DictWriter(f, fieldnames=header)
    w.writeheader()
    for i in range(n):
        r = dict(rows[i % len(rows)])
        full = hashlib.sha1(f"commit-{i // len(agents)}".encode()).hexdigest()
        r["commit_hash"], r["commit_short"] = full, full[:8]
        r["agent_name"], r["agent_model"] = agents[i % len(agents)]
        w.writerow(r)
