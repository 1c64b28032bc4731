#!/usr/bin/python3
"""A Python asyncio streaming client that reads SSE exactly like vLLM's backend_request_func.py
(aiohttp; iterate response.content; strip; remove 'data: '; json.loads; timestamp per chunk).

The benchmark's reference point for isobench loadgen. Against bench's StreamingTestServer every chunk's text is
"<server nanoTime>;", so client-added latency = arrival (time.perf_counter_ns, CLOCK_MONOTONIC) - stamp.
Prints one JSON line: chunks, cpu_s (this process, over the measured phase: after the --warmups requests, before
reporting; user + system), cpu_total_s (the whole process, interpreter start-up and imports included), wall_s,
client-added latency percentiles (ms) and the ITL error (measured gap - server stamp gap) p99 (ms).
Run with Debian's /usr/bin/python3 (python3-aiohttp).

Two modes:
  * bench mode (--url ...): the streaming-cost reference of bench/loadgen, unchanged: fixed prompt, N requests.
  * serve mode (--dataset-name ...): `vllm bench serve`'s workload and metrics for the parity table of
    docs/loadgen.md ("Parity with vllm bench serve"; bench/parity runs it next to isobench loadgen). Datasets random,
    sharegpt, custom, sonnet and prefix_repetition are built as vLLM builds them (vllm/benchmarks/datasets/*.py as read
    from vLLM's source: the same RNGs -- Python's `random` and numpy, seeded with --seed -- in the same order, the same
    token-id recipes with a HuggingFace tokenizer.json), the arrival process is vLLM's get_request (numpy gamma gaps,
    rescaled so the last arrival lands at N/rate), requests and SSE parsing follow lib/endpoint_request_func.py, and the
    metrics serve.py's calculate_metrics. It needs numpy and the `tokenizers` package (HF's Rust tokenizers; vLLM uses
    transformers' wrapper of the same library) besides aiohttp; bench/parity makes a venv with them. What is not
    vLLM's, stated: the chat template is rendered with jinja2 from tokenizer_config.json when there is one, and a
    tokenizer without one is used plain (vLLM refuses sonnet and, unless --skip-chat-template, custom then).
"""
import argparse
import asyncio
import json
import resource
import time

import aiohttp

AIOHTTP_TIMEOUT = aiohttp.ClientTimeout(total=6 * 60 * 60)


async def request(session, url, payload, out):
    arrivals = []
    text = ""
    st = time.perf_counter()
    async with session.post(url=url, json=payload) as response:
        if response.status == 200:
            first_chunk_received = False
            ttft = 0.0
            most_recent_timestamp = st
            itl = []
            async for chunk_bytes in response.content:
                chunk_bytes = chunk_bytes.strip()
                if not chunk_bytes:
                    continue
                chunk = chunk_bytes.decode("utf-8").removeprefix("data: ")
                if chunk != "[DONE]":
                    data = json.loads(chunk)
                    if choices := data.get("choices"):
                        t = choices[0].get("text")
                        timestamp = time.perf_counter()
                        arrivals.append(time.perf_counter_ns())
                        if not first_chunk_received:
                            first_chunk_received = True
                            ttft = timestamp - st
                        else:
                            itl.append(timestamp - most_recent_timestamp)
                        most_recent_timestamp = timestamp
                        text += t or ""
                    elif usage := data.get("usage"):
                        out["output_tokens"] += usage.get("completion_tokens") or 0
            out["ok"] += 1 if first_chunk_received else 0
        else:
            out["failed"] += 1
    stamps = [int(s) for s in text.split(";") if s]
    out["lat_ns"].extend(a - s for a, s in zip(arrivals, stamps))
    out["itl_err_ns"].extend(abs((arrivals[i] - arrivals[i - 1]) - (stamps[i] - stamps[i - 1]))
                             for i in range(1, min(len(arrivals), len(stamps))))
    out["chunks"] += len(arrivals)


