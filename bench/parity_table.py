#!/usr/bin/env python3
"""bench/parity's table from results.jsonl: per (case, client) the MEDIAN over the repeats of each figure.

Columns: runs, requests completed and failed (sums), total input and output tokens, request throughput (req/s),
duration (s), TTFT/TPOT/ITL median and p99 (ms), peak concurrent requests as each client reports it under vLLM's key
`max_concurrent_requests` (isobench: its exact in-flight maximum next to it), and what each client says about its
prompts (Python: vLLM's server alignment; isobench: prompt-length drift against the server's counts). Then the ratio
isobench/Python of the medians. Both clients write vLLM's result keys.
"""
import json
import statistics
import sys

KEYS = [("total_input_tokens", "{:.0f}"), ("total_output_tokens", "{:.0f}"), ("request_throughput", "{:.2f}"),
        ("duration", "{:.2f}"), ("median_ttft_ms", "{:.1f}"), ("p99_ttft_ms", "{:.1f}"),
        ("median_tpot_ms", "{:.2f}"), ("p99_tpot_ms", "{:.2f}"), ("median_itl_ms", "{:.2f}"), ("p99_itl_ms", "{:.2f}")]
RATIOS = ["total_input_tokens", "total_output_tokens", "request_throughput", "median_ttft_ms", "p99_ttft_ms",
          "median_tpot_ms", "p99_tpot_ms", "median_itl_ms", "p99_itl_ms"]


def med(runs, key):
    v = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    return statistics.median(v) if v else None


def main(path):
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    groups = {}
    for row in rows:
        groups.setdefault(row["case"], {}).setdefault(row["client"], []).append(row["result"])
    print("| case | client | runs | done/failed | in tok | out tok | req/s | dur s | TTFT p50 | TTFT p99 | TPOT p50 "
          "| TPOT p99 | ITL p50 | ITL p99 | peak conc. | prompts |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for case, clients in groups.items():
        for client in ("python", "isobench"):
            runs = clients.get(client, [])
            if not runs:
                continue
            cells = []
            for k, fmt in KEYS:
                m = med(runs, k)
                cells.append("-" if m is None else fmt.format(m))
            done = sum(int(r.get("completed") or 0) for r in runs)
            failed = sum(int(r.get("failed") or 0) for r in runs)
            peak = f"{med(runs, 'max_concurrent_requests'):.0f}"
            if client == "isobench":
                peak += f" (exact {med(runs, 'isobench_max_in_flight'):.0f})"
                drifts = [r.get("isobench_prompt_len_drift_pct") for r in runs]
                note = "drift " + ("-" if drifts[0] is None else f"{drifts[0]:.1f} %")
            else:
                note = runs[0].get("alignment", "-")
            print(f"| {case} | {client} | {len(runs)} | {done}/{failed} | " + " | ".join(cells) + f" | {peak} | {note} |")
    print()
    print("| case (isobench / Python) | in tok | out tok | req/s | TTFT p50 | TTFT p99 | TPOT p50 | TPOT p99 | ITL p50 "
          "| ITL p99 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case, c in groups.items():
        if "python" not in c or "isobench" not in c:
            continue
        ratios = []
        for k in RATIOS:
            p, i = med(c["python"], k), med(c["isobench"], k)
            ratios.append(f"{i / p:.2f}" if p and i is not None else "-")
        print(f"| {case} | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
