#!/usr/bin/python3
"""Client-added latency of an isobench loadgen run against bench's StreamingTestServer, from its --save-detailed
JSON: chunk arrival (run origin + sent + ttft + cumulative itls, CLOCK_MONOTONIC) minus the server's stamp."""
import json
import sys

r = json.load(open(sys.argv[1]))
t0 = r["isobench_start_monotonic_ns"]
lat = []
for sent, ttft, itls, text in zip(r["isobench_sent_s"], r["ttfts"], r["itls"], r["generated_texts"]):
    stamps = [int(s) for s in text.split(";") if s]
    t = t0 + sent * 1e9 + ttft * 1e9
    arr = [t]
    for g in itls:
        t += g * 1e9
        arr.append(t)
    lat.extend(a - s for a, s in zip(arr, stamps))
lat.sort()


def pct(p):
    k = (len(lat) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(lat) - 1)
    return (lat[lo] + (lat[hi] - lat[lo]) * (k - lo)) / 1e6


print(json.dumps({"chunks": len(lat), "ok": r["completed"], "failed": r["failed"],
                  "lat_p50_ms": pct(50), "lat_p99_ms": pct(99), "lat_max_ms": pct(100)}))