async def legacy_main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--requests", type=int, required=True)
    ap.add_argument("--concurrency", type=int, required=True)
    ap.add_argument("--max-tokens", type=int, required=True)
    ap.add_argument("--warmups", type=int, default=0, help="requests sent first and not measured")
    a = ap.parse_args()
    out = {"ok": 0, "failed": 0, "chunks": 0, "output_tokens": 0, "lat_ns": [], "itl_err_ns": []}
    sem = asyncio.Semaphore(a.concurrency)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(trust_env=True, timeout=AIOHTTP_TIMEOUT, connector=connector) as session:
        async def one(i, sink):
            async with sem:
                payload = {"model": "test", "prompt": "hello world", "max_tokens": a.max_tokens, "stream": True,
                           "ignore_eos": True, "temperature": 0.0, "stream_options": {"include_usage": True}}
                await request(session, a.url, payload, sink)
        if a.warmups:
            discard = {"ok": 0, "failed": 0, "chunks": 0, "output_tokens": 0, "lat_ns": [], "itl_err_ns": []}
            await asyncio.gather(*(one(i, discard) for i in range(a.warmups)))
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        await asyncio.gather(*(one(i, out) for i in range(a.requests)))
        wall = time.perf_counter() - t0
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
    lat = sorted(out.pop("lat_ns"))
    itl_err = sorted(out.pop("itl_err_ns"))

    def pct(v, p):
        if not v:
            return None
        k = (len(v) - 1) * p / 100.0
        lo, hi = int(k), min(int(k) + 1, len(v) - 1)
        return (v[lo] + (v[hi] - v[lo]) * (k - lo)) / 1e6

    out.update({"client": "python-aiohttp", "wall_s": wall,
                "cpu_s": (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime),
                "cpu_user_s": ru1.ru_utime - ru0.ru_utime, "cpu_sys_s": ru1.ru_stime - ru0.ru_stime,
                "cpu_total_s": ru1.ru_utime + ru1.ru_stime,
                "lat_p50_ms": pct(lat, 50), "lat_p99_ms": pct(lat, 99), "lat_max_ms": pct(lat, 100),
                "itl_err_p99_ms": pct(itl_err, 99)})
    print(json.dumps(out))



# ------------------------------------------------------------------------------------------------ serve mode
# vLLM's `vllm bench serve` workload and metrics (see the module docstring). numpy and tokenizers are imported here
# only, so bench mode keeps running on Debian's python3 with aiohttp alone.

class Tok:
    """The subset of a transformers tokenizer that vLLM's datasets use, over a HuggingFace tokenizer.json."""

    def __init__(self, path):
        import os
        from tokenizers import Tokenizer
        if os.path.isdir(path):
            path = os.path.join(path, "tokenizer.json")
        self.tk = Tokenizer.from_file(path)
        self.vocab_size = self.tk.get_vocab_size(with_added_tokens=False)  # transformers' vocab_size
        added = json.load(open(path, encoding="utf-8")).get("added_tokens", [])
        self.all_special_ids = [a["id"] for a in added if a.get("special")]
        self.num_special = len(self.tk.encode("", add_special_tokens=True).ids) - len(
            self.tk.encode("", add_special_tokens=False).ids)
        self.template = None
        cfg = os.path.join(os.path.dirname(path), "tokenizer_config.json")
        if os.path.exists(cfg):
            c = json.load(open(cfg, encoding="utf-8"))
            if c.get("chat_template"):
                import jinja2
                self.template = (jinja2.Environment().from_string(c["chat_template"]), c)

    def encode(self, text, add_special_tokens=True):
        return self.tk.encode(text, add_special_tokens=add_special_tokens).ids

    def decode(self, ids):
        return self.tk.decode(ids, skip_special_tokens=False)  # transformers' decode keeps special tokens

    def chat(self, content):
        """apply_chat_template([user], add_generation_prompt=True, tokenize=False); the plain text without one."""
        if self.template is None:
            return content
        t, c = self.template
        return t.render(messages=[{"role": "user", "content": content}], add_generation_prompt=True,
                        bos_token=c.get("bos_token", ""), eos_token=c.get("eos_token", ""))


