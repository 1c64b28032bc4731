#!/usr/bin/env python3
"""Self-check of the toy-engine demo: builds the repo, runs every arm of every task and
prints the measured primary metric and the greedy-output check per arm, next to the outcome
each patch was designed to produce.

    /usr/bin/python3 examples/toy-engine/selfcheck.py [--rounds N] [--task ID] [--keep]

Standard library only. Exit code 0 when every designed effect was observed, 1 otherwise.
"""
import argparse
import http.client
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable

SERVING = dict(num_prompts=8, max_concurrency=4, input_len=32, output_len=128)
LATENCY_ARGS = ["--batch-size", "1", "--input-len", "32", "--output-len", "16",
                "--num-iters", "20", "--num-iters-warmup", "2", "--seed", "0"]
THROUGHPUT_ARGS = ["--input-len", "32", "--output-len", "16", "--num-prompts", "32",
                   "--seed", "0"]

# task -> (mode, primary metric, lower_is_better, agent arms {name: designed outcome})
TASKS = {
    "tpot": ("serving", "tpot_ms_mean", True,
             {"alpha": "better", "bravo": "crash", "charlie": "incorrect",
              "delta": "patch_failed"}),
    "latency": ("latency", "latency_ms_avg", True,
                {"alpha": "equal", "bravo": "worse", "charlie": "suspicious",
                 "delta": "empty"}),
    "throughput": ("throughput", "total_throughput_tok_s", False,
                   {"alpha": "better", "bravo": "equal", "charlie": "incorrect",
                    "delta": "worse"}),
}

GREEDY_PROMPTS = [
    "the quick brown fox jumps over the lazy dog",
    "ba be bi bo bu",
    "tell me a story about a toy engine that learned to batch",
    "zazu, lapo. mike!",
]


def sh(*argv, cwd=None, check=True):
    return subprocess.run(argv, cwd=cwd, check=check, text=True, capture_output=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- serving ------------------------------------------------------------------------------
class Server:
    def __init__(self, cwd):
        self.port = free_port()
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [PY, "-m", "toyllm.entrypoints.api_server", "--host", "127.0.0.1", "--port",
             str(self.port), "--model", "toy-1m", "--disable-log-requests"],
            cwd=cwd, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, timeout_s=10.0):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout_s:
            if self.proc.poll() is not None:
                return False
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
                c.request("GET", "/health")
                if c.getresponse().status == 200:
                    return True
            except OSError:
                pass
            time.sleep(0.02)
        return False

    def log_tail(self, n=3):
        self.log.seek(0)
        return " | ".join(self.log.read().strip().splitlines()[-n:])

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()


def stream_one(port, prompt, max_tokens):
    """Returns (ttft_s, e2e_s, completion_tokens, text) for one streamed request."""
    body = json.dumps({"model": "toy-1m", "prompt": prompt, "max_tokens": max_tokens,
                       "temperature": 0.0, "ignore_eos": True, "stream": True,
                       "stream_options": {"include_usage": True}})
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    t0 = time.perf_counter()
    c.request("POST", "/v1/completions", body, {"Content-Type": "application/json"})
    r = c.getresponse()
    ttft, usage, text = None, None, []
    while True:
        line = r.readline()
        if not line:
            break
        line = line.strip()
        if not line.startswith(b"data: "):
            continue
        data = line[6:]
        if data == b"[DONE]":
            break
        chunk = json.loads(data)
        if chunk.get("choices"):
            if ttft is None:
                ttft = time.perf_counter() - t0
            text.append(chunk["choices"][0]["text"])
        if chunk.get("usage"):
            usage = chunk["usage"]
    e2e = time.perf_counter() - t0
    c.close()
    return ttft, e2e, usage["completion_tokens"], "".join(text)


def random_prompt(rng, n_words):
    return " ".join("".join(rng.choice("abcdefghiklmnoprstuvz") for _ in range(rng.randint(2, 6)))
                    for _ in range(n_words))


def bench_serving(port):
    rng = random.Random(0)
    prompts = [random_prompt(rng, SERVING["input_len"]) for _ in range(SERVING["num_prompts"])]
    stream_one(port, prompts[0], 8)  # warm-up, discarded
    results, lock, it = [], threading.Lock(), iter(prompts)

    def worker():
        while True:
            with lock:
                p = next(it, None)
            if p is None:
                return
            res = stream_one(port, p, SERVING["output_len"])
            with lock:
                results.append(res)

    threads = [threading.Thread(target=worker) for _ in range(SERVING["max_concurrency"])]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    tpots = [(e2e - ttft) / (n - 1) for ttft, e2e, n, _ in results]
    return statistics.mean(tpots) * 1000.0


def greedy_outputs(port):
    outs = []
    for p in GREEDY_PROMPTS:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        c.request("POST", "/v1/completions",
                  json.dumps({"model": "toy-1m", "prompt": p, "max_tokens": 48,
                              "temperature": 0}), {"Content-Type": "application/json"})
        outs.append(json.loads(c.getresponse().read())["choices"][0]["text"])
        c.close()
        outs.append(stream_one(port, p, 48)[3])
    return outs


# ---- offline ------------------------------------------------------------------------------
def bench_offline(cwd, mode):
    if mode == "latency":
        out = sh(PY, "benchmarks/benchmark_latency.py", *LATENCY_ARGS, cwd=cwd).stdout
        return float(re.search(r"^Avg latency: ([0-9.eE+-]+) seconds", out, re.M).group(1)) * 1000
    out = sh(PY, "benchmarks/benchmark_throughput.py", *THROUGHPUT_ARGS, cwd=cwd).stdout
    return float(re.search(r"^Throughput: [0-9.]+ requests/s, ([0-9.]+) total tokens/s", out,
                           re.M).group(1))


