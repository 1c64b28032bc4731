#!/usr/bin/env python3
"""Writes trace.jsonl: a small synthetic trace in Mooncake's format (made here, not copied from any real trace).

    python3 examples/trace-replay/make_trace.py > examples/trace-replay/trace.jsonl

200 requests over about 20 s (Poisson arrivals at 10 requests/s, millisecond timestamps from 0). Blocks are 16 tokens
(replay with --timed-trace-chunk-hash-size 16). Eight "applications" each own a 4-block system prompt; a request
names the first 1-4 blocks of its application's prompt (a shared prefix), then 1-3 blocks of its own, the last one
cut short, so input_length = (len(hash_ids) - 1) * 16 + (1..16), as in Mooncake's traces. Output lengths 4-24.
Seeded: the same file every time.
"""
import json
import random

BLOCK = 16
rng = random.Random(31)
next_id = 0
apps = []
for _ in range(8):
    apps.append(list(range(next_id, next_id + 4)))
    next_id += 4

t_ms = 0.0
for i in range(200):
    if i > 0:
        t_ms += rng.expovariate(10.0) * 1000.0
    app = apps[rng.randrange(len(apps))]
    shared = app[: rng.randint(1, 4)]
    own = list(range(next_id, next_id + rng.randint(1, 3)))
    next_id += len(own)
    ids = shared + own
    input_length = (len(ids) - 1) * BLOCK + rng.randint(1, BLOCK)
    print(json.dumps({"timestamp": int(t_ms), "input_length": input_length,
                      "output_length": rng.randint(4, 24), "hash_ids": ids}))