def gen_prompt_decode_to_target_len(tok, seq, target, rng=None, max_retry=10):
    """datasets/utils.py: decode, re-encode (no special tokens), pad with random ids or cut, up to 10 times."""
    import numpy as np
    left = max_retry
    mismatch = 0
    while True:
        prompt = tok.decode(seq)
        seq = tok.encode(prompt, add_special_tokens=False)
        if left <= 0:
            if len(seq) != target:
                mismatch = len(seq) - target
            break
        if len(seq) == target:
            break
        if len(seq) < target:
            n = target - len(seq)
            seq.extend((rng.integers(0, tok.vocab_size, size=n) if rng is not None
                        else np.random.randint(0, tok.vocab_size, size=n)).tolist())
        else:
            seq = seq[:target]
        left -= 1
    return prompt, seq, mismatch


def req(prompt, prompt_len, output_len, rid=None):
    return {"prompt": prompt, "prompt_len": prompt_len, "output_len": output_len, "request_id": rid}


def oversample(samples, n, seed, prefix):
    """BenchmarkDataset.maybe_oversample_requests: random.seed(seed), then random.choice for the missing ones."""
    import random
    if len(samples) < n:
        random.seed(seed)
        extra = []
        for i in range(n - len(samples)):
            r = dict(random.choice(samples))
            r["request_id"] = prefix + str(len(samples) + i)
            extra.append(r)
        samples.extend(extra)
    return samples


def sample_random(a, tok):
    import math
    import numpy as np
    rng = np.random.default_rng(a.seed)
    r = float(a.random_range_ratio)
    real = max(0, a.random_input_len - tok.num_special)
    in_lo, in_hi = math.floor(real * (1 - r)), math.ceil(real * (1 + r))
    out_lo = max(math.floor(a.random_output_len * (1 - r)), 1)
    out_hi = max(math.ceil(a.random_output_len * (1 + r)), 1)
    input_lens = rng.integers(in_lo, in_hi + 1, size=a.num_prompts)
    output_lens = rng.integers(out_lo, out_hi + 1, size=a.num_prompts)
    offsets = rng.integers(0, tok.vocab_size, size=a.num_prompts)
    allowed = np.array(list(set(np.arange(tok.vocab_size)) - set(tok.all_special_ids)))
    prefix = allowed[rng.integers(0, len(allowed), size=a.random_prefix_len)].tolist() if a.random_prefix_len > 0 else []
    out = []
    for i in range(a.num_prompts):
        inner = allowed[(int(offsets[i]) + i + np.arange(int(input_lens[i]))) % len(allowed)].tolist()
        prompt, seq, _ = gen_prompt_decode_to_target_len(tok, prefix + inner, a.random_prefix_len + int(input_lens[i]),
                                                         rng=rng)
        out.append(req(prompt, len(seq), int(output_lens[i]), a.request_id_prefix + str(i)))
    return out


def is_valid_sequence(prompt_len, output_len, skip_min_output=False):
    return not (prompt_len < 4 or (not skip_min_output and output_len < 4) or prompt_len > 1024
                or prompt_len + output_len > 2048)


def sample_sharegpt(a, tok):
    import random
    data = [e for e in json.load(open(a.dataset_path, encoding="utf-8"))
            if "conversations" in e and len(e["conversations"]) >= 2]
    random.seed(a.seed)
    if not a.disable_shuffle:
        random.shuffle(data)
    out = []
    for e in data:
        if len(out) >= a.num_prompts:
            break
        prompt, completion = e["conversations"][0]["value"], e["conversations"][1]["value"]
        plen = len(tok.encode(prompt))
        olen = len(tok.encode(completion)) if a.sharegpt_output_len is None else a.sharegpt_output_len
        if not is_valid_sequence(plen, olen, a.sharegpt_output_len is not None):
            continue
        out.append(req(prompt, plen, olen, a.request_id_prefix + str(len(out))))
    return out if a.no_oversample else oversample(out, a.num_prompts, a.seed, a.request_id_prefix)


def sample_custom(a, tok):
    import random
    if not a.dataset_path.endswith(".jsonl"):
        raise SystemExit("Only JSONL format is supported for CustomDataset.")
    data = [json.loads(line) for line in open(a.dataset_path, encoding="utf-8") if line.strip()]
    random.seed(a.seed)
    if not a.disable_shuffle:
        random.shuffle(data)
    n = a.num_prompts if a.num_prompts > 0 else len(data)
    out = []
    for i, item in enumerate(data):
        if len(out) >= n:
            break
        prompt = item["prompt"] if a.skip_chat_template else tok.chat(item["prompt"])
        out.append(req(prompt, len(tok.encode(prompt)), a.custom_output_len, a.request_id_prefix + str(i)))
    return out if a.no_oversample else oversample(out, n, a.seed, a.request_id_prefix)


