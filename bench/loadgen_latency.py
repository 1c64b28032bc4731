#!/usr/bin/python3
"""Client-added latency of an isobench loadgen run against bench's StreamingTestServer, from its --save-detailed
JSON: chunk arrival (run origin + sent + ttft + cumulative itls, CLOCK_MONOTONIC) minus the server's stamp; the ITL
error (measured gap - stamp gap); and the client's own CPU over the measured phase (isobench_client_cpu_s)."""
import json
import sys

r = json.load(open(sys.argv[1]))
t0 = r["isobench_start_monotonic_ns"]
lat = []
itl_err = []
for sent, ttft, itls, text in zip(r["isobench_sent_s"], r["ttfts"], r["itls"], r["generated_texts"]):
    stamps = [int(s) for s in text.split(";") if s]
    t = t0 + sent * 1e9 + ttft * 1e9
    arr = [t]
    for g in itls:
        t += g * 1e9
        arr.append(t)
    lat.extend(a - s for a, s in zip(arr, stamps))
    itl_err.extend(abs(g * 1e9 - (stamps[i + 1] - stamps[i])) for i, g in enumerate(itls[:len(stamps) - 1]))
lat.sort()
itl_err.sort()


def pct(v, p):
    if not v:
        return None
    k = (len(v) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return (v[lo] + (v[hi] - v[lo]) * (k - lo)) / 1e6


print(json.dumps({"chunks": len(lat), "ok": r["completed"], "failed": r["failed"], "wall_s": r["duration"],
                  "cpu_s": r.get("isobench_client_cpu_s"), "cpu_user_s": r.get("isobench_client_cpu_user_s"),
                  "cpu_sys_s": r.get("isobench_client_cpu_sys_s"),
                  "io_thread_cpu_s": r.get("isobench_client_io_thread_cpu_s"),
                  "io_thread_user_s": r.get("isobench_client_io_thread_user_s"),
                  "lat_p50_ms": pct(lat, 50), "lat_p99_ms": pct(lat, 99), "lat_max_ms": pct(lat, 100),
                  "itl_err_p99_ms": pct(itl_err, 99)}))
