"""Simulated hardware costs and engine defaults.

Sleeps stand in for GPU kernels: they keep the demo's effects stable on a busy CPU.
"""

# One forward pass: fixed launch/synchronisation cost plus a cost per token in the batch.
STEP_OVERHEAD_S = 0.0015
TOKEN_COST_S = 0.00001

# Detokenization cost per token handed to Tokenizer.decode (a slow, pure-Python tokenizer).
DECODE_COST_PER_TOKEN_S = 0.00003

# How long the idle engine loop sleeps before it looks for new requests again.
POLL_INTERVAL_S = 0.05

MAX_MODEL_LEN = 4096
DEFAULT_MODEL = "toy-1m"