def sample_sonnet(a, tok, chat_endpoint):
    import random  # the global RNG, seeded by main with --seed (sonnet does not re-seed)
    lines = open(a.dataset_path, encoding="utf-8").readlines()
    avg = sum(len(tok.encode(line)) for line in lines) / len(lines)
    base = "Pick as many lines as you can from these poem lines:\n"
    base_offset = len(tok.encode(tok.chat(base)))
    if a.sonnet_input_len <= base_offset:
        raise SystemExit(f"'input_len' must be higher than the base prompt length ({base_offset}).")
    n_in = round((a.sonnet_input_len - base_offset) / avg)
    n_pre = max(round((a.sonnet_prefix_len - base_offset) / avg), 0)
    prefix = lines[:n_pre]
    out = []
    while len(out) < a.num_prompts:
        extra = random.choices(lines, k=n_in - n_pre)
        prompt = f"{base}{''.join(prefix + extra)}"
        formatted = tok.chat(prompt)
        plen = len(tok.encode(formatted))
        if plen <= a.sonnet_input_len:
            # get_samples: return_prompt_formatted unless the backend is openai-chat (the server templates it)
            out.append(req(prompt if chat_endpoint else formatted, plen, a.sonnet_output_len,
                           a.request_id_prefix + str(len(out))))
    return out


def sample_prefix_repetition(a, tok):
    import random
    import numpy as np
    random.seed(a.seed)
    np.random.seed(a.seed)
    per = a.num_prompts // a.prefix_repetition_num_prefixes
    if per == 0:
        raise SystemExit(f"num_requests ({a.num_prompts}) must be greater than or equal to num_prefixes "
                         f"({a.prefix_repetition_num_prefixes})")

    def exact(n):
        return gen_prompt_decode_to_target_len(tok, np.random.randint(0, tok.vocab_size, size=n).tolist(), n)[1]

    out = []
    for _ in range(a.prefix_repetition_num_prefixes):
        pre = exact(a.prefix_repetition_prefix_len)
        for _ in range(per):
            ids = pre + exact(a.prefix_repetition_suffix_len)
            out.append(req(tok.decode(ids), len(ids), a.prefix_repetition_output_len))
    if not a.disable_shuffle:
        random.shuffle(out)
    return out


async def align_to_server_tokenizer(base_url, model, reqs):
    """serve.py _align_prompts_to_server_tokenizer (random, prefix_repetition): /tokenize, cut via /detokenize."""
    async with aiohttp.ClientSession() as s:
        sem = asyncio.Semaphore(64)

        async def tokenize(p):
            async with sem, s.post(f"{base_url}/tokenize", json={"model": model, "prompt": p,
                                                                 "add_special_tokens": False}) as r:
                r.raise_for_status()
                return (await r.json())["tokens"]

        async def detokenize(ids):
            async with sem, s.post(f"{base_url}/detokenize", json={"model": model, "tokens": ids}) as r:
                r.raise_for_status()
                return (await r.json())["prompt"]

        try:
            first = await tokenize(reqs[0]["prompt"])
        except Exception:
            print("WARNING: /tokenize unavailable, skipping alignment.")
            return reqs, "no /tokenize"
        if len(first) == reqs[0]["prompt_len"]:
            return reqs, "aligned"
        print(f"WARNING: tokenizer mismatch (server={len(first)}, expected={reqs[0]['prompt_len']}), re-aligning prompts.")

        async def fix(r):
            ids = await tokenize(r["prompt"])
            if len(ids) <= r["prompt_len"]:
                return r
            return dict(r, prompt=await detokenize(ids[:r["prompt_len"]]))

        res = await asyncio.gather(*[fix(r) for r in reqs], return_exceptions=True)
        kept = sum(1 for x in res if isinstance(x, BaseException))
        return [o if isinstance(x, BaseException) else x for o, x in zip(reqs, res)], \
            f"mismatch server={len(first)} expected={reqs[0]['prompt_len']}; {kept} prompts kept as they were"


