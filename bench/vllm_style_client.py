#!/usr/bin/python3
"""A Python asyncio streaming client that reads SSE exactly like vLLM's backend_request_func.py
(aiohttp; iterate response.content; strip; remove 'data: '; json.loads; timestamp per chunk).

The benchmark's reference point for isobench loadgen. Against bench's StreamingTestServer every chunk's text is
"<server nanoTime>;", so client-added latency = arrival (time.perf_counter_ns, CLOCK_MONOTONIC) - stamp.
Prints one JSON line: chunks, cpu_s (this process, over the measured phase: after the --warmups requests, before
reporting; user + system), cpu_total_s (the whole process, interpreter start-up and imports included), wall_s,
client-added latency percentiles (ms) and the ITL error (measured gap - server stamp gap) p99 (ms).
Run with Debian's /usr/bin/python3 (python3-aiohttp).
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


async def main():
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


asyncio.run(main())