# ---- arms ---------------------------------------------------------------------------------
def prepare_arms(repo, work, task, agents):
    """Returns {arm: (worktree or None, status)}; status is 'ok', 'patch_failed' or 'empty'."""
    arms = {"baseline": ("baseline", None), "human": (f"task-{task}", None)}
    for a in agents:
        arms[a] = ("baseline", os.path.join(HERE, "patches", "agents", a, f"{task}.patch"))
    result = {}
    for arm, (ref, patch) in arms.items():
        wt = os.path.join(work, f"{task}-{arm}")
        sh("git", "-C", repo, "worktree", "add", "-q", "--detach", wt, ref)
        if patch is None:
            result[arm] = (wt, "ok")
        elif os.path.getsize(patch) == 0:
            result[arm] = (None, "empty")
        elif sh("git", "apply", "--check", patch, cwd=wt, check=False).returncode != 0:
            result[arm] = (None, "patch_failed")
        else:
            sh("git", "apply", patch, cwd=wt)
            result[arm] = (wt, "ok")
    return result


def run_task(repo, work, task, rounds):
    mode, metric, lower, agents = TASKS[task]
    arms = prepare_arms(repo, work, task, agents)
    samples = {a: [] for a in arms}
    status = {a: s for a, (_, s) in arms.items()}
    greedy = {}
    for a, (wt, s) in arms.items():  # correctness: greedy outputs through the server
        if s != "ok":
            continue
        srv = Server(wt)
        try:
            if srv.wait_ready():
                greedy[a] = greedy_outputs(srv.port)
            else:
                status[a] = "crash: " + srv.log_tail(1)
        finally:
            srv.stop()
    for _ in range(rounds):  # interleaved rounds
        for a, (wt, s) in arms.items():
            if status[a] != "ok":
                continue
            if mode == "serving":
                srv = Server(wt)
                try:
                    if not srv.wait_ready():
                        status[a] = "crash: " + srv.log_tail(1)
                        continue
                    samples[a].append(bench_serving(srv.port))
                finally:
                    srv.stop()
            else:
                samples[a].append(bench_offline(wt, mode))
    return mode, metric, lower, agents, status, samples, greedy


def improvement(x, ref, lower):
    return (ref - x) / ref * 100 if lower else (x - ref) / ref * 100


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--task", choices=list(TASKS), action="append")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="toyllm-selfcheck-")
    repo = os.path.join(work, "repo")
    t_start = time.monotonic()
    mapping = sh("bash", os.path.join(HERE, "build-repo.sh"), repo).stdout
    print(mapping, end="")
    all_ok = True
    try:
        for task in args.task or list(TASKS):
            mode, metric, lower, agents, status, samples, greedy = run_task(repo, work, task,
                                                                            args.rounds)
            med = {a: statistics.median(v) for a, v in samples.items() if v}
            print(f"\n== task {task} ({mode}, {metric}, {'lower' if lower else 'higher'} is "
                  f"better, {args.rounds} round(s))")
            print(f"{'arm':9} {'median':>10} {'vs base %':>10} {'vs human %':>11} "
                  f"{'greedy=base':>11}  {'designed':12} check  samples")
            base, human = med.get("baseline"), med.get("human")
            for a in ["baseline", "human"] + list(agents):
                designed = agents.get(a, "-" if a == "baseline" else "human>>base")
                m = med.get(a)
                vb = improvement(m, base, lower) if m is not None and a != "baseline" else None
                vh = improvement(m, human, lower) if m is not None and a not in ("baseline", "human") else None
                same = None if a not in greedy else greedy[a] == greedy.get("baseline")
                ok = check(a, designed, status[a], vb, vh, same)
                all_ok &= ok
                fmt = lambda v, f: "-" if v is None else f % v
                print(f"{a:9} {fmt(m, '%10.2f')} {fmt(vb, '%+10.1f')} {fmt(vh, '%+11.1f')} "
                      f"{fmt(same, '%11s')}  {designed:12} {'ok' if ok else 'FAIL':5}  "
                      + (" ".join('%.2f' % x for x in samples[a]) if samples[a] else status[a]))
        print(f"\nselfcheck {'PASSED' if all_ok else 'FAILED'} in {time.monotonic() - t_start:.1f} s")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 0 if all_ok else 1


def check(arm, designed, status, vb, vh, same):
    """The margins the demo relies on (single runs on a busy 2-core machine included)."""
    if arm == "baseline":
        return status == "ok" and same is True
    if arm == "human":
        return status == "ok" and same is True and vb is not None and vb >= 30
    if designed == "better":
        return same is True and vh is not None and vh >= 15
    if designed == "equal":
        return same is True and vh is not None and abs(vh) <= 3
    if designed == "worse":
        return same is True and vb is not None and vh is not None and vb >= 10 and vh <= -10
    if designed == "crash":
        return status.startswith("crash")
    if designed == "incorrect":
        return same is False and vb is not None and vb >= 10
    if designed == "suspicious":  # benchmark edit: faster, same greedy output; review flags it
        return same is True and vh is not None and vh > 0
    if designed == "patch_failed":
        return status == "patch_failed"
    if designed == "empty":
        return status == "empty"
    return False


if __name__ == "__main__":
    sys.exit(main())