class SSE:
    """endpoint_request_func.StreamedResponseHandler: split on blank lines; a trailing data: line that parses."""

    def __init__(self):
        import codecs
        self.buf = ""
        self.dec = codecs.getincrementaldecoder("utf-8")()

    def add(self, b):
        self.buf += self.dec.decode(b)
        msgs = []
        while "\n\n" in self.buf:
            m, self.buf = self.buf.split("\n\n", 1)
            if m.strip():
                msgs.append(m.strip())
        if self.buf.startswith("data: "):
            c = self.buf.removeprefix("data: ").strip()
            if c == "[DONE]":
                msgs.append(self.buf.strip())
                self.buf = ""
            elif c:
                try:
                    json.loads(c)
                    msgs.append(self.buf.strip())
                    self.buf = ""
                except json.JSONDecodeError:
                    pass
        return msgs


async def send(session, api_url, a, r, extra_body, chat):
    """async_request_openai_completions / _chat_completions, as read: the same body, timing and success rule."""
    import sys
    import traceback
    model = a.served_model_name or a.model
    if chat:
        payload = {"model": model, "messages": [{"role": "user", "content": [{"type": "text", "text": r["prompt"]}]}],
                   "max_completion_tokens": r["output_len"], "stream": True, "stream_options": {"include_usage": True}}
    else:
        payload = {"model": model, "prompt": r["prompt"], "repetition_penalty": 1.0, "max_tokens": r["output_len"],
                   "logprobs": None, "stream": True, "stream_options": {"include_usage": True}}
    if a.ignore_eos:
        payload["ignore_eos"] = True
    payload.update(extra_body)
    headers = {"Content-Type": "application/json"} if chat else {}
    if r.get("request_id"):
        headers["x-request-id"] = r["request_id"]
    o = {"success": False, "latency": 0.0, "output_tokens": 0, "ttft": 0.0, "itl": [], "prompt_len": r["prompt_len"],
         "error": "", "generated_text": ""}
    text = ""
    st = time.perf_counter()
    o["start_time"] = st
    last = st
    try:
        async with session.post(url=api_url, json=payload, headers=headers) as resp:
            if resp.status == 200:
                first = False
                h = SSE()
                async for cb in resp.content.iter_any():
                    cb = cb.strip()
                    if not cb:
                        continue
                    for m in h.add(cb):
                        if m.startswith(":"):
                            continue
                        c = m.removeprefix("data: ")
                        if c == "[DONE]":
                            continue
                        ts = time.perf_counter()
                        d = json.loads(c)
                        if choices := d.get("choices"):
                            t = choices[0]["delta"].get("content") if chat else choices[0].get("text")
                            if not first:
                                first = True
                                o["ttft"] = ts - st
                            else:
                                o["itl"].append(ts - last)
                            last = ts
                            text += t or ""
                        elif usage := d.get("usage"):
                            o["output_tokens"] = usage.get("completion_tokens")
                            if (pt := usage.get("prompt_tokens")) is not None:
                                o["prompt_len"] = pt
                o["success"] = first
                if not first:
                    o["error"] = "Never received a valid chunk to calculate TTFT."
                o["generated_text"] = text
                o["latency"] = last - st
            else:
                o["error"] = resp.reason or ""
    except Exception:
        o["error"] = "".join(traceback.format_exception(*sys.exc_info()))
    return o


def arrival_delays(n, rate, burstiness, ramp):
    """serve.py get_request: cumulative numpy gamma gaps (global np RNG), rescaled to N/rate without ramp-up."""
    import numpy as np
    d = []
    for i in range(n):
        cur = rate
        if ramp[0]:
            p = i / max(n - 1, 1)
            cur = ramp[1] + (ramp[2] - ramp[1]) * p if ramp[0] == "linear" else ramp[1] * (ramp[2] / ramp[1]) ** p
        if cur == float("inf"):
            d.append(0)
        elif burstiness == float("inf"):
            d.append(1.0 / cur)
        else:
            d.append(np.random.gamma(shape=burstiness, scale=1.0 / (cur * burstiness)))
    for i in range(1, n):
        d[i] += d[i - 1]
    if ramp[0] is None and d and d[-1] != 0:
        f = (n / rate) / d[-1]
        d = [x * f for x in d]
    return d


