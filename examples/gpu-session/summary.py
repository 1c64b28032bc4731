#!/usr/bin/env python3
"""The GPU session's summary (bench/gpu-session; docs/gpu-session.md, "What the script does").

It reads what the session wrote:
- probe.txt;
- metrics.csv: every stored metric of every run, from StoreDump;
- isobench's Markdown report: the verdict;
- the attempt's log and its agent's stdout;
- the phases' times.

It prints the numbers:
- the GPU and driver;
- per arm, the median over the measured runs that succeeded of tok/s, timed tokens, SM and memory clock, power,
  GPU energy and energy per token (gpu_energy_j / timed_tokens of the same run);
- the task's verdict line;
- the attempt's outcome and the GPU lines its agent printed;
- the time used.

Standard library only. A number the files do not hold is printed as '-', never invented.
"""
import argparse
import csv
import re
import statistics
import sys

ARMS = ["baseline", "baseline-aa", "human"]


def read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def per_run(path):
    """{(arm, round): {metric: value}} of the measured runs that succeeded (a session's checks have no round)."""
    runs = {}
    try:
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                if row["kind"] == "MEASURED" and row["status"] == "SUCCESS":
                    runs.setdefault((row["arm"], int(row["round"])), {})[row["name"]] = float(row["value"])
    except (OSError, KeyError, ValueError):
        pass
    return runs


def median_by_arm(runs, name):
    out = {}
    for arm in ARMS:
        vals = [m[name] for (a, _), m in runs.items() if a == arm and name in m]
        out[arm] = statistics.median(vals) if vals else None
    return out


def energy_per_token(runs):
    out = {}
    for arm in ARMS:
        vals = [m["gpu_energy_j"] / m["timed_tokens"] for (a, _), m in runs.items()
                if a == arm and m.get("gpu_energy_j") is not None and m.get("timed_tokens")]
        out[arm] = statistics.median(vals) if vals else None
    return out


def fmt(v, digits=1):
    return "-" if v is None else f"{v:,.{digits}f}"


def main():
    ap = argparse.ArgumentParser()
    for k in ("mode", "probe", "metrics", "report", "attempt", "agent-stdout", "phases", "seconds", "budget"):
        ap.add_argument("--" + k, required=True)
    a = ap.parse_args()
    probe = dict(line.split(": ", 1) for line in read(a.probe).splitlines() if ": " in line)
    runs = per_run(a.metrics)
    w = sys.stdout.write
    if a.mode == "rehearse":
        w("== bench/gpu-session: REHEARSAL, no GPU: a named fake nvidia-smi and the engine's CPU build (run.c, "
          "the same at both commits: a null change; its numbers say nothing about llama2.cu)\n")
    else:
        w("== bench/gpu-session: GPU session (llama2.cu built with nvcc, measured on the GPU)\n")
    w(f"gpu: {probe.get('gpus', '-')}   (index, name, driver, memory MiB, max SM MHz)\n")
    w(f"cuda: libcuda {probe.get('libcuda', '-')}; libcudart {probe.get('libcudart', '-')}; nvcc "
      f"{probe.get('nvcc', '-')}\n")
    w(f"java: {probe.get('java', '-')}; node: {probe.get('node', '-')}; docker: {probe.get('docker', '-')}\n")
    w(f"measured arms: {probe.get('confine', '-')}\n")
    cols = [("tok/s", "tok_s", 1), ("tokens", "timed_tokens", 0), ("SM MHz", "gpu_sm_clock_mhz_mean", 0),
            ("mem MHz", "gpu_mem_clock_mhz_mean", 0), ("power W", "gpu_power_w_mean", 1),
            ("energy J", "gpu_energy_j", 2)]
    med = {name: median_by_arm(runs, name) for _, name, _ in cols}
    ept = energy_per_token(runs)
    counts = {arm: sum(1 for (x, _) in runs if x == arm) for arm in ARMS}
    w("per arm, median over its measured runs that succeeded (J/token = gpu_energy_j / timed_tokens, per run):\n")
    w(f"  {'arm':<12} {'runs':>4}" + "".join(f" {h:>9}" for h, _, _ in cols) + f" {'J/token':>9}\n")
    for arm in ARMS:
        w(f"  {arm:<12} {counts[arm]:>4}" + "".join(f" {fmt(med[n][arm], d):>9}" for _, n, d in cols)
          + f" {fmt(ept[arm], 4):>9}\n")
    verdicts = [line for line in read(a.report).splitlines()
                if line.startswith("|") and "matmul-vector-reads" in line and "higher is better" in line]
    cells = [c.strip() for c in verdicts[0].strip("|").split("|")] if verdicts else []
    w("verdict (human vs baseline): " + (cells[3] if len(cells) > 3 else "- (no verdict line in the report)") + "\n")
    w(f"attempt: {probe.get('attempt', '-')}\n")
    outcome = [line.strip() for line in read(a.attempt).splitlines() if re.search(r" attempt \d+: (?!running)", line)]
    w("  " + (outcome[-1] if outcome else "(no outcome line in the attempt's log)") + "\n")
    for line in read(a.agent_stdout).splitlines():
        if line.startswith(("GPU ", "gpu-agent: gpu ", "gpu-agent: CUDA_VISIBLE", "cuda workload:", "gpu-agent: rehearsal")):
            w(f"  {line.strip()}\n")
    phases = [p.split() for p in read(a.phases).splitlines() if p.strip()]
    w("time: " + ", ".join(f"{p[0]} {p[2]} s" for p in phases if len(p) == 3)
      + f"; total {a.seconds} s of {a.budget} s\n")


if __name__ == "__main__":
    main()