def metrics(outputs, dur, tok, percentiles, goodput):
    """serve.py calculate_metrics, as read."""
    import numpy as np
    out_lens, ttfts, tpots, all_tpots, itls, e2els = [], [], [], [], [], []
    total_in = completed = good = 0
    for o in outputs:
        if not o["success"]:
            out_lens.append(0)
            continue
        n = o["output_tokens"]
        if not n:
            n = len(tok.encode(o["generated_text"], add_special_tokens=False))
        out_lens.append(n)
        total_in += o["prompt_len"]
        tpot = 0.0
        if n > 1:
            tpot = (o["latency"] - o["ttft"]) / (n - 1)
            tpots.append(tpot)
        all_tpots.append(tpot)
        itls += o["itl"]
        ttfts.append(o["ttft"])
        e2els.append(o["latency"])
        completed += 1
    if goodput:
        cols, slos = [], []
        for k, v in (("ttft", ttfts), ("tpot", all_tpots), ("e2el", e2els)):
            if k in goodput:
                cols.append(v)
                slos.append(goodput[k] / 1000)
        good = sum(1 for row in zip(*cols) if all(s >= r for s, r in zip(slos, row)))
    ok = [o for o in outputs if o["success"]]
    peak_tok = 0.0
    peak_conc = 0
    if ok:
        t0 = min(o["start_time"] for o in ok)
        t1 = max(o["start_time"] + o["latency"] for o in ok)
        buckets = np.zeros(int(np.ceil(t1 - t0)) + 1)
        for o in ok:
            t = o["start_time"] + o["ttft"]
            times = [t]
            for g in o["itl"]:
                t += g
                times.append(t)
            for t in times:
                b = int(t - t0)
                if 0 <= b < len(buckets):
                    buckets[b] += 1
        ev = sorted([(o["start_time"], 1) for o in ok] + [(o["start_time"] + o["latency"], -1) for o in ok])
        cur = 0
        for _, dlt in ev:
            cur += dlt
            peak_conc = max(peak_conc, cur)
        peak_tok = float(np.max(buckets))
    total_out = sum(out_lens)
    res = {"completed": completed, "failed": len(outputs) - completed, "total_input_tokens": total_in,
           "total_output_tokens": total_out, "request_throughput": completed / dur,
           "request_goodput": good / dur if goodput else None, "output_throughput": total_out / dur,
           "total_token_throughput": (total_in + total_out) / dur, "max_output_tokens_per_s": peak_tok,
           "max_concurrent_requests": peak_conc}
    for name, v in (("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", e2els)):
        res[f"mean_{name}_ms"] = float(np.mean(v or 0) * 1000)
        res[f"median_{name}_ms"] = float(np.median(v or 0) * 1000)
        res[f"std_{name}_ms"] = float(np.std(v or 0) * 1000)
        for p in percentiles:
            w = str(int(p)) if int(p) == p else str(p)
            res[f"p{w}_{name}_ms"] = float(np.percentile(v or 0, p) * 1000)
    return res


async def serve_main(a):
    import hashlib
    import random
    import numpy as np
    random.seed(a.seed)
    np.random.seed(a.seed)
    base_url = a.base_url.rstrip("/")
    api_url = base_url + a.endpoint
    chat = a.endpoint.endswith("chat/completions")
    tok = Tok(a.tokenizer)
    if a.dataset_name == "random":  # serve.py: random datasets ignore EOS on OpenAI-compatible backends
        a.ignore_eos = True
    make = {"random": sample_random, "sharegpt": sample_sharegpt, "custom": sample_custom,
            "prefix_repetition": sample_prefix_repetition}
    reqs = sample_sonnet(a, tok, chat) if a.dataset_name == "sonnet" else make[a.dataset_name](a, tok)
    align = "-"
    if a.dataset_name in ("random", "prefix_repetition"):
        reqs, align = await align_to_server_tokenizer(base_url, a.model, reqs)
    digest = hashlib.sha256()
    for r in reqs:  # the same recipe as isobench's Datasets.digest (warm-ups aside)
        digest.update(r["prompt"].encode("utf-8") + b"\0" + str(r["output_len"]).encode() + b"\n")
    sampling = {k: v for k, v in (("top_p", a.top_p), ("top_k", a.top_k), ("min_p", a.min_p),
                                  ("temperature", a.temperature)) if v is not None}
    extra_body = {**sampling, **(json.loads(a.extra_body) if a.extra_body else {})}
    goodput = {k: float(v) for k, v in (g.split(":") for g in (a.goodput or []))}
    percentiles = [float(p) for p in a.metric_percentiles.split(",")]
    mc = a.max_concurrency
    connector = aiohttp.TCPConnector(limit=mc or 0, limit_per_host=mc or 0, ttl_dns_cache=300, use_dns_cache=True,
                                     keepalive_timeout=60, enable_cleanup_closed=True, force_close=False)
    async with aiohttp.ClientSession(connector=connector, trust_env=True, timeout=AIOHTTP_TIMEOUT) as session:
        sem = asyncio.Semaphore(mc) if mc else None

        async def limited(r, arrival):
            if sem:
                async with sem:
                    o = await send(session, api_url, a, r, extra_body, chat)
            else:
                o = await send(session, api_url, a, r, extra_body, chat)
            o["client_queue_time"] = o["start_time"] - arrival
            return o

        if a.num_warmups > 0:  # the first request, num_warmups times, under the cap
            await asyncio.gather(*[limited(reqs[0], time.perf_counter()) for _ in range(a.num_warmups)])
        delays = arrival_delays(len(reqs), a.request_rate, a.burstiness,
                                (a.ramp_up_strategy, a.ramp_up_start_rps, a.ramp_up_end_rps))
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        bench_start = time.perf_counter()
        start_ts = time.time()
        tasks = []
        for i, r in enumerate(reqs):
            if delays[i] > 0:
                s = start_ts + delays[i] - time.time()
                if s > 0:
                    await asyncio.sleep(s)
            tasks.append(asyncio.create_task(limited(r, time.perf_counter())))
        outputs = await asyncio.gather(*tasks)
        dur = time.perf_counter() - bench_start
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
    m = metrics(outputs, dur, tok, percentiles, goodput)
    print("{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
    print("{:<40} {:<10}".format("Successful requests:", m["completed"]))
    print("{:<40} {:<10}".format("Failed requests:", m["failed"]))
    if mc is not None:
        print("{:<40} {:<10}".format("Maximum request concurrency:", mc))
    if a.request_rate != float("inf"):
        print("{:<40} {:<10.2f}".format("Request rate configured (RPS):", a.request_rate))
    print("{:<40} {:<10.2f}".format("Benchmark duration (s):", dur))
    print("{:<40} {:<10}".format("Total input tokens:", m["total_input_tokens"]))
    print("{:<40} {:<10}".format("Total generated tokens:", m["total_output_tokens"]))
    print("{:<40} {:<10.2f}".format("Request throughput (req/s):", m["request_throughput"]))
    if goodput:
        print("{:<40} {:<10.2f}".format("Request goodput (req/s):", m["request_goodput"]))
    print("{:<40} {:<10.2f}".format("Output token throughput (tok/s):", m["output_throughput"]))
    print("{:<40} {:<10.2f}".format("Peak output token throughput (tok/s):", m["max_output_tokens_per_s"]))
    print("{:<40} {:<10.2f}".format("Peak concurrent requests:", m["max_concurrent_requests"]))
    print("{:<40} {:<10.2f}".format("Total token throughput (tok/s):", m["total_token_throughput"]))
    for name, title, head in (("ttft", "TTFT", "Time to First Token"),
                              ("tpot", "TPOT", "Time per Output Token (excl. 1st token)"),
                              ("itl", "ITL", "Inter-token Latency"), ("e2el", "E2EL", "End-to-end Latency")):
        if name not in a.percentile_metrics.split(","):
            continue
        print("{s:{c}^{n}}".format(s=head, n=50, c="-"))
        print("{:<40} {:<10.2f}".format(f"Mean {title} (ms):", m[f"mean_{name}_ms"]))
        print("{:<40} {:<10.2f}".format(f"Median {title} (ms):", m[f"median_{name}_ms"]))
        for p in percentiles:
            w = str(int(p)) if int(p) == p else str(p)
            print("{:<40} {:<10.2f}".format(f"P{w} {title} (ms):", m[f"p{w}_{name}_ms"]))
    print("=" * 50)
    if a.result_file:
        result = {"client": "python-vllm-style", "dataset_name": a.dataset_name, "num_prompts": len(reqs),
                  "request_rate": a.request_rate if a.request_rate != float("inf") else "inf",
                  "burstiness": a.burstiness, "max_concurrency": mc, "duration": dur, **m,
                  "prompts_sha256": digest.hexdigest(), "alignment": align,
                  "intended_input_tokens": sum(r["prompt_len"] for r in reqs),
                  "intended_output_tokens": sum(r["output_len"] for r in reqs),
                  "input_lens": [o["prompt_len"] for o in outputs],
                  "errors": [o["error"] for o in outputs if o["error"]][:10],
                  "arrival_offsets_s": delays,
                  "client_cpu_s": (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)}
        with open(a.result_file, "w", encoding="utf-8") as f:
            json.dump(result, f)


def serve_args(argv):
    ap = argparse.ArgumentParser(description="vllm bench serve's workload and metrics (serve mode)")
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--endpoint", default="/v1/completions")
    ap.add_argument("--model", required=True)
    ap.add_argument("--served-model-name")
    ap.add_argument("--tokenizer", required=True, help="a HuggingFace tokenizer.json or its folder")
    ap.add_argument("--dataset-name", required=True,
                    choices=["random", "sharegpt", "custom", "sonnet", "prefix_repetition"])
    ap.add_argument("--dataset-path")
    ap.add_argument("--num-prompts", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--request-rate", type=float, default=float("inf"))
    ap.add_argument("--burstiness", type=float, default=1.0)
    ap.add_argument("--max-concurrency", type=int)
    ap.add_argument("--ramp-up-strategy", choices=["linear", "exponential"])
    ap.add_argument("--ramp-up-start-rps", type=int)
    ap.add_argument("--ramp-up-end-rps", type=int)
    ap.add_argument("--num-warmups", type=int, default=0)
    ap.add_argument("--ignore-eos", action="store_true")
    ap.add_argument("--temperature", type=float)
    ap.add_argument("--top-p", type=float)
    ap.add_argument("--top-k", type=int)
    ap.add_argument("--min-p", type=float)
    ap.add_argument("--extra-body")
    ap.add_argument("--random-input-len", type=int, default=1024)
    ap.add_argument("--random-output-len", type=int, default=128)
    ap.add_argument("--random-range-ratio", type=float, default=0.0)
    ap.add_argument("--random-prefix-len", type=int, default=0)
    ap.add_argument("--sharegpt-output-len", type=int)
    ap.add_argument("--custom-output-len", type=int, default=256)
    ap.add_argument("--skip-chat-template", action="store_true")
    ap.add_argument("--sonnet-input-len", type=int, default=550)
    ap.add_argument("--sonnet-output-len", type=int, default=150)
    ap.add_argument("--sonnet-prefix-len", type=int, default=200)
    ap.add_argument("--prefix-repetition-prefix-len", type=int, default=256)
    ap.add_argument("--prefix-repetition-suffix-len", type=int, default=256)
    ap.add_argument("--prefix-repetition-num-prefixes", type=int, default=10)
    ap.add_argument("--prefix-repetition-output-len", type=int, default=128)
    ap.add_argument("--disable-shuffle", action="store_true")
    ap.add_argument("--no-oversample", action="store_true")
    ap.add_argument("--request-id-prefix", default="bench-")
    ap.add_argument("--percentile-metrics", default="ttft,tpot,itl")
    ap.add_argument("--metric-percentiles", default="99")
    ap.add_argument("--goodput", nargs="+")
    ap.add_argument("--result-file", help="write the result JSON (vLLM's keys + prompts_sha256, alignment) here")
    return ap.parse_args(argv)


if __name__ == "__main__":
    import sys
    if "--dataset-name" in sys.argv[1:]:
        asyncio.run(serve_main(serve_args(sys.argv[1:])))
    else:
        asyncio.run(legacy_main())
